#include "test_support.h"

#include "allocation_checks.h"

#include "sched/floor_analytic_centre.h"
#include "sched/floor_greedy_point.h"
#include "sched/floor_slack_lp.h"
#include "sched/gavel_lp.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace orrery;
using orrery::test::feasible;
using orrery::test::near;
using orrery::test::throughput;

// The points finish-time fairness allocates at (greedy points meeting throughput floors, the analytic centre of the
// floors' feasible set) and the floor-slack LP that decides feasibility (the policies themselves: test_gavel_policies).
namespace {

// The slacks of every finite bound of the allocation LP with floors (cells' 0 and 1, time per job, GPUs per type,
// throughput floors), in that order.
std::vector<double> barrierSlacks(const sched::AllocationInput& in, const std::vector<double>& floor,
                                  const std::vector<double>& x)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    std::vector<double> s;
    std::vector<double> used(T, 0.0);
    for (std::size_t j = 0; j < J; ++j) {
        double time = 0;
        for (std::size_t t = 0; t < T; ++t) {
            s.push_back(x[j * T + t]);
            s.push_back(1 - x[j * T + t]);
            time += x[j * T + t];
            used[t] += in.demand[j * T + t] * x[j * T + t];
        }
        s.push_back(1 - time);
        s.push_back(throughput(in, x, static_cast<int>(j)) - floor[j]);
    }
    for (std::size_t t = 0; t < T; ++t)
        s.push_back(in.capacity[t] - used[t]);
    return s;
}

double logBarrier(const sched::AllocationInput& in, const std::vector<double>& floor, const std::vector<double>& x)
{
    double f = 0;
    for (const double v : barrierSlacks(in, floor, x))
        f += v > 0 ? std::log(v) : -HUGE_VAL;
    return f;
}

// The largest barrier gradient component at x, each scaled by its cell's distance to the nearer bound (0 at the
// analytic centre): the derivative of every log term, summed cell by cell.
double scaledBarrierGradient(const sched::AllocationInput& in, const std::vector<double>& floor,
                             const std::vector<double>& x)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    std::vector<double> used(T, 0.0);
    for (std::size_t k = 0; k < J * T; ++k)
        used[k % T] += in.demand[k] * x[k];
    double largest = 0;
    for (std::size_t j = 0; j < J; ++j) {
        double time = 0;
        for (std::size_t t = 0; t < T; ++t)
            time += x[j * T + t];
        const double thr = throughput(in, x, static_cast<int>(j));
        for (std::size_t t = 0; t < T; ++t) {
            const std::size_t k = j * T + t;
            const double g = 1 / x[k] - 1 / (1 - x[k]) - 1 / (1 - time) - in.demand[k] / (in.capacity[t] - used[t]) +
                             in.rate[k] / (thr - floor[j]);
            largest = std::max(largest, std::abs(g) * std::min(x[k], 1 - x[k]));
        }
    }
    return largest;
}

} // namespace

class TestFloorPoints : public QObject
{
    Q_OBJECT

private slots:
    void greedyFloorPointIsAProof()
    {
        // Worked: two jobs with rates (2, 1) on two one-GPU types. Job 0 asks 1.9 (0.95 of its best rate), so it
        // goes first and takes 0.95 of type 0 (and the margin); job 1 asks 1: the 0.05 left of type 0 gives 0.1,
        // then 0.9 of type 1.
        sched::AllocationInput in{2, 2, {2, 1, 2, 1}, {1, 1, 1, 1}, {1, 1}};
        auto x = sched::greedyFloorPoint(in, {1.9, 1.0}, 1e-9);
        QCOMPARE(x.size(), std::size_t{4});
        QVERIFY(near(x[0], 0.95, 1e-8) && x[1] == 0);
        QVERIFY(near(x[2], 0.05, 1e-7) && near(x[3], 0.9, 1e-7));
        // Job 1 asking 1.06 falls short (after 0.05 of type 0 it would need 0.96 of type 1, more than the 0.95 of
        // its time left)...
        QVERIFY(sched::greedyFloorPoint(in, {1.9, 1.06}, 1e-9).empty());
        // ... nor does a floor above every rate, or a job with no throughput asked for some.
        QVERIFY(sched::greedyFloorPoint(in, {2.5, 0}, 1e-9).empty());
        in.rate[2] = in.rate[3] = 0;
        QVERIFY(sched::greedyFloorPoint(in, {1, 0.5}, 1e-9).empty());
        QVERIFY(!sched::greedyFloorPoint(in, {1, 0}, 1e-9).empty()); // a floor of 0 asks nothing

        // Random 6-job, 3-type problems (demands of 1-2 GPUs, some rates 0, floors around the boundary): every point
        // it returns meets the base constraints, every floor with the margin, and the floor-slack LP agrees the
        // floors leave room (t* > 0); where the LP finds no room, it returns none.
        std::mt19937 rng(23);
        std::uniform_real_distribution<double> rate(0.1, 10), share(0.02, 0.7);
        std::uniform_int_distribution<int> demand(1, 2);
        int found = 0, refused = 0;
        for (int trial = 0; trial < 60; ++trial) {
            sched::AllocationInput p{6, 3, std::vector<double>(18), std::vector<int>(18), {3, 2, 3}};
            for (std::size_t k = 0; k < 18; ++k) {
                p.rate[k] = trial % 3 == 1 && k % 7 == 2 ? 0.0 : rate(rng);
                p.demand[k] = demand(rng);
            }
            std::vector<double> floor(6), w(6, 1.0);
            const double scale = trial % 2 == 0 ? 1.0 : 2.5;
            for (std::size_t j = 0; j < 6; ++j)
                floor[j] = trial % 5 == 4 && j == 3 ? 0.0 : p.rate[j * 3 + 1] * share(rng) * scale;
            const double margin = 1e-9;
            const auto point = sched::greedyFloorPoint(p, floor, margin);
            sched::FloorSlackLp slack(p, w);
            const double t = slack.maxSlack(floor, "test");
            if (point.empty()) {
                ++refused;
                continue;
            }
            ++found;
            QVERIFY(feasible(p, point, 1e-12));
            for (int j = 0; j < 6; ++j)
                QVERIFY(throughput(p, point, j) >= floor[static_cast<std::size_t>(j)] * (1 + margin));
            QVERIFY2(t > 0, qPrintable(QString("trial %1: t* = %2").arg(trial).arg(t)));
        }
        QVERIFY(found > 10 && refused > 10);
    }

