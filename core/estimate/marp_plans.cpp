#include "estimate/marp_plans.h"

#include "util/units.h"

#include <algorithm>

namespace orrery::estimate {

namespace {

/** GPUs of the cluster, all idle, with more than `requiredGiB` each (capacities in `mode`'s unit). */
int adequateGpus(const hardware::Cluster& cluster, double requiredGiB, MemoryMode mode)
{
    int adequate = 0;
    for (const hardware::Node& n : cluster.nodes())
        adequate += gpuFits(marpCapacityGiB(cluster.gpuTypeOfNode(n.id), mode), requiredGiB) ? n.gpuCount : 0;
    return adequate;
}

} // namespace

double marpCapacityGiB(const hardware::GpuType& gpu, MemoryMode mode)
{
    return mode == MemoryMode::Full ? gpu.memoryGiB : gpu.memoryGiB * 1e9 / kGiB;
}

std::vector<MarpPlan> marpPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                const hardware::Cluster& cluster, MemoryMode mode)
{
    const auto& types = cluster.catalog().types();
    std::vector<PlanTarget> targets;
    for (int typeIndex : cluster.presentTypes()) {
        PlanTarget t;
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
    PlanOptions options;
    options.mode = mode;
    options.maxGpus = cluster.totalGpus();
    options.rank = PlanRank::Frenzy;

    std::vector<MarpPlan> out;
    for (const Plan& p : rankPlans(model, config, targets, options)) {
        const bool seen = std::any_of(out.begin(), out.end(), [&](const MarpPlan& m) { return m.par == p.par; });
        if (seen)
            continue;
        // rankPlans counts GPUs per type against the whole cluster; keep only layouts the cluster's
        // large-enough GPUs, of any type, can ever cover.
        if (adequateGpus(cluster, p.memoryGiB, mode) >= p.count)
            out.push_back({p.par, {p.count, p.memoryGiB}});
    }
    return out;
}

std::vector<MarpPlan> frenzyPolicyPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                        const hardware::Cluster& cluster)
{
    // Both capacities are memoryGiB scaled by a constant (1 for Full, 1e9 / GiB for Frenzy), so a
    // Full-mode requirement converts to the Frenzy unit by the same constant.
    constexpr double fullToFrenzy = 1e9 / kGiB;
    const auto paper = marpPlans(model, config, cluster, MemoryMode::Frenzy);
    auto full = marpPlans(model, config, cluster, MemoryMode::Full);
    for (MarpPlan& p : full)
        p.demand.requiredGiB *= fullToFrenzy;
    std::vector<MarpPlan> out;
    for (const MarpPlan& p : paper) {
        const auto real = std::find_if(full.begin(), full.end(), [&](const MarpPlan& q) { return q.par == p.par; });
        if (real == full.end())
            continue;
        MarpPlan both = p;
        both.demand.requiredGiB = std::max(p.demand.requiredGiB, real->demand.requiredGiB);
        if (adequateGpus(cluster, both.demand.requiredGiB, MemoryMode::Frenzy) >= both.demand.gpus)
            out.push_back(both);
    }
    return out.empty() ? full : out;
}

} // namespace orrery::estimate
