// Gavel's policy library (finish-time fairness, min total duration, max sum throughput, isolated, AlloX): each
// allocation on small problems whose optimum is worked out by hand in the comments, then whole runs.
#include "test_support.h"

#include "allocation_checks.h"
#include "sim_test_helpers.h"

#include "sched/floor_greedy_point.h"
#include "sched/gavel_lp.h"
#include "sched/gavel_pooled_types.h"
#include "sched/registry.h"
#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace orrery;
using orrery::test::feasible;
using orrery::test::fixedJob;
using orrery::test::makeCluster;
using orrery::test::near;
using orrery::test::prepare;
using orrery::test::throughput;

namespace {

sim::RunResult run(const sim::PreparedWorkload& w, const std::string& policy)
{
    auto p = sched::makePolicy(policy);
    return sim::simulate(w, *p, 0);
}

// Two jobs, two types of one GPU each.
sched::AllocationInput twoByTwo(std::vector<double> rate)
{
    return {2, 2, std::move(rate), {1, 1, 1, 1}, {1, 1}};
}

io::ScenarioOptions noPenalty()
{
    io::ScenarioOptions o;
    o.restartPenaltyS = 0;
    return o;
}

} // namespace

class TestGavelPolicies : public QObject
{
    Q_OBJECT
private slots:
    void maxSumThroughputTakesTheBestAssignment()
    {
        // Rates a = (2, 1), b = (3, 1) steps/s on types 0 and 1. A whole GPU each is best: a->0, b->1 gives 3,
        // a->1, b->0 gives 4, and no fractional split does better (it is an assignment LP). So x = [[0,1],[1,0]].
        const auto in = twoByTwo({2, 1, 3, 1});
        const auto x = sched::maxSumThroughputAllocation(in, "test");
        QVERIFY(feasible(in, x));
        QVERIFY(near(x[0], 0) && near(x[1], 1) && near(x[2], 1) && near(x[3], 0));
        QVERIFY(near(throughput(in, x, 0) + throughput(in, x, 1), 4));
    }

    void minTotalDurationBisectsLikeGavel()
    {
        // Two jobs of 1,000 steps, rates (1, 0.5) each. The best is symmetric: half of each type each, 0.75
        // steps/s, so T* = 1000 / 0.75 = 1333.3 s. Gavel's search stops within 5% above T*.
        const auto in = twoByTwo({1, 0.5, 1, 0.5});
        double T = 0;
        auto x = sched::minTotalDurationAllocation(in, {1000, 1000}, "test", &T);
        QVERIFY(feasible(in, x));
        QVERIFY2(T >= 1000 / 0.75 && T <= 1.05 * 1000 / 0.75, qPrintable(QString::number(T)));
        for (int j = 0; j < 2; ++j)
            QVERIFY(throughput(in, x, j) >= 1000 / T - 1e-9);
        // Ten million steps each: T* = 1.33e7 s lies beyond Gavel's first range [100, 1e6]; its next decades
        // [1e6, 1e7], [1e7, 1e8] find it, again within 5%.
        x = sched::minTotalDurationAllocation(in, {1e7, 1e7}, "test", &T);
        QVERIFY2(T >= 1e7 / 0.75 && T <= 1.05 * 1e7 / 0.75, qPrintable(QString::number(T)));
        // Uneven work: job 0 has 3,000 steps, job 1 1,000, rates (1, 0.5) each. Job 0 should take type 0:
        // x0 = (1, 0) gives it 1 step/s (T >= 3000); job 1 then has type 1 alone, 0.5/s (T >= 2000). Any
        // shift of type 0 to job 1 slows job 0 below 1/s, so T* = 3000.
        x = sched::minTotalDurationAllocation(in, {3000, 1000}, "test", &T);
        QVERIFY2(T >= 3000 && T <= 3150, qPrintable(QString::number(T)));
        QVERIFY(throughput(in, x, 0) >= 3000 / T - 1e-9 && throughput(in, x, 1) >= 1000 / T - 1e-9);
    }