    void floorAnalyticCentreMaximisesTheBarrier()
    {
        // Worked: one job, one one-GPU type, rate 1, floor 21/32. The barrier is log x + 3 log(1 - x) (its bound,
        // its time and the GPU) + log(x - 21/32); its derivative 1/x - 3/(1 - x) + 1/(x - 21/32) is 0 at x = 3/4
        // (4/3 + 32/3 = 12 = 3 / (1/4)).
        sched::AllocationInput one{1, 1, {1}, {1}, {1}};
        auto x = sched::floorAnalyticCentre(one, {21.0 / 32});
        QCOMPARE(x.size(), std::size_t{1});
        QVERIFY2(near(x[0], 0.75, 1e-12), qPrintable(QString::number(x[0], 'g', 17)));
        // A floor above the job's rate leaves no interior: no point.
        QVERIFY(sched::floorAnalyticCentre(one, {1.5}).empty());

        // Random 7-job, 3-type problems (two jobs alike, demands of 1-2 GPUs, floors a share of what each job gets
        // from a feasible point): the centre is strictly inside, the barrier's gradient vanishes there, its barrier
        // is at least that of CLP's barrier point, and the two alike jobs get the same row.
        std::mt19937 rng(29);
        std::uniform_real_distribution<double> rate(0.1, 10), share(0.2, 0.9);
        std::uniform_int_distribution<int> demand(1, 2);
        int centred = 0;
        for (int trial = 0; trial < 30; ++trial) {
            const std::size_t J = 7, T = 3;
            sched::AllocationInput in{7, 3, std::vector<double>(J * T), std::vector<int>(J * T), {3, 2, 4}};
            for (std::size_t k = 0; k < J * T; ++k) {
                in.rate[k] = rate(rng);
                in.demand[k] = demand(rng);
            }
            for (std::size_t t = 0; t < T; ++t) { // jobs 0 and 1 alike
                in.rate[T + t] = in.rate[t];
                in.demand[T + t] = in.demand[t];
            }
            std::vector<double> floor(J);
            const auto even = sched::ecosMaxSumPoint(in); // a feasible point to take floors from
            QVERIFY(!even.empty());
            const double s = share(rng);
            for (std::size_t j = 0; j < J; ++j)
                floor[j] = s * std::max(throughput(in, even, static_cast<int>(j)), 1e-3);
            floor[1] = floor[0];
            const auto c = sched::floorAnalyticCentre(in, floor);
            if (c.empty())
                continue; // the greedy start found no room: the policy takes CLP's barrier point then
            ++centred;
            const auto slacks = barrierSlacks(in, floor, c);
            QVERIFY(std::all_of(slacks.begin(), slacks.end(), [](double v) { return v > 0; }));
            const double largest = scaledBarrierGradient(in, floor, c);
            QVERIFY2(largest < 1e-6, qPrintable(QString("trial %1: gradient %2").arg(trial).arg(largest)));
            sched::AllocationLp lp(in.jobs, in.types, in.rate, in.demand, in.capacity);
            lp.setThroughputFloors(floor);
            QVERIFY(lp.solveInterior("test"));
            QVERIFY(logBarrier(in, floor, c) >= logBarrier(in, floor, lp.solution()));
            for (std::size_t t = 0; t < T; ++t)
                QVERIFY(std::abs(c[t] - c[T + t]) < 1e-9);
        }
        QVERIFY(centred > 20);
    }

