#pragma once

#include "hardware/cluster.h"
#include "hardware/gpu_catalog.h"
#include "sim/prepared_workload.h"
#include "sim/reference_scaling.h"
#include "workload/job.h"
#include "workload/pollux_workload.h"

#include <nlohmann/json.hpp>

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

/**
 * A scenario document of the first `jobs` rows of a Sia/Pollux workload on a cluster (its JSON), the shared
 * goodput profiles and `options` (60 s rounds, no extra cross-node slowdown, and whatever restart model the
 * caller gives), each job elastic over [1, maxGpus].
 */
inline nlohmann::json goodputScenarioJson(const std::string& workload, int jobs, const nlohmann::json& cluster,
                                          nlohmann::json options, int maxGpus, const std::string& profiles)
{
    const auto read = workload::readPolluxWorkload(workload, jobs);
    options["round_s"] = 60;
    options["cross_node_slowdown"] = 1.0;
    options["goodput_profiles"] = profiles;
    nlohmann::json doc = {{"format", "orrery-scenario"},
                          {"version", 1},
                          {"name", "t"},
                          {"cluster", cluster},
                          {"workload", {{"jobs", nlohmann::json::array()}}},
                          {"options", options}};
    for (const auto& j : read.jobs)
        doc["workload"]["jobs"].push_back({{"id", j.id},
                                           {"arrival_s", j.arrivalS},
                                           {"gpus", j.gpus},
                                           {"application", j.application},
                                           {"batch", j.batchSize},
                                           {"min_gpus", 1},
                                           {"max_gpus", maxGpus}});
    return doc;
}

} // namespace orrery::test
