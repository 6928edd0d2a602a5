#include "workload/philly_trace.h"

#include "io/error.h"
#include "io/limits.h"
#include "io/text_table.h"
#include "util/text.h"

#include <fmt/format.h>

#include <limits>

namespace orrery::workload {

TraceRead parsePhillyCsv(std::string_view text, const std::string& fileLabel, std::optional<int> limit)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    const int cTime = t.requireColumn("timestamp"), cDuration = t.requireColumn("duration"),
              cGpus = t.requireColumn("num_gpus"), cVc = t.column("cluster");
    TraceRead out;
    int noGpu = 0, zeroLength = 0;
    double first = std::numeric_limits<double>::infinity();
    for (const auto& r : t.records()) {
        const int row = out.rows++;
        const io::FieldParser p(fileLabel, r.line);
        const double submit = p.dateTime("timestamp", t.field(r, cTime));
        first = std::min(first, submit);
        const double duration = p.nonNegativeNumber("duration", t.field(r, cDuration));
        const auto gpus = p.nonNegativeInteger("num_gpus", t.field(r, cGpus));
        if (gpus > io::limits::kMaxJobGpus)
            p.fail("num_gpus",
                   fmt::format("expected a GPU count of at most {}, got {}", io::limits::kMaxJobGpus, gpus));
        if (gpus == 0 || duration == 0) {
            ++(gpus == 0 ? noGpu : zeroLength);
            continue;
        }
        Job job;
        job.id = fmt::format("philly-{}", row);
        if (cVc >= 0)
            job.user = t.field(r, cVc);
        job.kind = JobKind::Fixed;
        job.gpus = static_cast<int>(gpus);
        job.arrivalS = submit;
        job.durationS = duration;
        out.jobs.push_back(std::move(job));
        checkTraceJobCount(out.jobs.size(), fileLabel, std::to_string(r.line));
    }
    for (auto& j : out.jobs)
        j.arrivalS -= first;
    out.skipped = noGpu + zeroLength;
    out.skippedWhy = fmt::format("{} jobs without GPUs, {} jobs of zero length", noGpu, zeroLength);
    sortAndLimit(out.jobs, limit);
    return out;
}

TraceRead readPhillyTrace(const std::string& path, std::optional<int> limit)
{
    const std::string text = util::readFile(path);
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '[')
        return parsePhillyJobLog(text, util::baseName(path), limit);
    return parsePhillyCsv(text, util::baseName(path), limit);
}

} // namespace orrery::workload
