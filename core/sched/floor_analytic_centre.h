#pragma once

#include "sched/gavel_lp.h"

#include <vector>

namespace orrery::sched {

/**
 * The analytic centre of Gavel's allocation LP with throughput floors (gavel_lp.h), the LP as CLP's barrier is
 * handed it (AllocationLp::solveInterior): the point maximising the log barrier of every finite bound,
 *   sum_jt [log x[j][t] + log(1 - x[j][t])] + sum_j log(1 - sum_t x[j][t]) + sum_t log(capacity_t - sum_j demand x)
 *   + sum_j log(sum_t rate x - floor_j),
 * the point the barrier's path heads for when the objective is 0 (finish-time fairness at z*).
 *
 * Found by damped Newton steps (a line search inside the feasible set) from a strictly feasible start built from
 * greedyFloorPoint, each step solved through the LP's structure (a T x T block per job plus one rank-T term for
 * the capacities: O(J T^3) per step instead of a sparse factorisation of the whole matrix). Limited by iterations
 * only; the time is added to this thread's solver seconds. Empty when no strictly feasible start is found that way,
 * or the steps do not converge within the limit (callers fall back to CLP's barrier).
 */
std::vector<double> floorAnalyticCentre(const AllocationInput& in, const std::vector<double>& floor);

} // namespace orrery::sched
