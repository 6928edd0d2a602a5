#pragma once

#include "sched/gavel_lp.h"

#include <vector>

namespace orrery::sched {

/**
 * A point of Gavel's allocation LP (gavel_lp.h: x in [0, 1], time per job <= 1, GPUs per type <= capacity) that
 * meets every floor with room to spare, sum_t rate[j][t] x[j][t] >= floor_j (1 + margin), found greedily: jobs in
 * order of how much of their best rate the floor asks (the most first, ties by index), each taking time on its
 * fastest types first (ties by type index), as much of each as the job still needs and the type and its own time
 * still allow (of each type's GPUs, only `capacityShare`). Floors <= 0 ask nothing. Empty when that order leaves a job
 * short: the floors may still be feasible.
 *
 * Why: a point is a proof that the floors are feasible, and on Gavel's validation traces this order finds one at
 * all but one of the recomputations where finish-time fairness asks (docs/performance.md, "Fifth pass"), in
 * O(J (T log T + log J)) instead of an LP solve.
 */
std::vector<double> greedyFloorPoint(const AllocationInput& in, const std::vector<double>& floor, double margin,
                                     double capacityShare = 1);

} // namespace orrery::sched
