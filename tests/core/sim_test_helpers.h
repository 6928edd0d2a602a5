#pragma once

#include "hardware/cluster.h"
#include "hardware/gpu_catalog.h"
#include "sim/prepared_workload.h"
#include "sim/reference_scaling.h"
#include "workload/job.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace orrery::test {

/** A cluster of (gpu type, nodes, GPUs per node) groups. */
inline hardware::Cluster makeCluster(const std::vector<std::tuple<std::string, int, int>>& groups)
{
    std::vector<hardware::NodeGroup> g;
    for (const auto& [type, nodes, perNode] : groups)
        g.push_back({type + std::to_string(g.size()), type, nodes, perNode, std::nullopt});
    return hardware::Cluster(std::move(g), hardware::Link{hardware::LinkKind::Ethernet, 3.125, 10},
                             hardware::GpuCatalog::builtin());
}

/** A fixed job measured on `ref` (default v100-16gb): `durationS` on `gpus` of them. */
inline workload::Job fixedJob(std::string id, double arrivalS, int gpus, double durationS, std::string ref = "")
{
    workload::Job j;
    j.id = std::move(id);
    j.arrivalS = arrivalS;
    j.kind = workload::JobKind::Fixed;
    j.gpus = gpus;
    j.durationS = durationS;
    j.referenceGpu = std::move(ref);
    return j;
}

inline sim::PreparedWorkload prepare(const hardware::Cluster& cluster, std::vector<workload::Job> jobs,
                                     io::ScenarioOptions options = {})
{
    auto source = std::make_shared<sim::ReferenceScaling>(hardware::GpuCatalog::builtin(), options.referenceGpu);
    return sim::PreparedWorkload(cluster, std::move(jobs), source, options);
}

} // namespace orrery::test
