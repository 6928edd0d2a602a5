#include "sched/floor_analytic_centre.h"
#include "sched/floor_greedy_point.h"
#include "sched/floor_slack_lp.h"
#include "sched/gavel_lp.h"
#include "sched/gavel_pooled_types.h"
#include "sched/max_min_round_policy.h"
#include "sched/registry.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <unordered_map>

namespace orrery::sched {

namespace {

// The search on z ends at this relative gap (ECOS' default tolerances are of this order).
constexpr double kRelativeGap = 1e-6;
constexpr int kMaxSteps = 200;
// The room a greedy point must leave above every floor to stand for the slack LP's answer: far above the rounding
// of its sums (1e-16), far below the room at z* just above the one-job bound on Gavel's traces (1e-6 and more).
constexpr double kGreedyMargin = 1e-9;

/** The floors for z: thr_j >= b_j / (z - a_j) is rho_j <= z. */
void floorsAt(double z, const std::vector<double>& a, const std::vector<double>& b, std::vector<double>& floor)
{
    for (std::size_t k = 0; k < floor.size(); ++k)
        floor[k] = b[k] / (z - a[k]);
}

} // namespace

std::vector<double> minMaxRhoAllocation(const AllocationInput& in, const std::vector<double>& a,
                                        const std::vector<double>& b, const char* policy, double* foundZ,
                                        RhoPoint point)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    std::vector<double> floor(J);
    std::unique_ptr<AllocationLp> lp;
    const auto allocationLp = [&]() -> AllocationLp& {
        if (!lp)
            lp = std::make_unique<AllocationLp>(in.jobs, in.types, in.rate, in.demand, in.capacity);
        return *lp;
    };
    double lo = J ? *std::max_element(a.begin(), a.end()) : 0.0;
    double hi = std::max(lo, 1.0) * 2;
    if (const auto pool = pooledTypes(in)) {
        // Bisection, each step decided in closed form, exactly (the LP's answer differs only within its tolerances,
        // so z* may move by up to the search's 1e-6 gap).
        const auto feasible = [&](double z) {
            floorsAt(z, a, b, floor);
            return pooledMaxUniformScale(*pool, floor) >= 1;
        };
        for (int doubling = 0; !feasible(hi); ++doubling) {
            if (doubling == kMaxSteps)
                return {};
            lo = hi;
            hi *= 2;
        }
        for (int i = 0; i < kMaxSteps && hi - lo > kRelativeGap * hi; ++i) {
            const double mid = (lo + hi) / 2;
            (feasible(mid) ? hi : lo) = mid;
        }
    } else {
        // No z below a_j + b_j / (job j's best rate) is feasible: j would need more than all its time. On Gavel's
        // traces z* is that bound at most recomputations (one job's rho is nearly all lateness), so the search
        // tries just above it first (never at it: there that job's share is pinned to its bounds, the feasible
        // set has no interior, and CLP's barrier can abort on such an LP) and otherwise starts from it rather
        // than from max_j a_j.
        double alone = lo;
        for (std::size_t j = 0; j < J; ++j) {
            double best = 0;
            for (std::size_t t = 0; t < static_cast<std::size_t>(in.types); ++t)
                best = std::max(best, in.rate[j * static_cast<std::size_t>(in.types) + t]);
            if (best > 0)
                alone = std::max(alone, a[j] + b[j] / best);
        }
        // Regula falsi (Illinois) on t*(z) of the floor-slack LP, weights b_j: t* rises with z and crosses 0 at z*.
        std::unique_ptr<FloorSlackLp> slackLp;
        const auto slack = [&](double z) {
            if (!slackLp)
                slackLp = std::make_unique<FloorSlackLp>(in, b);
            floorsAt(z, a, b, floor);
            return slackLp->maxSlack(floor, policy);
        };
        double gHi = std::nan(""), gLo = std::nan(""); // t* at hi and lo (unknown at max_j a_j: a floor is infinite)
        bool found = false;
        if (alone > lo) {
            const double justAbove = alone * (1 + kRelativeGap);
            floorsAt(justAbove, a, b, floor);
            if (!greedyFloorPoint(in, floor, kGreedyMargin).empty()) {
                // A point meeting every floor with room is the slack LP's "t* >= 0" without its solve (on Gavel's
                // traces, at all but one recomputation): z* lies in [alone, justAbove], found to the search's gap.
                lo = alone;
                hi = justAbove;
                found = true;
            } else if (const double g = slack(justAbove); g < 0) {
                lo = justAbove;
                gLo = g;
                hi = std::max(hi, 2 * lo);
            } else { // z* lies in [alone, justAbove]: found to the search's gap
                lo = alone;
                hi = justAbove;
                gHi = g;
            }
        }
        if (!found && std::isnan(gHi)) {
            for (int doubling = 0; (gHi = slack(hi)) < 0; ++doubling) {
                if (doubling == kMaxSteps)
                    return {};
                lo = hi;
                gLo = gHi;
                hi *= 2;
            }
        }
        int kept = 0; // +1: the last step moved hi, -1: it moved lo
        double widthBefore = hi - lo;
        for (int i = 0; !found && i < kMaxSteps && hi - lo > kRelativeGap * hi; ++i) {
            const double width = hi - lo;
            // Bisect while lo's value is unknown, and every other step once interpolation stops halving the bracket.
            const bool bisect = std::isnan(gLo) || (i % 2 == 1 && width > widthBefore / 2);
            if (i % 2 == 1)
                widthBefore = width;
            double z = bisect ? (lo + hi) / 2 : hi - gHi * width / (gHi - gLo);
            // A quarter of the tolerance inside either end, so that the bracket closes from both sides.
            const double inset = kRelativeGap * hi / 4;
            z = std::clamp(z, lo + inset, hi - inset);
            const double g = slack(z);
            if (g >= 0) {
                hi = z;
                gHi = g;
                if (kept == 1)
                    gLo /= 2;
                kept = 1;
            } else {
                lo = z;
                gLo = g;
                if (kept == -1)
                    gHi /= 2;
                kept = -1;
            }
        }
    }
    if (foundZ)
        *foundZ = hi;
    floorsAt(hi, a, b, floor);
    if (point == RhoPoint::Ecos)
        if (auto x = ecosFeasiblePoint(in, floor); !x.empty())
            return x;
    if (point == RhoPoint::Central)
        if (auto x = floorAnalyticCentre(in, floor); !x.empty())
            return x;
    allocationLp().setThroughputFloors(floor);
    if (!allocationLp().solveInterior(policy))
        return {};
    return allocationLp().solution();
}

