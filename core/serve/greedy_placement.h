#pragma once

// Algorithm 1 of AlpaServe (§4.2): given the groups and their parallel configurations, choose which model
// replicas each group hosts, guided by the request simulator.

#include "serve/placement.h"
#include "util/progress.h"

#include <vector>

namespace orrery::serve {

struct GreedyOptions
{
    int beam = 1; ///< selections kept per iteration (the paper's default k = 1)
    /**
     * Use the fast heuristic (simulate once, put the model with the most unserved requests on the least-utilised
     * group that can take it) when the full algorithm could simulate more requests than this: it tries up to
     * models x groups additions per iteration and places up to models x groups replicas, so (models x groups)²
     * x requests bounds its work (about 50 ns per simulated request).
     */
    double fastAbove = 2e7;
    bool forceFast = false;
};

struct GreedyResult
{
    Placement placement;
    double attainment = 0;   ///< over the workload's requests for the models it was asked to place
    double meanLatencyS = 0; ///< of the served requests, the tie-break between equal attainments
    int simulations = 0;
};

/**
 * Places `models` (instance indices) on empty groups with the given configurations. The workload may contain
 * other models' requests; they are ignored (attainment counts only `models`). Returns the best selection seen.
 */
GreedyResult greedyPlacement(ProfileCache& cache, const std::vector<int>& models,
                             const std::vector<ParallelConfig>& groups, const Workload& workload,
                             const GreedyOptions& options = {}, const util::Progress* progress = nullptr);

} // namespace orrery::serve