    void floorPointsHoldOnRandomProblems()
    {
        ORRERY_CHECK_PROPERTY("greedy points meet their floors, analytic centres are inside and stationary", [] {
            const int jobs = *rc::gen::inRange(1, 9), types = *rc::gen::inRange(1, 5);
            const auto J = static_cast<std::size_t>(jobs), T = static_cast<std::size_t>(types);
            sched::AllocationInput in{jobs, types, std::vector<double>(J * T), std::vector<int>(J * T),
                                      std::vector<int>(T)};
            for (std::size_t k = 0; k < J * T; ++k) {
                in.rate[k] = *rc::gen::inRange(0, 5) == 0 ? 0.0 : *rc::gen::inRange(1, 1000) / 100.0;
                in.demand[k] = *rc::gen::inRange(1, 4);
            }
            for (int& c : in.capacity)
                c = *rc::gen::inRange(1, 7);
            for (std::size_t j = 0; j < J; ++j) // a job that runs nowhere leaves no interior at all
                if (std::all_of(in.rate.begin() + static_cast<std::ptrdiff_t>(j * T),
                                in.rate.begin() + static_cast<std::ptrdiff_t>((j + 1) * T),
                                [](double r) { return r == 0; }))
                    in.rate[j * T] = 1;
            std::vector<double> floor(J);
            for (std::size_t j = 0; j < J; ++j) {
                const double best = *std::max_element(in.rate.begin() + static_cast<std::ptrdiff_t>(j * T),
                                                      in.rate.begin() + static_cast<std::ptrdiff_t>((j + 1) * T));
                floor[j] = best * *rc::gen::inRange(0, 101) / 100.0;
            }
            const double margin = 1e-9;
            const auto point = sched::greedyFloorPoint(in, floor, margin);
            if (!point.empty()) {
                RC_ASSERT(feasible(in, point, 1e-12));
                for (int j = 0; j < jobs; ++j)
                    RC_ASSERT(throughput(in, point, j) >= floor[static_cast<std::size_t>(j)] * (1 + margin / 2));
            }
            const auto c = sched::floorAnalyticCentre(in, floor);
            RC_TAG(point.empty() ? "no greedy point" : "greedy point", c.empty() ? "no centre" : "centre");
            if (c.empty())
                return;
            const auto slacks = barrierSlacks(in, floor, c);
            RC_ASSERT(std::all_of(slacks.begin(), slacks.end(), [](double v) { return v > 0; }));
            RC_ASSERT(scaledBarrierGradient(in, floor, c) < 1e-6);
        });
    }

    void floorSlackIsNonNegativeExactlyWhenFloorsAreFeasible()
    {
        // The floor-slack LP's optimum t* >= 0 exactly when the allocation LP meets the floors, on random 6-job,
        // 3-type problems with floors scaled around the boundary; t* = 0 where the floors are met exactly.
        std::mt19937 rng(19);
        std::uniform_real_distribution<double> rate(0.1, 10), share(0.05, 0.6), weight(0.1, 3);
        for (int trial = 0; trial < 30; ++trial) {
            sched::AllocationInput in{6, 3, std::vector<double>(18), std::vector<int>(18, 1), {2, 1, 2}};
            for (double& r : in.rate)
                r = trial % 4 == 1 && &r == &in.rate[5] ? 0.0 : rate(rng);
            std::vector<double> floor(6), w(6);
            for (std::size_t j = 0; j < 6; ++j) {
                floor[j] = in.rate[j * 3] * share(rng) * (trial % 2 == 0 ? 1.0 : 2.5);
                w[j] = weight(rng);
            }
            sched::FloorSlackLp slack(in, w);
            const double t = slack.maxSlack(floor, "test");
            sched::AllocationLp lp(in.jobs, in.types, in.rate, in.demand, in.capacity);
            lp.setThroughputFloors(floor);
            if (std::abs(t) > 1e-7)
                QCOMPARE(lp.solve("test"), t > 0);
            // Floors raised by t* w_j are met exactly at the edge: t* of those floors is 0.
            std::vector<double> edge(6);
            for (std::size_t j = 0; j < 6; ++j)
                edge[j] = floor[j] + t * w[j];
            QVERIFY2(std::abs(slack.maxSlack(edge, "test")) < 1e-7, qPrintable(QString::number(trial)));
        }
    }
};

QTEST_GUILESS_MAIN(TestFloorPoints)
#include "test_floor_points.moc"
