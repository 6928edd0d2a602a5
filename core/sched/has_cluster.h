#pragma once

#include "estimate/plan.h"
#include "hardware/cluster.h"
#include "sched/has.h"

#include <vector>

namespace orrery::sched {

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
