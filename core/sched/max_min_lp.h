#pragma once

#include <vector>

namespace orrery::sched {

/**
 * Gavel's max-min fairness LP (OSDI'20, section 4.1), over J jobs and T GPU types:
 *   maximise  min_j  sum_t c[j][t] * x[j][t]
 *   s.t.      sum_t x[j][t] <= 1,   sum_j demand[j][t] * x[j][t] <= capacity[t],   0 <= x <= 1,
 *             x[j][t] = 0 where c[j][t] = 0,
 * solved with COIN-OR CLP through opt::LinearProgram. The optimum is rarely unique; a second LP keeps
 * the min within 1e-7 and maximises sum_j sum_t c[j][t] x[j][t], so that no
 * job is left below what it could get for free (Pareto). Gavel's own solver
 * (an interior-point method) may return another point of the optimal face.
 * `c`, `demand` and `x` are row-major J x T. Returns false when CLP fails.
 *
 * With `mergeIdentical`, jobs with equal rows of demand and of `c` share one
 * set of variables (the LP is symmetric in them, so this loses no optimum) and
 * get equal allocations: the LP shrinks to one row pair per job class, and,
 * like Gavel's interior-point solver (which lands at the centre of the optimal
 * face), identical jobs are treated identically.
 */
bool solveMaxMin(int jobs, int types, const std::vector<double>& c, const std::vector<int>& demand,
                 const std::vector<int>& capacity, std::vector<double>& x, bool mergeIdentical = true);

} // namespace orrery::sched
