#pragma once

#include "sched/gavel_lp.h"

#include <memory>
#include <vector>

namespace orrery::opt {
class LinearProgram;
}

namespace orrery::sched {

/**
 * Gavel's allocation LP with per-job throughput floors, turned into an optimisation that is always feasible:
 * maximise t subject to the base constraints and sum_t rate x[j][t] >= floor_j + weight_j t. The optimum t* is
 * >= 0 exactly when the floors can be met, and it grows with the room left above them, so a search over floors
 * (finish-time fairness' z) can interpolate on t* instead of bisecting on yes/no answers. Only the floors (row
 * bounds) change between solves: each re-solve is a warm dual simplex from the last basis, and an always feasible
 * LP never ends in an infeasibility proof (whose clean-up cost CLP a third of the bisection's time).
 */
class FloorSlackLp
{
public:
    /** `weight` per job (>= 0; a job with weight 0 only keeps its floor). */
    FloorSlackLp(const AllocationInput& in, const std::vector<double>& weight);
    ~FloorSlackLp();
    FloorSlackLp(const FloorSlackLp&) = delete;
    FloorSlackLp& operator=(const FloorSlackLp&) = delete;

    /** t* for these floors; throws orrery::Error (naming `policy`) when CLP does not end optimal. */
    double maxSlack(const std::vector<double>& floor, const char* policy);

private:
    int m_jobs, m_types;
    std::vector<double> m_weight;
    std::unique_ptr<opt::LinearProgram> m_lp;
    int m_slackColumn = 0;
    bool m_solvedOnce = false;
};

} // namespace orrery::sched
