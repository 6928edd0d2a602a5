#include "sched/marp_plans.h"

#include <algorithm>
#include <limits>

namespace orrery::sched {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}

double hasCapacityGiB(const hardware::GpuType& gpu, estimate::MemoryMode mode)
{
    return mode == estimate::MemoryMode::Full ? gpu.memoryGiB : gpu.memoryGiB * 1e9 / kGiB;
}

std::vector<HasNode> hasNodes(const hardware::Cluster& cluster, estimate::MemoryMode mode)
{
    std::vector<HasNode> out;
    out.reserve(cluster.nodes().size());
    for (const hardware::Node& n : cluster.nodes()) {
        out.push_back({n.id, n.gpuCount, hasCapacityGiB(cluster.gpuTypeOfNode(n.id), mode)});
    }
    return out;
}

std::vector<MarpPlan> marpPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                const hardware::Cluster& cluster, estimate::MemoryMode mode)
{
    const auto& types = cluster.catalog().types();
    std::vector<estimate::PlanTarget> targets;
    for (int typeIndex : cluster.presentTypes()) {
        estimate::PlanTarget t;
        t.gpu = &types[static_cast<std::size_t>(typeIndex)];
        t.maxGpus = cluster.totalGpus();
        t.gpusPerNode = 0;
        for (const hardware::Node& n : cluster.nodes()) {
            if (n.gpuTypeIndex == typeIndex && n.gpuCount > t.gpusPerNode) {
                t.gpusPerNode = n.gpuCount;
                t.intraNode = n.intraLink;
            }
        }
        t.interNode = cluster.network();
        targets.push_back(t);
    }
    estimate::PlanOptions options;
    options.mode = mode;
    options.maxGpus = cluster.totalGpus();
    options.rank = estimate::PlanRank::Frenzy;

    const std::vector<HasNode> nodes = hasNodes(cluster, mode);
    std::vector<MarpPlan> out;
    for (const estimate::Plan& p : estimate::rankPlans(model, config, targets, options)) {
        const bool seen = std::any_of(out.begin(), out.end(), [&](const MarpPlan& m) { return m.par == p.par; });
        if (seen) {
            continue;
        }
        // rankPlans counts GPUs per type against the whole cluster; keep only layouts the cluster's
        // large-enough GPUs, of any type, can ever cover.
        int adequate = 0;
        for (const HasNode& n : nodes) {
            adequate += gpuFits(n.gpuMemoryGiB, p.memoryGiB) ? n.idleGpus : 0;
        }
        if (adequate >= p.count) {
            out.push_back({p.par, {p.count, p.memoryGiB}});
        }
    }
    return out;
}

std::vector<MarpPlan> frenzyPolicyPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                        const hardware::Cluster& cluster)
{
    // Both capacities are memoryGiB scaled by a constant (1 for Full, 1e9 / GiB for Frenzy), so a
    // Full-mode requirement converts to the Frenzy unit by the same constant.
    constexpr double fullToFrenzy = 1e9 / kGiB;
    const auto paper = marpPlans(model, config, cluster, estimate::MemoryMode::Frenzy);
    auto full = marpPlans(model, config, cluster, estimate::MemoryMode::Full);
    for (MarpPlan& p : full) {
        p.has.requiredGiB *= fullToFrenzy;
    }
    const std::vector<HasNode> nodes = hasNodes(cluster, estimate::MemoryMode::Frenzy);
    std::vector<MarpPlan> out;
    for (const MarpPlan& p : paper) {
        const auto real = std::find_if(full.begin(), full.end(), [&](const MarpPlan& q) { return q.par == p.par; });
        if (real == full.end()) {
            continue;
        }
        MarpPlan both = p;
        both.has.requiredGiB = std::max(p.has.requiredGiB, real->has.requiredGiB);
        int adequate = 0;
        for (const HasNode& n : nodes) {
            adequate += gpuFits(n.gpuMemoryGiB, both.has.requiredGiB) ? n.idleGpus : 0;
        }
        if (adequate >= both.has.gpus) {
            out.push_back(both);
        }
    }
    return out.empty() ? full : out;
}

estimate::ThroughputEstimate placementThroughput(const workload::ModelSpec& model,
                                                 const workload::TrainingConfig& config,
                                                 const estimate::Parallelism& par, const hardware::Cluster& cluster,
                                                 const std::vector<NodeShare>& shares)
{
    int smallestShare = std::numeric_limits<int>::max();
    for (const NodeShare& s : shares) {
        smallestShare = std::min(smallestShare, s.gpus);
    }
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
