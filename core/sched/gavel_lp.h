#pragma once

#include "opt/linear_model.h"
#include "sim/view.h"

#include <memory>
#include <vector>

namespace orrery::opt {
class LinearProgram;
}

namespace orrery::sched {

/**
 * The rows and cells of Gavel's allocation LP (below), without an objective: one column per cell (row-major J x T,
 * bounds [0, 1]); rows J time budgets (<= 1), T capacities (<= capacity), then J throughput rows
 * (sum_t rate x >= `floorLower`, floors set later). Callers add their own columns (a slack, a scale) on the
 * throughput rows J + T + j.
 */
opt::LinearModel allocationModel(int jobs, int types, const std::vector<double>& rate, const std::vector<int>& demand,
                                 const std::vector<int>& capacity, double floorLower);

/**
 * The LP shape Gavel's allocation policies share (scheduler/policies/policy.py, get_base_constraints), over
 * J jobs x T GPU types, solved with COIN-OR CLP:
 *   x[j][t] >= 0,   sum_t x[j][t] <= 1,   sum_j demand[j][t] x[j][t] <= capacity_t,
 * plus, per job, an optional floor on its throughput sum_t rate[j][t] x[j][t] >= floor_j, and a linear
 * objective to maximise. Cells with rate 0 are variables too, as in Gavel. One model is kept across solves so that a
 * bisection over floors restarts from the previous basis (dual simplex), through opt::LinearProgram (core/opt): solves
 * are limited by iteration count, never by wall time.
 */
class AllocationLp
{
public:
    /** `rate` and `demand` (GPUs the job takes on each type, PreparedWorkload::demandOn) are row-major J x T. */
    AllocationLp(int jobs, int types, std::vector<double> rate, const std::vector<int>& demand,
                 const std::vector<int>& capacity);
    ~AllocationLp();
    AllocationLp(const AllocationLp&) = delete;
    AllocationLp& operator=(const AllocationLp&) = delete;

    /** Per job, the least throughput it must get (-infinity or 0: none). */
    void setThroughputFloors(const std::vector<double>& floor);
    /** Coefficients to maximise, per cell (row-major J x T). */
    void setObjective(const std::vector<double>& perCell);
    /** True when optimal; false when infeasible; throws orrery::Error (naming `policy`) on anything else. */
    bool solve(const char* policy);
    /**
     * As solve(), by CLP's barrier (interior-point) method without crossover: like Gavel's ECOS, it stops inside
     * the optimal face, near its analytic centre, rather than at a vertex.
     */
    bool solveInterior(const char* policy);
    /** The last solution, row-major J x T, clamped to [0, 1]. */
    std::vector<double> solution() const;

private:
    int m_jobs, m_types;
    std::vector<double> m_rate;
    std::vector<std::size_t> m_cell; // column -> row-major cell
    std::unique_ptr<opt::LinearProgram> m_lp;
    bool m_solvedOnce = false;
};

/** The job x type throughput matrix the LP policies see: rate where the job may run, else 0. */
std::vector<double> allowedRates(const sim::View& view, const std::vector<int>& jobs);
/** Gavel's throughput-agnostic variants: every type given the job's rate on the fastest type (Gavel's V100). */
std::vector<double> referenceRates(const sim::View& view, const std::vector<int>& jobs);
/** Demands (row-major J x T: a serverless job asks per type) and per-type GPU counts, as the LP takes them. */
std::vector<int> demands(const sim::View& view, const std::vector<int>& jobs);
std::vector<int> capacities(const sim::View& view);

/** One allocation problem of Gavel's LP policies: throughputs (row-major J x T, 0 where a job cannot run). */
struct AllocationInput
{
    int jobs = 0;
    int types = 0;
    std::vector<double> rate;
    std::vector<int> demand; ///< row-major J x T
    std::vector<int> capacity;
};
AllocationInput allocationInput(const sim::View& view, const std::vector<int>& jobs, std::vector<double> rate);

/** max_sum_throughput_perf's LP (max_sum_throughput.cpp). */
std::vector<double> maxSumThroughputAllocation(const AllocationInput& in, const char* policy);
/** min_total_duration's bisection on T (min_total_duration.cpp); `foundT` gets the T used, -1 when none. */
std::vector<double> minTotalDurationAllocation(const AllocationInput& in, const std::vector<double>& stepsLeft,
                                               const char* policy, double* foundT = nullptr);
/**
 * The point Gavel's ECOS returns for its feasibility LP (min_total_duration at its T, finish-time fairness at its
 * optimum): base constraints, sum_t rate x >= floor_j per job, constant objective, solved as cvxpy states it by
 * the homogeneous self-dual interior-point method (opt::solveHomogeneous; gavel_ecos_point.cpp) and clipped to
 * [0, 1] as Gavel clips it. Empty when that method does not end optimal.
 */
std::vector<double> ecosFeasiblePoint(const AllocationInput& in, const std::vector<double>& floor);
/**
 * The point Gavel's ECOS returns for max_sum_throughput_perf's LP (maximise sum rate x under the base constraints,
 * as cvxpy states it), by the same method with ECOS' iterative refinement, clipped to [0, 1]; also ECOS' "close to
 * optimal" point, which cvxpy hands Gavel as optimal_inaccurate. Empty when neither is reached. With `mergeAlike`,
 * alike jobs (alike_jobs.h) share one row of the method's work; the point is the same to the last bit.
 */
std::vector<double> ecosMaxSumPoint(const AllocationInput& in, bool mergeAlike = true);
/** Which point of the (thin) feasible set at finish-time fairness' optimum z* an allocation takes. */
enum class RhoPoint {
    Central, ///< the analytic centre (floorAnalyticCentre; CLP's barrier, which heads for it, when no start is found),
             ///< as near where ECOS ends on Gavel's min-max SOCP
    Ecos,    ///< ECOS' point of the feasibility LP at z* (ecosFeasiblePoint; CLP's barrier when it fails)
};
/**
 * finish-time fairness' problem (finish_time_fairness.cpp): minimise max_j a_j + b_j / thr_j, thr_j = sum_t
 * rate x; empty when no point is feasible. `foundZ` gets the optimum found.
 */
std::vector<double> minMaxRhoAllocation(const AllocationInput& in, const std::vector<double>& a,
                                        const std::vector<double>& b, const char* policy, double* foundZ = nullptr,
                                        RhoPoint point = RhoPoint::Central);

/**
 * AlloX's matching (allox.cpp): `seconds` (row-major m x T) is each job's processing time on a GPU of each type
 * (<= 0: cannot run there), `freeGpus` the GPUs per type. Minimises the total completion time of the m jobs
 * run one after another on the GPUs; returns per job the type of the GPU it runs first on, or -1 when it
 * waits behind another job (or was not matched).
 */
std::vector<int> alloxFirstJobs(const std::vector<double>& seconds, int m, int types, const std::vector<int>& freeGpus);

/**
 * Gavel's Isolated allocation (policies/isolated.py): each of the m jobs gets 1/m of every type, divided by
 * its demand on that type, the row scaled down when its total exceeds 1.
 */
void isolatedAllocation(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x);

} // namespace orrery::sched
