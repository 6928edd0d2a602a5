#include "workload/trace_reader.h"

#include "io/error.h"
#include "workload/helios_trace.h"
#include "workload/openb_trace.h"
#include "workload/pai_trace.h"
#include "workload/philly_trace.h"
#include "workload/pollux_workload.h"
#include "workload/tiresias_trace.h"
#include "workload/trace_read.h"

#include <fmt/format.h>

namespace orrery::workload {

const std::vector<std::string>& traceFormats()
{
    static const std::vector<std::string> formats = {"gavel",  "openb", "pai",    "helios",
                                                     "philly", "sia",   "pollux", "tiresias"};
    return formats;
}

void checkTraceJobCount(std::size_t jobs, const std::string& file, const std::string& location, long long cap)
{
    if (static_cast<long long>(jobs) > cap)
        throw Error(file, location,
                    fmt::format("more than {} GPU jobs: a trace may hold at most that many (a workload's cap); split "
                                "the file",
                                cap));
}

void checkClusterSize(long long nodes, long long gpus, const io::FieldParser& row)
{
    if (nodes > io::limits::kMaxClusterNodes)
        throw Error(
            row.file(), std::to_string(row.line()),
            fmt::format("more than {} GPU nodes: a cluster may have at most that many", io::limits::kMaxClusterNodes));
    if (gpus > io::limits::kMaxClusterGpus)
        throw Error(
            row.file(), std::to_string(row.line()),
            fmt::format("{} GPUs up to here, more than the {} a cluster may have", gpus, io::limits::kMaxClusterGpus));
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
    // One file format: Sia's workloads keep Pollux's header (its time column may be fractional).
    if (format == "sia" || format == "pollux")
        return readPolluxWorkload(path, options.limit);
    if (format == "tiresias")
        return readTiresiasTrace(path, options.limit);
    throw Error("unknown trace format \"" + format +
                "\" (expected gavel, openb, pai, helios, philly, sia, pollux or tiresias)");
}

} // namespace orrery::workload
