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
 * or the steps do not converge within the limit (callers then start from an LP's point, below).
 */
std::vector<double> floorAnalyticCentre(const AllocationInput& in, const std::vector<double>& floor);
/**
 * The same centre from a given point that meets the base constraints and every floor with room (the floor-slack
 * LP's point at t* > 0, where the greedy order finds no start): it is mixed with an even share of every type in a
 * proportion that keeps half the smallest relative room, then the same steps run. Empty when `from` leaves no room
 * or the steps do not converge.
 */
std::vector<double> floorAnalyticCentre(const AllocationInput& in, const std::vector<double>& floor,
                                        const std::vector<double>& from);

} // namespace orrery::sched
