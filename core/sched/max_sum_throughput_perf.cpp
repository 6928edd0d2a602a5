#include "sched/gavel_lp.h"
#include "sched/max_min_round_policy.h"
#include "sched/registry.h"

namespace orrery::sched {

std::vector<double> maxSumThroughputAllocation(const AllocationInput& in, const char* policy)
{
    if (auto x = ecosMaxSumPoint(in); !x.empty())
        return x;
    AllocationLp lp(in.jobs, in.types, in.rate, in.demand, in.capacity);
    lp.setObjective(in.rate);
    if (!lp.solveInterior(policy))
        return std::vector<double>(in.rate.size(), 0.0); // cannot happen: x = 0 is feasible
    return lp.solution();
}

namespace {

/**
 * Gavel's ThroughputSumWithPerf (policies/max_sum_throughput.py, instance costs 1, no SLOs): maximise the
 * cluster's total throughput sum_j sum_t rate(j, t) x[j][t] under Gavel's base constraints. Throughputs are
 * in each job's own steps/s, as in Gavel, so the LP favours jobs with many cheap steps. The optimum is often not
 * unique (jobs of one type are interchangeable), so the allocation is the point ECOS stops at (ecosMaxSumPoint),
 * as in Gavel; CLP's barrier, also inside the optimal face, is the fallback when that method does not end
 * (docs/simulator.md).
 */
class MaxSumThroughputPerf : public MaxMinRoundPolicy
{
public:
    MaxSumThroughputPerf() : MaxMinRoundPolicy(false, &MaxSumThroughputPerf::allocate) {}
    std::string name() const override { return "max_sum_throughput_perf"; }

    static void allocate(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x)
    {
        x = maxSumThroughputAllocation(allocationInput(view, jobs, allowedRates(view, jobs)),
                                       "max_sum_throughput_perf");
    }
};

} // namespace

std::unique_ptr<Policy> makeMaxSumThroughputPerf()
{
    return std::make_unique<MaxSumThroughputPerf>();
}

} // namespace orrery::sched
