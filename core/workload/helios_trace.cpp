#include "workload/helios_trace.h"

#include "io/error.h"
#include "io/limits.h"
#include "io/text_table.h"
#include "util/text.h"

#include <fmt/format.h>

#include <limits>

namespace orrery::workload {

TraceRead parseHeliosLog(std::string_view text, const std::string& fileLabel, std::optional<int> limit)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    const int cId = t.requireColumn("job_id"), cUser = t.column("user"), cGpus = t.requireColumn("gpu_num"),
              cSubmit = t.requireColumn("submit_time"), cDuration = t.column("duration");
    const int cStart = cDuration < 0 ? t.requireColumn("start_time") : t.column("start_time");
    const int cEnd = cDuration < 0 ? t.requireColumn("end_time") : t.column("end_time");
    TraceRead out;
    int cpuJobs = 0, zeroLength = 0;
    double firstSubmit = std::numeric_limits<double>::infinity();
    for (const auto& r : t.records()) {
        ++out.rows;
        const io::FieldParser p(fileLabel, r.line);
        const auto gpus = p.nonNegativeInteger("gpu_num", t.field(r, cGpus));
        const double submit = p.dateTime("submit_time", t.field(r, cSubmit));
        firstSubmit = std::min(firstSubmit, submit);
        double duration = 0;
        if (cDuration >= 0) {
            duration = p.nonNegativeNumber("duration", t.field(r, cDuration));
        } else {
            const double start = p.dateTime("start_time", t.field(r, cStart));
            const double end = p.dateTime("end_time", t.field(r, cEnd));
            if (end < start)
                p.fail("end_time", fmt::format("ends before it starts ({})", t.field(r, cStart)));
            duration = end - start;
        }
        if (gpus == 0) {
            ++cpuJobs;
            continue;
        }
        if (gpus > io::limits::kMaxJobGpus)
            p.fail("gpu_num", fmt::format("expected a GPU count of at most {}, got {}", io::limits::kMaxJobGpus, gpus));
        if (duration == 0) {
            ++zeroLength;
            continue;
        }
        Job job;
        job.id = t.field(r, cId);
        if (job.id.empty())
            p.fail("job_id", "expected a job id, got an empty field");
        if (cUser >= 0)
            job.user = t.field(r, cUser);
        job.kind = JobKind::Fixed;
        job.gpus = static_cast<int>(gpus);
        job.arrivalS = submit; // made relative below
        job.durationS = duration;
        out.jobs.push_back(std::move(job));
        checkTraceJobCount(out.jobs.size(), fileLabel, std::to_string(r.line));
    }
    for (auto& j : out.jobs)
        j.arrivalS -= firstSubmit;
    out.skipped = cpuJobs + zeroLength;
    out.skippedWhy = fmt::format("{} CPU-only jobs, {} jobs of zero length", cpuJobs, zeroLength);
    sortAndLimit(out.jobs, limit);
    return out;
}

TraceRead readHeliosLog(const std::string& path, std::optional<int> limit)
{
    return parseHeliosLog(util::readFile(path), util::baseName(path), limit);
}

} // namespace orrery::workload
