#include "sched/gavel_lp.h"
#include "sched/gavel_pooled_types.h"
#include "sched/max_min_round_policy.h"
#include "sched/registry.h"

#include "opt/linear_program.h"

#include <algorithm>
#include <cmath>
#include <memory>

namespace orrery::sched {

namespace {
// At T = 1e6 * 10^20 s every floor is negligible: a cluster that cannot meet it cannot run the job at all.
constexpr int kMaxDecades = 20;
// A T whose u* T lies this close to 1 is decided by the feasibility LP itself, as before: there the answer
// depends on the solvers' tolerances, and only the LP the bisection always solved gives the same answer.
constexpr double kReplayMargin = 1e-5;
// u's upper bound (T >= 1 s), far below the bisection's smallest T (100 s): keeps the LP bounded when no job has
// steps left.
constexpr double kMaxU = 1.0;

/**
 * u* = 1 / T*, the largest u such that every job can get stepsLeft_j * u steps/s under Gavel's base constraints:
 * "feasible at T" is "T u* >= 1", so one LP (maximise u) answers every T of the bisection. NaN when CLP does not
 * end optimal (the bisection then solves each T). With types alike for every job it needs no LP (gavel_pooled_types.h).
 */
double maxUniformProgress(const AllocationInput& in, const std::vector<double>& stepsLeft)
{
    // Types alike for every job (the agnostic variant): u* in closed form, as the LP below finds it.
    if (const auto pool = pooledTypes(in))
        return std::min(kMaxU, pooledMaxUniformScale(*pool, stepsLeft));
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    // Gavel's allocation rows, the throughput rows' floor at 0, then the scale column.
    opt::LinearModel model = allocationModel(in.jobs, in.types, in.rate, in.demand, in.capacity, 0);
    // The LP's variable is v = u * scale with scale the most steps left, so that its coefficients are in [-1, 0].
    double scale = 0;
    for (std::size_t j = 0; j < J; ++j)
        scale = std::max(scale, stepsLeft[j]);
    if (!(scale > 0))
        scale = 1;
    const int v = model.addColumn(0, kMaxU * scale, 1);
    for (std::size_t j = 0; j < J; ++j)
        if (stepsLeft[j] != 0)
            model.addEntry(static_cast<int>(J + T + j), v, -stepsLeft[j] / scale);
    opt::LinearProgram lp(model);
    // x = 0, v = 0 is feasible, so the primal simplex starts from the slack basis; on the shared trace it takes half
    // the instructions of CLP's initialSolve (presolve, then its choice) and two thirds of the dual simplex's.
    if (lp.solve(opt::LinearProgram::Method::Primal) != opt::Status::Optimal)
        return std::nan("");
    return lp.value(v) / scale;
}

/** min_j (best rate_j / steps_j) over jobs with steps left, at most kMaxU: an upper bound on u*. */
double aloneProgress(const AllocationInput& in, const std::vector<double>& stepsLeft)
{
    const auto T = static_cast<std::size_t>(in.types);
    double u = kMaxU;
    for (std::size_t j = 0; j < stepsLeft.size(); ++j) {
        if (!(stepsLeft[j] > 0))
            continue;
        double best = 0;
        for (std::size_t t = 0; t < T; ++t)
            best = std::max(best, in.rate[j * T + t]);
        u = std::min(u, best / stepsLeft[j]);
    }
    return u;
}

} // namespace

std::vector<double> minTotalDurationAllocation(const AllocationInput& in, const std::vector<double>& stepsLeft,
                                               const char* policy, double* foundT)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    // The feasibility LP at a given T, built only when a T falls within kReplayMargin of T* (or u* is unknown).
    std::unique_ptr<AllocationLp> lp;
    std::vector<double> floor(J);
    const auto solveAt = [&](double T) {
        if (!lp)
            lp = std::make_unique<AllocationLp>(in.jobs, in.types, in.rate, in.demand, in.capacity);
        for (std::size_t k = 0; k < J; ++k)
            floor[k] = stepsLeft[k] / T;
        lp->setThroughputFloors(floor);
        return lp->solve(policy);
    };
    // Gavel's search, constants and all, each T decided from u (see kReplayMargin).
    const auto search = [&](double u) {
        const auto feasible = [&](double T) {
            if (std::isfinite(u)) {
                if (u * T > 1 + kReplayMargin)
                    return true;
                if (u * T < 1 - kReplayMargin)
                    return false;
            }
            return solveAt(T);
        };
        double maxT = 1e6, minT = 100, lastMaxT = maxT;
        double found = -1;
        for (int decade = 0; found < 0 && decade < kMaxDecades; ++decade) {
            while (1.05 * minT < maxT) {
                const double T = (minT + maxT) / 2;
                if (feasible(T)) {
                    found = T;
                    maxT = T;
                } else {
                    minT = T;
                }
            }
            maxT = lastMaxT * 10;
            minT = lastMaxT;
            lastMaxT *= 10;
        }
        return found;
    };
    // u* is at most min_j (best rate_j / steps_j), each job alone on its best type, and on Gavel's traces it is
    // that bound most of the time (the longest job alone sets T*). Searching with the bound decides every T as u*
    // would unless some tested T lies in [T_alone, T*), and then the T found is below T*, where ECOS' point
    // (computed next in any case) finds no feasible point; only then is the LP for u* solved and the search
    // replayed with it, as before.
    if (!pooledTypes(in)) {
        if (const double found = search(aloneProgress(in, stepsLeft)); found > 0) {
            for (std::size_t k = 0; k < J; ++k)
                floor[k] = stepsLeft[k] / found;
            if (auto x = ecosFeasiblePoint(in, floor); !x.empty()) {
                if (foundT)
                    *foundT = found;
                return x;
            }
        }
        lp.reset(); // the replay below starts as it always did
    }
    const double found = search(maxUniformProgress(in, stepsLeft));
    if (foundT)
        *foundT = found;
    if (found < 0)
        return std::vector<double>(in.rate.size(), 0.0); // the round mechanism's mix pass still runs what fits
    for (std::size_t k = 0; k < J; ++k)
        floor[k] = stepsLeft[k] / found;
    if (auto x = ecosFeasiblePoint(in, floor); !x.empty())
        return x;
    if (!lp)
        lp = std::make_unique<AllocationLp>(in.jobs, in.types, in.rate, in.demand, in.capacity);
    lp->setThroughputFloors(floor);
    if (!lp->solveInterior(policy))
        return std::vector<double>(in.rate.size(), 0.0);
    return lp->solution();
}

