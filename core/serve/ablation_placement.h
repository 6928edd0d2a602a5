#pragma once

// The placement variants of AlpaServe's ablation (§6.6, Figure 17): the cluster cut into 4-stage pipelines with the
// models dealt round-robin, or placed on those same pipelines by Algorithm 1 alone (no group-partition search).
// AlpaServe's full search (placement_search.h) is the third variant.

#include "serve/greedy_placement.h"

namespace orrery::serve {

/** The pipeline depth of every group in both variants [PAPER, §6.6: "4-stage pipelines for all groups"]. */
inline constexpr int kAblationStages = 4;

/** The cluster's GPUs as groups of `stages` inter-op stages (intra 1), a last group of the remainder. */
std::vector<ParallelConfig> pipelineGroups(int gpus, int stages);

/**
 * Round robin: replica p of instance i goes to group (i + p) mod G, for p = 0 .. G - 1, whenever it fits the group's
 * memory; no simulation. Instances are taken in the problem's order.
 */
Placement roundRobinPlacement(ProfileCache& cache, int stages = kAblationStages);

/** Algorithm 1 over every instance on the fixed pipelines of pipelineGroups. */
GreedyResult greedyOnPipelines(ProfileCache& cache, const Workload& workload, int stages = kAblationStages,
                               const GreedyOptions& options = {}, const util::Progress* progress = nullptr);

} // namespace orrery::serve
