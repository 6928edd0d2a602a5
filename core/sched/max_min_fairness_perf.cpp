#include "io/error.h"
#include "sched/gavel_lp.h"
#include "sched/max_min_lp.h"
#include "sched/max_min_round_policy.h"
#include "sched/registry.h"

namespace orrery::sched {

void maxMinAgnosticAllocation(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x);

namespace {

/**
 * Gavel's heterogeneity-aware max-min fairness (MaxMinFairness_Perf): each
 * job's throughput is normalised by what it would get from the agnostic
 * equal-time allocation, X_iso, and the LP maximises the smallest normalised,
 * priority-weighted throughput:
 *   c[j][t] = rate(j, t) * demand_j / (w_j * sum_t rate(j, t) X_iso[j][t])
 * (solveMaxMin, COIN-OR CLP), demand_j the job's overall request (SimJob::demand); the capacity rows count
 * what it takes on each type (PreparedWorkload::demandOn). Run through Gavel's round mechanism.
 */
class MaxMinFairnessPerf : public MaxMinRoundPolicy
{
public:
    MaxMinFairnessPerf() : MaxMinRoundPolicy(false, &MaxMinFairnessPerf::allocate) {}
    std::string name() const override { return "max_min_fairness_perf"; }

    static void allocate(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x)
    {
        const int nt = view.typeCount();
        const auto T = static_cast<std::size_t>(nt);
        std::vector<double> iso(jobs.size() * T, 0.0);
        maxMinAgnosticAllocation(view, jobs, iso);
        std::vector<double> c(jobs.size() * T, 0.0);
        const std::vector<int> demand = demands(view, jobs);
        std::vector<int> capacity(T);
        for (int t = 0; t < nt; ++t)
            capacity[static_cast<std::size_t>(t)] = view.totalGpus(t);
        const auto& w = view.workload();
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            const int j = jobs[k];
            double isoRate = 0;
            for (int t = 0; t < nt; ++t)
                isoRate += w.rate(j, t) * iso[k * T + static_cast<std::size_t>(t)];
            if (isoRate <= 0)
                continue;
            for (int t = 0; t < nt; ++t)
                c[k * T + static_cast<std::size_t>(t)] =
                    w.rate(j, t) * view.job(j).demand / (view.job(j).priority * isoRate);
        }
        if (!solveMaxMin(static_cast<int>(jobs.size()), nt, c, demand, capacity, x))
            throw Error("policy \"max_min_fairness_perf\": the LP solver (CLP) failed on " +
                        std::to_string(jobs.size()) + " jobs");
    }
};

} // namespace

std::unique_ptr<Policy> makeMaxMinFairnessPerf()
{
    return std::make_unique<MaxMinFairnessPerf>();
}

} // namespace orrery::sched
