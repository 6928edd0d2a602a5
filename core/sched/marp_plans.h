#pragma once

#include "estimate/plan.h"
#include "hardware/cluster.h"
#include "sched/has.h"

#include <vector>

namespace orrery::sched {

/** One MARP plan for HAS: a (d, t) layout and what it asks of the cluster. */
struct MarpPlan
{
    estimate::Parallelism par;
    HasPlan has; ///< N = d * t GPUs, each with more than `has.requiredGiB`
};

/**
 * Frenzy's plan list for a serverless job on a cluster: estimate::rankPlans (MARP, Frenzy order)
 * over every GPU type present, with every GPU of the cluster countable (HAS may mix types), tensor
 * parallelism capped by that type's GPUs per node, reduced to one entry per (d, t) in rank order,
 * keeping only layouts the cluster's large-enough GPUs can cover when all are idle. Empty when the
 * job fits nowhere (spec A.5.4: rejected, MARP_INFEASIBLE).
 */
std::vector<MarpPlan> marpPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                const hardware::Cluster& cluster,
                                estimate::MemoryMode mode = estimate::MemoryMode::Frenzy);

/**
 * The plan list the `frenzy` and `opportunistic` policies give HAS (docs/models/frenzy.md): MARP's
 * layouts and order from the paper's formula, each kept only if the simulator's itemised memory
 * model (its ground truth) also fits it, with the per-GPU requirement the larger of the two
 * (expressed in the Frenzy-mode unit of hasCapacityGiB). When the paper's formula admits no layout
 * at all but the itemised model does (e.g. GPT-2 1.5B on 40 GB GPUs: 20 bytes per parameter against
 * 16), the job is planned with the itemised model alone rather than rejected.
 */
std::vector<MarpPlan> frenzyPolicyPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                        const hardware::Cluster& cluster);

/**
 * A GPU type's memory in the unit of MarpPlan::has.requiredGiB, with the capacity convention
 * rankPlans uses for `mode` (Frenzy modes: nominal GB x 1e9 bytes; Full: the GiB figure).
 */
double hasCapacityGiB(const hardware::GpuType& gpu, estimate::MemoryMode mode = estimate::MemoryMode::Frenzy);

/** Every node of the cluster as HAS sees it with all GPUs idle. Node ids are the cluster's. */
std::vector<HasNode> hasNodes(const hardware::Cluster& cluster,
                              estimate::MemoryMode mode = estimate::MemoryMode::Frenzy);

/**
 * Speed of a (d, t) layout on a HAS placement (spec A.7): the estimator on each GPU type of the
 * placement, the slowest setting the pace. Ranks are laid out tp innermost over the shares in
 * order, so the smallest share is taken as the GPUs per node: tensor-parallel groups cross nodes
 * only when some share is smaller than t; the data-parallel group crosses nodes whenever the
 * placement spans several.
 */
estimate::ThroughputEstimate placementThroughput(const workload::ModelSpec& model,
                                                 const workload::TrainingConfig& config,
                                                 const estimate::Parallelism& par, const hardware::Cluster& cluster,
                                                 const std::vector<NodeShare>& shares);

} // namespace orrery::sched
