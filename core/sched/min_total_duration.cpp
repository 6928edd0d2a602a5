#include "sched/gavel_lp.h"
#include "sched/max_min_round_policy.h"
#include "sched/registry.h"

namespace orrery::sched {

namespace {
// At T = 1e6 * 10^20 s every floor is negligible: a cluster that cannot meet it cannot run the job at all.
constexpr int kMaxDecades = 20;
} // namespace

std::vector<double> minTotalDurationAllocation(const AllocationInput& in, const std::vector<double>& stepsLeft,
                                               const char* policy, double* foundT)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    AllocationLp lp(in.jobs, in.types, in.rate, in.demand, in.capacity);
    std::vector<double> floor(J);
    const auto feasible = [&](double T) {
        for (std::size_t k = 0; k < J; ++k)
            floor[k] = stepsLeft[k] / T;
        lp.setThroughputFloors(floor);
        return lp.solve(policy);
    };
    // Gavel's search, constants and all.
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
    if (foundT)
        *foundT = found;
    if (found < 0)
        return std::vector<double>(in.rate.size(), 0.0); // the round mechanism's mix pass still runs what fits
    for (std::size_t k = 0; k < J; ++k)
        floor[k] = stepsLeft[k] / found;
    if (auto x = ecosFeasiblePoint(in, floor); !x.empty())
        return x;
    lp.setThroughputFloors(floor);
    if (!lp.solveInterior(policy))
        return std::vector<double>(in.rate.size(), 0.0);
    return lp.solution();
}

namespace {

/**
 * Gavel's MinTotalDuration(_Perf) (policies/min_total_duration.py): the smallest T such that every active
 * job can finish its remaining steps within T, i.e. the LP feasibility problem
 *   sum_t rate(j, t) x[j][t] >= steps_left(j) / T   for every j,   plus Gavel's base constraints,
 * searched for exactly as Gavel does: bisection of [100 s, 10^6 s] until max < 1.05 min, and, when nothing
 * there is feasible, the next decade [10^6, 10^7] and so on (CLP's simplex decides each T). The allocation is
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