namespace {

/**
 * Gavel's MinTotalDuration(_Perf) (policies/min_total_duration.py): the smallest T such that every active
 * job can finish its remaining steps within T, i.e. the LP feasibility problem
 *   sum_t rate(j, t) x[j][t] >= steps_left(j) / T   for every j,   plus Gavel's base constraints,
 * searched for exactly as Gavel does: bisection of [100 s, 10^6 s] until max < 1.05 min, and, when nothing
 * there is feasible, the next decade [10^6, 10^7] and so on. Each T is decided without its own LP: one LP gives
 * u* = 1 / T* (maxUniformProgress), and "T u* >= 1" replays the bisection step for step; only a T within 1e-5 of
 * T* is decided by CLP's simplex on the feasibility LP itself, as every T was before. The allocation is
 * the point ECOS returns for the feasibility LP at the last feasible T (ecosFeasiblePoint): that LP has a wide
 * set of solutions, and which one a solver stops at decides which jobs run (docs/validation.md); CLP's barrier
 * is the fallback when ECOS' method does not end optimal. The agnostic variant gives every type the
 * job's rate on the fastest type (Gavel's V100) and, its name lacking "Perf", shuffles types each round.
 */
class MinTotalDuration : public MaxMinRoundPolicy
{
public:
    explicit MinTotalDuration(bool perf)
        : MaxMinRoundPolicy(!perf, [perf](const sim::View& view, const std::vector<int>& jobs,
                                          std::vector<double>& x) { allocate(view, jobs, x, perf); }),
          m_perf(perf)
    {}
    std::string name() const override { return m_perf ? "min_total_duration_perf" : "min_total_duration"; }

    static void allocate(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x, bool perf)
    {
        std::vector<double> steps(jobs.size());
        for (std::size_t k = 0; k < jobs.size(); ++k)
            steps[k] = view.remainingWork(jobs[k]);
        const auto in = allocationInput(view, jobs, perf ? allowedRates(view, jobs) : referenceRates(view, jobs));
        x = minTotalDurationAllocation(in, steps, perf ? "min_total_duration_perf" : "min_total_duration");
    }

private:
    bool m_perf;
};

} // namespace

std::unique_ptr<Policy> makeMinTotalDuration()
{
    return std::make_unique<MinTotalDuration>(false);
}

std::unique_ptr<Policy> makeMinTotalDurationPerf()
{
    return std::make_unique<MinTotalDuration>(true);
}

} // namespace orrery::sched
