#include "sched/has_cluster.h"

#include "estimate/marp_plans.h"

#include <algorithm>
#include <limits>

namespace orrery::sched {

std::vector<HasNode> hasNodes(const hardware::Cluster& cluster, estimate::MemoryMode mode)
{
    std::vector<HasNode> out;
    out.reserve(cluster.nodes().size());
    for (const hardware::Node& n : cluster.nodes())
        out.push_back({n.id, n.gpuCount, estimate::marpCapacityGiB(cluster.gpuTypeOfNode(n.id), mode)});
    return out;
}

estimate::ThroughputEstimate placementThroughput(const workload::ModelSpec& model,
                                                 const workload::TrainingConfig& config,
                                                 const estimate::Parallelism& par, const hardware::Cluster& cluster,
                                                 const std::vector<NodeShare>& shares)
{
    int smallestShare = std::numeric_limits<int>::max();
    for (const NodeShare& s : shares)
        smallestShare = std::min(smallestShare, s.gpus);
    estimate::ThroughputEstimate slowest;
    bool first = true;
    for (const NodeShare& s : shares) {
        const hardware::Node& node = cluster.nodes()[static_cast<std::size_t>(s.node)];
        estimate::PlanTarget target;
        target.gpu = &cluster.gpuTypeOfNode(node.id);
        target.maxGpus = par.gpus();
        target.gpusPerNode = smallestShare;
        target.intraNode = node.intraLink;
        target.interNode = cluster.network();
        const auto e = estimate::estimateThroughput(model, config, par, target);
        if (first || e.samplesPerS < slowest.samplesPerS) {
            slowest = e;
            first = false;
        }
    }
    return slowest;
}

} // namespace orrery::sched