namespace {

/**
 * Gavel's finish-time fairness (policies/finish_time_fairness.py, FinishTimeFairnessPolicyWithPerf; Themis'
 * rho): minimise the largest
 *   rho_j = (t_j + steps_left(j) / sum_t rate(j, t) x[j][t]) / (c_j + steps_left(j) / iso_j)
 * where t_j is the time since the job arrived, iso_j its throughput under the Isolated allocation of the
 * current job set, and c_j the time it would have needed under Isolated for the steps it has already done:
 * at each recomputation c_j grows by (steps left at the previous one - steps left now) / iso_j of the
 * previous one. Priority weights are not used (Gavel's code leaves them as a TODO).
 *
 * rho_j = a_j + b_j / thr_j is convex and decreasing in thr_j, so "max rho_j <= z" is the LP floor
 * thr_j >= b_j / (z - a_j): min z is found by bisection (z above max a_j, doubled until feasible, halved to a
 * relative gap of 1e-6). When the types are alike for every job (the agnostic variant on Gavel's traces) each
 * step is decided in closed form (pooledMaxUniformScale); otherwise z* is found from max_j a_j + b_j / best rate_j
 * (tried just above first: it is z* at most recomputations on Gavel's traces, and a greedy point meeting the floors
 * there, floor_greedy_point.h, settles it without an LP) by regula falsi on the floor-slack LP (floor_slack_lp.h),
 * one or a few solves instead of the bisection's 21 feasibility solves. At z* the point is the analytic centre of
 * the feasibility LP (floorAnalyticCentre: structured Newton steps from a greedy start; CLP's barrier, which heads for
 * the same point, where no start is found), inside the optimal face as the end of Gavel's ECOS on its min-max SOCP
 * is, and closer to Gavel's average JCT than CLP's barrier point was (docs/validation.md); the agnostic variant takes
 * ECOS' point of the feasibility LP at z* instead (ecosFeasiblePoint, CLP's barrier its fallback): as close to Gavel
 * on the three validation traces (within 0.3%) for a third of the cost. When nothing is feasible Gavel falls back to
 * the Isolated allocation; so does Orrery.
 *
 * The agnostic variant (FinishTimeFairnessPolicy) gives every type the job's rate on the fastest type (Gavel's
 * V100) and, its name lacking "Perf", shuffles types each round.
 */
class FinishTimeFairness : public MaxMinRoundPolicy
{
public:
    explicit FinishTimeFairness(bool perf)
        : MaxMinRoundPolicy(!perf, [this](const sim::View& view, const std::vector<int>& jobs,
                                          std::vector<double>& x) { allocate(view, jobs, x); }),
          m_perf(perf)
    {}
    std::string name() const override { return m_perf ? "finish_time_fairness_perf" : "finish_time_fairness"; }

private:
    struct Previous
    {
        double stepsLeft;
        double isolatedRate;
    };

