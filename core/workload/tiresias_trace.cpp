#include "workload/tiresias_trace.h"

#include "io/error.h"
#include "io/limits.h"
#include "io/text_table.h"
#include "util/text.h"

#include <fmt/format.h>

namespace orrery::workload {

TraceRead parseTiresiasTrace(std::string_view text, const std::string& fileLabel, std::optional<int> limit)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    const int cId = t.requireColumn("job_id"), cGpus = t.requireColumn("num_gpu"),
              cSubmit = t.requireColumn("submit_time"), cDuration = t.requireColumn("duration");
    TraceRead out;
    for (const auto& r : t.records()) {
        ++out.rows;
        const io::FieldParser p(fileLabel, r.line);
        Job job;
        job.id = t.field(r, cId);
        if (job.id.empty())
            p.fail("job_id", "expected a job id, got an empty field");
        // A repeated id is two jobs, as Tiresias' simulator reads it (its own tf_job.csv lists job 10 twice); the
        // workload loader makes the ids unique ("10~2").
        job.arrivalS = p.nonNegativeNumber("submit_time", t.field(r, cSubmit));
        const long long gpus = p.positiveInteger("num_gpu", t.field(r, cGpus));
        if (gpus > io::limits::kMaxJobGpus)
            p.fail("num_gpu", fmt::format("expected a GPU count of at most {}, got {}", io::limits::kMaxJobGpus, gpus));
        job.kind = JobKind::Fixed;
        job.gpus = static_cast<int>(gpus);
        job.durationS = p.positiveNumber("duration", t.field(r, cDuration));
        out.jobs.push_back(std::move(job));
        checkTraceJobCount(out.jobs.size(), fileLabel, std::to_string(r.line));
    }
    sortAndLimit(out.jobs, limit);
    return out;
}

TraceRead readTiresiasTrace(const std::string& path, std::optional<int> limit)
{
    return parseTiresiasTrace(util::readFile(path), util::baseName(path), limit);
}

std::vector<hardware::NodeGroup> parseTiresiasClusterSpec(std::string_view text, const std::string& fileLabel,
                                                          const std::string& gpuType)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    const int cSwitches = t.requireColumn("num_switch"), cNodes = t.requireColumn("num_node_p_switch"),
              cGpus = t.requireColumn("num_gpu_p_node");
    if (t.records().size() != 1)
        throw Error(fileLabel, "",
                    fmt::format("expected one cluster row (Tiresias' cluster spec), got {}", t.records().size()));
    const auto& r = t.records().front();
    const io::FieldParser p(fileLabel, r.line);
    const long long switches = p.positiveInteger("num_switch", t.field(r, cSwitches));
    const long long perSwitch = p.positiveInteger("num_node_p_switch", t.field(r, cNodes));
    const long long perNode = p.positiveInteger("num_gpu_p_node", t.field(r, cGpus));
    if (perNode > io::limits::kMaxGpusPerNode)
        p.fail("num_gpu_p_node",
               fmt::format("expected at most {} GPUs per node, got {}", io::limits::kMaxGpusPerNode, perNode));
    // Each factor is capped before the product, so it cannot overflow.
    const long long nodes = switches > io::limits::kMaxClusterNodes || perSwitch > io::limits::kMaxClusterNodes
                                ? io::limits::kMaxClusterNodes + 1
                                : switches * perSwitch;
    checkClusterSize(nodes, nodes * perNode, p);
    hardware::NodeGroup g;
    g.name = "node";
    g.gpuType = gpuType;
    g.count = static_cast<int>(nodes);
    g.gpusPerNode = static_cast<int>(perNode);
    if (switches > 1)
        for (long long n = 0; n < nodes; ++n)
            g.racks.push_back(fmt::format("switch-{}", n / perSwitch));
    return {g};
}

std::vector<hardware::NodeGroup> readTiresiasClusterSpec(const std::string& path, const std::string& gpuType)
{
    return parseTiresiasClusterSpec(util::readFile(path), util::baseName(path), gpuType);
}

} // namespace orrery::workload
