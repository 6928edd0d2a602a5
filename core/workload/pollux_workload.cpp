#include "workload/pollux_workload.h"

#include "io/error.h"
#include "io/limits.h"
#include "io/text_table.h"
#include "util/text.h"

#include <fmt/format.h>

#include <set>

namespace orrery::workload {

TraceRead parsePolluxWorkload(std::string_view text, const std::string& fileLabel, std::optional<int> limit)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    const int cName = t.requireColumn("name"), cTime = t.requireColumn("time"), cApp = t.requireColumn("application"),
              cReplicas = t.requireColumn("num_replicas"), cBatch = t.requireColumn("batch_size");
    TraceRead out;
    std::set<std::string> names;
    for (const auto& r : t.records()) {
        ++out.rows;
        const io::FieldParser p(fileLabel, r.line);
        Job job;
        job.id = t.field(r, cName);
        if (job.id.empty())
            p.fail("name", "expected a job name, got an empty field");
        // Names key a job in Pollux's and Sia's logs; a repeated one would merge two jobs there.
        if (!names.insert(job.id).second)
            p.fail("name", fmt::format("job name \"{}\" appears twice", job.id));
        job.arrivalS = p.nonNegativeNumber("time", t.field(r, cTime));
        job.application = t.field(r, cApp);
        if (job.application.empty())
            p.fail("application", "expected an application name (cifar10, bert, ...), got an empty field");
        const long long replicas = p.positiveInteger("num_replicas", t.field(r, cReplicas));
        if (replicas > io::limits::kMaxJobGpus)
            p.fail("num_replicas",
                   fmt::format("expected a GPU count of at most {}, got {}", io::limits::kMaxJobGpus, replicas));
        const long long batch = p.positiveInteger("batch_size", t.field(r, cBatch));
        if (batch > io::limits::kMaxInt)
            p.fail("batch_size",
                   fmt::format("expected a batch size of at most {}, got {}", io::limits::kMaxInt, batch));
        job.kind = JobKind::Fixed;
        job.gpus = static_cast<int>(replicas);
        job.batchSize = static_cast<int>(batch);
        out.jobs.push_back(std::move(job));
        checkTraceJobCount(out.jobs.size(), fileLabel, std::to_string(r.line));
    }
    sortAndLimit(out.jobs, limit);
    return out;
}

TraceRead readPolluxWorkload(const std::string& path, std::optional<int> limit)
{
    return parsePolluxWorkload(util::readFile(path), util::baseName(path), limit);
}

} // namespace orrery::workload
