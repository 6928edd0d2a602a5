#pragma once

#include "provision/placement.h"

#include <utility>
#include <vector>

namespace orrery::provision {

/** One greedy choice of Algorithm 2: the CMR of every candidate type at a stage, and the pick. */
struct CmrChoice
{
    int stage = 0;
    std::vector<std::pair<int, double>> cmr; ///< (pool type, CMR(t, s)) for each distinct candidate
    int chosen = -1;
    int layers = 0; ///< before AdjustToCoverAllLayers
};

/** What Algorithm 2 did for one stage-0 layer count (the paper's Fig. 9 walk-through). */
struct CmrTrace
{
    int stage0Layers = 0;
    std::vector<CmrChoice> choices;
    std::vector<Stage> beforeAdjust;
    Placement result;
};

/** l_f: floor(L * F(t) / sum of F over the plan's stages), the Whale-style load-balanced share. */
int loadBalancedLayers(const PipelineModel& model, const std::vector<int>& types, int type);

/** CMR(t, s) = F(t)/M(t) * max(l_m, l_c) / l_c (Eq. 10). */
double computeMemoryRatio(const PipelineModel& model, int type, int maxLayers, int commLayers);

/** Algorithm 2 with the stage-0 layer count fixed to `stage0Layers`. */
Placement cmrPlaceWithStage0(const PipelineModel& model, const std::vector<int>& types, int stage0Layers,
                             CmrTrace* trace = nullptr);

/**
 * Espresso's stage placer (Algorithm 2): for every stage-0 layer count, place
 * stages greedily by lowest CMR, cap each by min(l_m, l_f), spread the rest
 * round-robin over stages 1..k-1; keep the placement the estimator likes best.
 */
Placement cmrPlace(const PipelineModel& model, const std::vector<int>& types, int* bestStage0 = nullptr,
                   double cutoffS = INFINITY);

} // namespace orrery::provision
