#include "workload/trace_reader.h"

#include "io/error.h"
#include "workload/helios_trace.h"
#include "workload/openb_trace.h"
#include "workload/pai_trace.h"
#include "workload/philly_trace.h"

namespace orrery::workload {

const std::vector<std::string>& traceFormats()
{
    static const std::vector<std::string> formats = {"gavel", "openb", "pai", "helios", "philly"};
    return formats;
}

TraceRead readTrace(const std::string& format, const std::string& path, const TraceOptions& options)
{
    if (format == "gavel") {
        GavelTraceOptions g = options.gavel;
        if (options.limit)
            g.limit = options.limit;
        TraceRead r;
        r.jobs = readGavelTrace(path, g);
        r.rows = static_cast<int>(r.jobs.size());
        return r;
    }
    if (format == "openb")
        return readOpenbPods(path, options.limit);
    if (format == "pai")
        return readPaiTrace(path, options.pairedPath, options.limit);
    if (format == "helios")
        return readHeliosLog(path, options.limit);
    if (format == "philly")
        return readPhillyTrace(path, options.limit);
    throw Error("unknown trace format \"" + format + "\" (expected gavel, openb, pai, helios or philly)");
}

} // namespace orrery::workload