    void allocate(const sim::View& view, const std::vector<int>& jobs, std::vector<double>& x)
    {
        const std::string label = name();
        const int nt = view.typeCount();
        const auto T = static_cast<std::size_t>(nt);
        const std::size_t J = jobs.size();
        const auto rate = m_perf ? allowedRates(view, jobs) : referenceRates(view, jobs);

        std::vector<double> iso(J * T, 0.0);
        isolatedAllocation(view, jobs, iso);
        std::vector<double> a(J), b(J), isoRate(J, 0.0), steps(J);
        std::unordered_map<int, Previous> now;
        for (std::size_t k = 0; k < J; ++k) {
            const int j = jobs[k];
            for (std::size_t t = 0; t < T; ++t)
                isoRate[k] += rate[k * T + t] * iso[k * T + t];
            steps[k] = view.remainingWork(j);
            double& cumulative = m_cumulativeIsolatedS[j];
            if (const auto it = m_previous.find(j); it != m_previous.end())
                cumulative += (it->second.stepsLeft - steps[k]) / it->second.isolatedRate;
            const double expectedIsolated = cumulative + steps[k] / isoRate[k];
            a[k] = (view.nowS() - view.job(j).arrivalS) / expectedIsolated;
            b[k] = steps[k] / expectedIsolated;
            now[j] = {steps[k], isoRate[k]};
        }
        m_previous = std::move(now);

        x = minMaxRhoAllocation(allocationInput(view, jobs, rate), a, b, label.c_str(), nullptr,
                                m_perf ? RhoPoint::Central : RhoPoint::Ecos);
        if (x.empty()) { // Gavel falls back to the Isolated allocation
            x.assign(J * T, 0.0);
            isolatedAllocation(view, jobs, x);
        }
    }

    bool m_perf;
    std::unordered_map<int, double> m_cumulativeIsolatedS;
    std::unordered_map<int, Previous> m_previous;
};

} // namespace

std::unique_ptr<Policy> makeFinishTimeFairness()
{
    return std::make_unique<FinishTimeFairness>(false);
}

std::unique_ptr<Policy> makeFinishTimeFairnessPerf()
{
    return std::make_unique<FinishTimeFairness>(true);
}

} // namespace orrery::sched