    void minTotalDurationReplaysTheBisection()
    {
        // The T found from one LP (u* = 1 / T*) must be the T of Gavel's bisection with a feasibility LP per T,
        // exactly: on random 6-job, 3-type problems, and on one
        // whose T* is exactly the bisection's first mid (500,050 s; that T is decided by the feasibility LP itself).
        const auto bisect = [](const sched::AllocationInput& in, const std::vector<double>& steps) {
            sched::AllocationLp lp(in.jobs, in.types, in.rate, in.demand, in.capacity);
            std::vector<double> floor(steps.size());
            const auto feasible = [&](double T) {
                for (std::size_t k = 0; k < steps.size(); ++k)
                    floor[k] = steps[k] / T;
                lp.setThroughputFloors(floor);
                return lp.solve("test");
            };
            double maxT = 1e6, minT = 100, lastMaxT = maxT, found = -1;
            for (int decade = 0; found < 0 && decade < 20; ++decade) {
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
        std::mt19937 rng(15);
        std::uniform_real_distribution<double> rate(0.1, 10), work(1e3, 1e7);
        for (int trial = 0; trial < 30; ++trial) {
            sched::AllocationInput in{6, 3, std::vector<double>(18), std::vector<int>(18, 1), {2, 1, 2}};
            for (double& r : in.rate)
                r = trial % 3 == 0 && &r == &in.rate[4] ? 0.0 : rate(rng);
            if (trial % 5 == 2) // a job of two GPUs
                std::fill(in.demand.begin() + 3, in.demand.begin() + 6, 2);
            std::vector<double> steps(6);
            for (double& w : steps)
                w = work(rng);
            double T = 0;
            sched::minTotalDurationAllocation(in, steps, "test", &T);
            QCOMPARE(T, bisect(in, steps));
        }
        // One job, one GPU, rate 1: T* = steps.
        sched::AllocationInput one{1, 1, {1}, {1}, {1}};
        double T = 0;
        sched::minTotalDurationAllocation(one, {500050}, "test", &T);
        QCOMPARE(T, bisect(one, {500050}));
        QCOMPARE(T, 500050.0);
    }

    void minMaxRhoEqualisesTheWorst()
    {
        // One GPU, rates 1: rho_j = a_j + b_j / x_j. With a = (0, 0), b = (1, 1) the optimum splits evenly:
        // x = 0.5 each, rho = 2.
        sched::AllocationInput in{2, 1, {1, 1}, {1, 1}, {1}};
        double z = 0;
        auto x = sched::minMaxRhoAllocation(in, {0, 0}, {1, 1}, "test", &z);
        QVERIFY(near(z, 2, 1e-5));
        QVERIFY(near(x[0], 0.5, 1e-5) && near(x[1], 0.5, 1e-5));
        // a = (0.5, 0): job 0 has already lost time. Equal rho: 0.5 + 1/x = 1/(1 - x), i.e. x^2 + 3x - 2 = 0,
        // x = (sqrt(17) - 3) / 2 = 0.5616 for job 0, and rho = 1 / (1 - x) = 2.2808.
        x = sched::minMaxRhoAllocation(in, {0.5, 0}, {1, 1}, "test", &z);
        const double x0 = (std::sqrt(17.0) - 3) / 2;
        QVERIFY2(near(z, 1 / (1 - x0), 1e-5), qPrintable(QString::number(z)));
        QVERIFY(near(x[0], x0, 1e-4) && near(x[1], 1 - x0, 1e-4));
        // Two types: job 0 only runs on type 0 (rates (1, 0)), job 1 on both (1, 1), a = 0, b = 1. Job 1 takes
        // type 1 whole, job 0 type 0 whole: rho = 1 for both, the least possible (a job's time adds to <= 1).
        in = {2, 2, {1, 0, 1, 1}, {1, 1, 1, 1}, {1, 1}};
        x = sched::minMaxRhoAllocation(in, {0, 0}, {1, 1}, "test", &z);
        QVERIFY(near(z, 1, 1e-5));
        QVERIFY(near(x[0], 1, 1e-4) && near(x[3], 1, 1e-4));
    }

    void pooledTypesDecideAsTheLpDoes()
    {
        // Types alike for every job (one rate and one demand per job on every type): the floors are feasible
        // exactly when pooledMaxUniformScale >= 1, as the allocation LP decides, on random 6-job, 3-type problems
        // with floors scaled to either side of the boundary.
        std::mt19937 rng(16);
        std::uniform_real_distribution<double> rate(0.1, 10), share(0.05, 1), scale(0.5, 1.5);
        for (int trial = 0; trial < 40; ++trial) {
            sched::AllocationInput in{6, 3, std::vector<double>(18), std::vector<int>(18, 1), {2, 1, 2}};
            std::vector<double> floor(6);
            for (std::size_t j = 0; j < 6; ++j) {
                const double r = rate(rng);
                const int demand = trial % 4 == 1 && j == 2 ? 2 : 1;
                for (std::size_t t = 0; t < 3; ++t) {
                    in.rate[j * 3 + t] = r;
                    in.demand[j * 3 + t] = demand;
                }
                floor[j] = trial % 5 == 3 && j == 4 ? 0.0 : r * share(rng);
            }
            const auto pool = sched::pooledTypes(in);
            QVERIFY(pool.has_value());
            const double u = sched::pooledMaxUniformScale(*pool, floor);
            const double s = scale(rng);
            for (double& f : floor)
                f *= s;
            const double scaled = u / s;
            if (std::abs(scaled - 1) < 1e-5)
                continue;
            sched::AllocationLp lp(in.jobs, in.types, in.rate, in.demand, in.capacity);
            lp.setThroughputFloors(floor);
            QCOMPARE(lp.solve("test"), scaled > 1);
        }
        // A rate or a demand that differs between types, or a zero rate: no pooling.
        sched::AllocationInput in{2, 2, {1, 1, 2, 2}, {1, 1, 1, 1}, {1, 1}};
        QVERIFY(sched::pooledTypes(in).has_value());
        in.rate[3] = 2.5;
        QVERIFY(!sched::pooledTypes(in).has_value());
        in.rate[3] = 2;
        in.demand[1] = 2;
        QVERIFY(!sched::pooledTypes(in).has_value());
        in.demand[1] = 1;
        in.rate[0] = in.rate[1] = 0;
        QVERIFY(!sched::pooledTypes(in).has_value());
    }

    void minMaxRhoFindsTheBisectionsOptimum()
    {
        // Finish-time fairness' min z against the plain bisection with one feasibility LP per step (what Gavel's
        // stand-in and Orrery did before): the same z* to the search's 1e-6 gap, both with pooled types (each step
        // decided in closed form) and with rates that differ by type (regula falsi on the floor-slack LP).
        const auto bisect = [](const sched::AllocationInput& in, const std::vector<double>& a,
                               const std::vector<double>& b) {
            sched::AllocationLp lp(in.jobs, in.types, in.rate, in.demand, in.capacity);
            std::vector<double> floor(a.size());
            const auto feasible = [&](double z) {
                for (std::size_t k = 0; k < a.size(); ++k)
                    floor[k] = b[k] / (z - a[k]);
                lp.setThroughputFloors(floor);
                return lp.solve("test");
            };
            double lo = *std::max_element(a.begin(), a.end());
            double hi = std::max(lo, 1.0) * 2;
            while (!feasible(hi)) {
                lo = hi;
                hi *= 2;
            }
            while (hi - lo > 1e-6 * hi) {
                const double mid = (lo + hi) / 2;
                (feasible(mid) ? hi : lo) = mid;
            }
            return hi;
        };
        std::mt19937 rng(17);
        std::uniform_real_distribution<double> rate(0.1, 10), lateness(0, 3), work(0.05, 2);
        int greedyDecided = 0;
        for (int trial = 0; trial < 40; ++trial) {
            const bool pooled = trial % 2 == 0;
            sched::AllocationInput in{6, 3, std::vector<double>(18), std::vector<int>(18, 1), {2, 1, 2}};
            std::vector<double> a(6), b(6);
            for (std::size_t j = 0; j < 6; ++j) {
                const double r = rate(rng);
                for (std::size_t t = 0; t < 3; ++t)
                    in.rate[j * 3 + t] = pooled ? r : rate(rng);
                a[j] = lateness(rng);
                b[j] = work(rng) * r;
            }
            double z = 0;
            const auto x = sched::minMaxRhoAllocation(in, a, b, "test", &z);
            // CLP's barrier meets the constraints to its own tolerance (a little above 1e-7 here and there).
            QVERIFY(feasible(in, x, 1e-6));
            const double want = bisect(in, a, b);
            QVERIFY2(std::abs(z - want) <= 2e-6 * want, qPrintable(QString("%1 vs %2").arg(z).arg(want)));
            for (int j = 0; j < in.jobs; ++j) // every rho_j <= z, to the LP's tolerances
                QVERIFY(a[static_cast<std::size_t>(j)] + b[static_cast<std::size_t>(j)] / throughput(in, x, j) <=
                        z * (1 + 1e-5));
            // Where a greedy point meets the floors just above the one-job bound, that is the z taken, no LP asked.
            if (!pooled) {
                double alone = 0;
                for (std::size_t j = 0; j < 6; ++j)
                    alone = std::max(
                        alone, a[j] + b[j] / *std::max_element(in.rate.begin() + 3 * j, in.rate.begin() + 3 * j + 3));
                const double justAbove = alone * (1 + 1e-6);
                std::vector<double> floor(6);
                for (std::size_t j = 0; j < 6; ++j)
                    floor[j] = b[j] / (justAbove - a[j]);
                if (!sched::greedyFloorPoint(in, floor, 1e-9).empty()) {
                    QCOMPARE(z, justAbove);
                    ++greedyDecided;
                }
            }
        }
        QVERIFY(greedyDecided > 0);
    }

    void maxSumPointIsOptimalAndSymmetric()
    {
        // max_sum_throughput's point (ECOS' method): optimal (CLP's simplex gives the same objective), and jobs
        // that are alike get alike shares, as an interior-point method's point does on a face of optima (a
        // vertex would give one of them the better type).
        std::mt19937 rng(18);
        std::uniform_real_distribution<double> rate(0.1, 10);
        for (int trial = 0; trial < 20; ++trial) {
            const int jobs = 4 + trial % 5;
            sched::AllocationInput in{jobs,
                                      3,
                                      std::vector<double>(static_cast<std::size_t>(jobs) * 3),
                                      std::vector<int>(static_cast<std::size_t>(jobs) * 3, 1),
                                      {2, 1, 2}};
            for (double& r : in.rate)
                r = rate(rng);
            std::copy(in.rate.begin(), in.rate.begin() + 3, in.rate.begin() + 3); // jobs 0 and 1 alike
            const auto x = sched::ecosMaxSumPoint(in);
            QVERIFY(!x.empty());
            QVERIFY(feasible(in, x));
            sched::AllocationLp lp(in.jobs, in.types, in.rate, in.demand, in.capacity);
            lp.setObjective(in.rate);
            QVERIFY(lp.solve("test"));
            const auto vertex = lp.solution();
            double got = 0, best = 0;
            for (int j = 0; j < jobs; ++j) {
                got += throughput(in, x, j);
                best += throughput(in, vertex, j);
            }
            QVERIFY2(near(got, best, 1e-6), qPrintable(QString("%1 vs %2").arg(got).arg(best)));
            for (std::size_t t = 0; t < 3; ++t)
                QVERIFY(std::abs(x[t] - x[3 + t]) < 1e-5);
        }
    }

    void ecosPointIsTheOneEcosReturns()
    {
        // Gavel's feasibility LP (constant objective) has a whole set of solutions; Gavel takes the one ECOS
        // stops at. Reference: ECOS 2.0.10 itself (default settings, as cvxpy calls it) on this LP as cvxpy
        // states it, clipped to [0, 1]: G = [-I; capacity rows; time rows; -rate rows],
        // h = [0; (2, 2, 1); 1; -floor], c = 0. Job 1 takes two GPUs of any type. ECOS' regularised LDL with
        // iterative refinement and Orrery's normal equations differ in the last digits of each direction, so
        // the points agree to 1e-4, while other interior-point methods land 0.01-0.1 away (CVXOPT's conelp:
        // 0.674, 0.153, ... ; CLP's barrier, near the analytic centre, further still).
        const sched::AllocationInput in{
            4, 3, {4, 2, 1, 3, 2.5, 0.5, 5, 1, 0, 2, 2, 2}, {1, 1, 1, 2, 2, 2, 1, 1, 1, 1, 1, 1}, {2, 2, 1}};
        const std::vector<double> floor{3, 2, 2.5, 1};
        const std::vector<double> ecos{0.6815437125, 0.1375853803, 0.1081212394, 0.2196867816,
                                       0.5729402658, 0.1150045781, 0.5000236541, 0.2029956464,
                                       0.1518418701, 0.1803290169, 0.2468608547, 0.2517967673};
        const auto x = sched::ecosFeasiblePoint(in, floor);
        QCOMPARE(x.size(), ecos.size());
        for (std::size_t k = 0; k < x.size(); ++k)
            QVERIFY2(std::abs(x[k] - ecos[k]) < 1e-4, qPrintable(QString::number(k) + ": " + QString::number(x[k])));
        QVERIFY(feasible(in, x));
        for (int j = 0; j < in.jobs; ++j)
            QVERIFY(throughput(in, x, j) >= floor[static_cast<std::size_t>(j)] - 1e-7);
        // Floors no allocation meets: no point (the callers then fall back to CLP).
        QVERIFY(sched::ecosFeasiblePoint(in, {5, 2, 2.5, 1}).empty());
    }

    void alloxMinimisesTotalCompletionTime()
    {
        // One GPU, jobs of 100, 10 and 50 s: shortest first (the Hungarian optimum of [q, 2q, 3q]) runs the
        // 10 s job now.
        auto first = sched::alloxFirstJobs({100, 10, 50}, 3, 1, {1});
        QCOMPARE(first, (std::vector<int>{-1, 0, -1}));
        // Two types, one GPU each. A takes 10 s on type 0 and 100 s on type 1; B 20 and 25 s. A->0, B->1 costs
        // 10 + 25 = 35; B->0, A->1 120; both on type 0 (A first) 10 + 30 = 40. So both start, A on type 0.
        first = sched::alloxFirstJobs({10, 100, 20, 25}, 2, 2, {1, 1});
        QCOMPARE(first, (std::vector<int>{0, 1}));
        // Two GPUs of one type, jobs of 30, 10 and 20 s: the 10 s job runs second to last on one GPU (counted
        // twice), the others last: 2x10 + 20 + 30 = 70, the least. Runs now: the 10 s job (first on its GPU,
        // then the 30 s job; the cost is the same either way) and the 20 s one on the other GPU.
        first = sched::alloxFirstJobs({30, 10, 20}, 3, 1, {2});
        QCOMPARE(first, (std::vector<int>{-1, 0, 0}));
        // A type with no free GPU matches nothing; a job that can run nowhere free is not matched.
        first = sched::alloxFirstJobs({10, 0, 0, 5}, 2, 2, {0, 1});
        QCOMPARE(first, (std::vector<int>{-1, 1}));
    }

    void isolatedSplitsEvenly()
    {
        // Gavel's Isolated: 1/m of each type per job, over its demand, scaled to a total <= 1. 3 jobs on
        // 4 + 2 GPUs: a 1-GPU job gets (4/3, 2/3) -> sum 2 -> (2/3, 1/3); a 2-GPU job (2/3, 1/3) -> as is.
        const auto w = prepare(makeCluster({{"v100", 1, 4}, {"k80", 1, 2}}),
                               {fixedJob("a", 0, 1, 100), fixedJob("b", 0, 1, 100), fixedJob("c", 0, 2, 100)});
        // The allocation is checked through a run: every job finishes, and on one GPU with two equal jobs
        // Isolated time-shares like max-min fairness (next case).
        QCOMPARE(run(w, "isolated").jobs.size(), std::size_t(3));
        const auto one =
            prepare(makeCluster({{"v100", 1, 1}}), {fixedJob("a", 0, 1, 720), fixedJob("b", 0, 1, 720)}, noPenalty());
        const auto r = run(one, "isolated");
        QVERIFY(near(r.jobs[0].jctS(), 1080) && near(r.jobs[1].jctS(), 1440));
    }

    void policiesDifferAsTheirObjectivesSay()
    {
        // One V100, one K80 (3.75x slower: memory bandwidths 900 and 240 GB/s). a: 900 s on a V100;
        // b: 240 s on a K80 (64 s on a V100). 360 s rounds, no restart penalty.
        const auto w = prepare(makeCluster({{"v100", 1, 1}, {"k80", 1, 1}}),
                               {fixedJob("a", 0, 1, 900), fixedJob("b", 0, 1, 240, "k80")}, noPenalty());
        // max_sum_throughput_perf: b on the V100 (3.75 + 0.27 beats 1 + 1 in work-seconds per second), a on
        // the K80. b ends at 64; at the 360 s round a moves to the V100 with 900 - 360/3.75 = 804 s left: 1164.
        auto r = run(w, "max_sum_throughput_perf");
        QVERIFY2(near(r.jobs[0].jctS(), 1164) && near(r.jobs[1].jctS(), 64),
                 qPrintable(QString::number(r.jobs[0].jctS())));
        // min_total_duration_perf: the makespan is a's 900 s on the V100 whatever b does, so a keeps the
        // V100 and b runs on the K80: 900 and 240.
        r = run(w, "min_total_duration_perf");
        QVERIFY2(near(r.jobs[0].jctS(), 900) && near(r.jobs[1].jctS(), 240),
                 qPrintable(QString::number(r.jobs[0].jctS())));
        // AlloX: a costs 900 s on the V100 or 3375 s on the K80, b 64 or 240 s. a->V100, b->K80: 900 + 240
        // = 1140; b->V100, a->K80: 64 + 3375; both on the V100 (b first): 2 x 64 + 900 = 1028, the least. So
        // b runs on the V100 and a is not placed (x = 0); but Gavel's rounds give GPUs nobody is allocated to
        // jobs of priority 0 (only its FIFO policies skip those), so a runs on the K80 meanwhile. b ends at
        // 64; at the 360 s round a is matched alone, to the V100, with 804 s left there: 1164.
        r = run(w, "allox");
        QVERIFY2(near(r.jobs[0].jctS(), 1164) && near(r.jobs[1].jctS(), 64),
                 qPrintable(QString::number(r.jobs[0].jctS())));
        // Every policy of the library finishes both jobs, also under Gavel's rounds.
        auto compat = noPenalty();
        compat.gavelCompat = true;
        const auto wc = prepare(makeCluster({{"v100", 1, 1}, {"k80", 1, 1}}),
                                {fixedJob("a", 0, 1, 900), fixedJob("b", 0, 1, 240, "k80")}, compat);
        for (const char* p : {"finish_time_fairness", "finish_time_fairness_perf", "min_total_duration",
                              "min_total_duration_perf", "max_sum_throughput_perf", "isolated", "allox"}) {
            QVERIFY(run(w, p).jobs[0].finished() && run(w, p).jobs[1].finished());
            const auto c = run(wc, p);
            QVERIFY2(c.jobs[0].finished() && c.jobs[1].finished(), p);
        }
    }

    void gavelCompatRunsWholeStepsPerRound()
    {
        // Two V100s under gavel_compat (360 s rounds). A does exactly 360 steps a round (a 720 s job measured
        // on a V100, rate 1): its lease is the whole round, it ends at 720. B is measured on a P100 and runs
        // r > 1 steps/s on the V100; it has s + 1 steps, s = floor(360 r). Gavel runs s whole steps in round 1
        // (done by s / r < 360, then B waits for the round's end at 360) and the last step in round 2: B ends
        // at 360 + 1 / r. Continuous progress would have done 360 r steps by 360 and ended at
        // 360 + (s + 1 - 360 r) / r, earlier by the fraction of a step it lost.
        auto compat = noPenalty();
        compat.gavelCompat = true;
        const auto probe = prepare(makeCluster({{"v100", 1, 2}}), {fixedJob("B", 0, 1, 100, "p100")}, compat);
        const double r = probe.rate(0, 0) / probe.job(0).work * 100; // steps/s when the job has 100 steps
        const double s = std::floor(360 * r);
        QVERIFY(r > 1 && 360 * r - s > 1e-3); // a fractional step per round, or there is nothing to see
        const auto w = prepare(makeCluster({{"v100", 1, 2}}),
                               {fixedJob("A", 0, 1, 720), fixedJob("B", 0, 1, s + 1, "p100")}, compat);
        const auto res = run(w, "fifo_perf");
        QVERIFY2(near(res.jobs[0].endS, 720), qPrintable(QString::number(res.jobs[0].endS)));
        QVERIFY2(near(res.jobs[1].endS, 360 + 1 / r), qPrintable(QString::number(res.jobs[1].endS)));
        QVERIFY(res.jobs[1].endS > 360 + (s + 1 - 360 * r) / r + 1e-6);
    }
};

QTEST_GUILESS_MAIN(TestGavelPolicies)
#include "test_gavel_policies.moc"
