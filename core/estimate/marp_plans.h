#pragma once

#include "estimate/plan.h"
#include "hardware/cluster.h"

#include <vector>

namespace orrery::estimate {

/** What a layout asks of a cluster: `gpus` GPUs, each with more than `requiredGiB` of memory. */
struct GpuDemand
{
    int gpus = 0;
    double requiredGiB = 0;
};

/**
 * MARP's memory test, shared by plan enumeration and Frenzy's node selection (sched/has.h). Strict, like
 * MARP's feasibility test `M(d,t) < capacity`: a GPU with exactly the required memory has no headroom.
 */
inline bool gpuFits(double gpuMemoryGiB, double requiredGiB)
{
    return gpuMemoryGiB > requiredGiB;
}

/** One MARP plan: a (d, t) layout and what it asks of the cluster. */
struct MarpPlan
{
    Parallelism par;
    GpuDemand demand; ///< N = d * t GPUs, each with more than `demand.requiredGiB`
};

/**
 * Frenzy's plan list for a serverless job on a cluster: rankPlans (MARP, Frenzy order) over every GPU
 * type present, with every GPU of the cluster countable (HAS may mix types), tensor parallelism capped
 * by that type's GPUs per node, reduced to one entry per (d, t) in rank order, keeping only layouts the
 * cluster's large-enough GPUs can cover when all are idle. Empty when the job fits nowhere (spec A.5.4:
 * rejected, MARP_INFEASIBLE).
 */
std::vector<MarpPlan> marpPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                const hardware::Cluster& cluster, MemoryMode mode = MemoryMode::Frenzy);

/**
 * The plan list the `frenzy` and `opportunistic` policies give HAS (docs/models/frenzy.md): MARP's
 * layouts and order from the paper's formula, each kept only if the simulator's itemised memory model
 * (its ground truth) also fits it, with the per-GPU requirement the larger of the two (expressed in the
 * Frenzy-mode unit of marpCapacityGiB). When the paper's formula admits no layout at all but the
 * itemised model does (e.g. GPT-2 1.5B on 40 GB GPUs: 20 bytes per parameter against 16), the job is
 * planned with the itemised model alone rather than rejected.
 */
std::vector<MarpPlan> frenzyPolicyPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                        const hardware::Cluster& cluster);

/**
 * A GPU type's memory in the unit of GpuDemand::requiredGiB, with the capacity convention rankPlans
 * uses for `mode` (Frenzy modes: nominal GB x 1e9 bytes; Full: the GiB figure).
 */
double marpCapacityGiB(const hardware::GpuType& gpu, MemoryMode mode = MemoryMode::Frenzy);

} // namespace orrery::estimate
