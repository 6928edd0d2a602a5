#include "sched/max_min_round_policy.h"
#include "sched/registry.h"

#include <algorithm>

namespace orrery::sched {

namespace {

/**
 * Gavel's MaxMinFairness without throughput awareness: every job should get an
 * equal (priority-weighted) share of GPU time, whatever the GPU type. With all
 * throughputs equal, only a job's total share s_j = sum_t x[j][t] matters:
 * water-filling gives s_j = min(1, z * w_j / demand_j) with z as large as the
 * cluster allows (demand_j the job's overall request; the capacity counts
 * what it takes on each type, PreparedWorkload::demandOn), and spreading each s_j over types in proportion to their
 * size (x[j][t] = s_j * n_t / N) is feasible and optimal. That proportional
 * point is the centre of the LP's optimal face, which is where Gavel's
 * interior-point solver lands. Run through Gavel's round mechanism.
 */
class MaxMinFairness : public MaxMinRoundPolicy
{
public:
    MaxMinFairness() : MaxMinRoundPolicy(true, &MaxMinFairness::allocate) {}
    std::string name() const override { return "max_min_fairness"; }

    static void allocate(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x)
    {
        const int nt = view.typeCount();
        double total = 0;
        for (int t = 0; t < nt; ++t)
            total += view.totalGpus(t);
        std::vector<double> a(jobs.size());
        double hi = 0;
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            a[k] = view.job(jobs[k]).priority / view.job(jobs[k]).demand;
            hi = std::max(hi, 1.0 / a[k]);
        }
        // Spread in proportion to type sizes, a share s_j takes demandOn(j, t) s_j n_t / N GPUs of type t: it
        // fits when sum_j demandOn(j, t) s_j <= N on every type (one sum when every job asks alike).
        const auto& w = view.workload();
        auto usedOn = [&](double z, int t) {
            double sum = 0;
            for (std::size_t k = 0; k < jobs.size(); ++k)
                sum += w.demandOn(jobs[k], t) * std::min(1.0, z * a[k]);
            return sum;
        };
        auto used = [&](double z) {
            double most = usedOn(z, 0);
            for (int t = 1; t < nt; ++t)
                most = std::max(most, usedOn(z, t));
            return most;
        };
        double lo = 0;
        if (used(hi) <= total) {
            lo = hi;
        } else {
            for (int it = 0; it < 100; ++it) {
                const double mid = (lo + hi) / 2;
                (used(mid) <= total ? lo : hi) = mid;
            }
        }
        for (std::size_t k = 0; k < jobs.size(); ++k) {
            const double share = std::min(1.0, lo * a[k]);
            for (int t = 0; t < nt; ++t)
                x[k * static_cast<std::size_t>(nt) + static_cast<std::size_t>(t)] = share * view.totalGpus(t) / total;
        }
    }
};

} // namespace

std::unique_ptr<Policy> makeMaxMinFairness()
{
    return std::make_unique<MaxMinFairness>();
}

void maxMinAgnosticAllocation(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x)
{
    MaxMinFairness::allocate(view, jobs, x);
}

} // namespace orrery::sched
