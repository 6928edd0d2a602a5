// Apps in the metrics (docs/simulator.md, "Apps"): per-app finish-time fairness with T_id at completion and N_avg
// over the app's lifetime, jobs without an app as their own apps, dropped and unfinished jobs; the placement score
// 1/S per allocation.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "metrics/apps.h"

using namespace orrery;

namespace {

sim::JobRecord job(std::string id, std::string app, double arrival, double end, double idealS, int demand)
{
    sim::JobRecord j;
    j.id = std::move(id);
    j.app = std::move(app);
    j.arrivalS = arrival;
    j.startS = arrival;
    j.endS = end;
    j.idealS = idealS;
    j.demand = demand;
    j.gpuSeconds = (end - arrival) * demand;
    return j;
}

} // namespace

class TestAppMetrics : public QObject
{
    Q_OBJECT

private slots:
    void rhoByHand()
    {
        sim::RunResult r;
        r.totalGpus = 4;
        // App x: two jobs, [0, 200]; job z alone, [0, 100]. N_avg(x) = (2 x 100 + 1 x 100) / 200 = 1.5;
        // B_x = 50 x 2 + 100 x 2 = 300 GPU-s over min(4, 4) GPUs: T_cluster 75, T_id 112.5, rho 200 / 112.5.
        // z: N_avg 2, T_cluster 100, T_id 200, rho 0.5.
        r.jobs = {job("j0", "x", 0, 100, 50, 2), job("j1", "x", 0, 200, 100, 2), job("z", "", 0, 100, 100, 1)};
        const auto apps = metrics::appRecords(r);
        QCOMPARE(apps.size(), std::size_t(2));
        QCOMPARE(apps[0].app, std::string("x"));
        QCOMPARE(apps[0].jobs, 2);
        QCOMPARE(apps[0].endS, 200.0);
        QCOMPARE(apps[0].nAvg, 1.5);
        QCOMPARE(apps[0].tClusterS, 75.0);
        QCOMPARE(apps[0].rho, 200.0 / 112.5);
        QCOMPARE(apps[0].gpuSeconds, 600.0);
        QCOMPARE(apps[1].app, std::string("z"));
        QCOMPARE(apps[1].nAvg, 2.0);
        QCOMPARE(apps[1].rho, 0.5);
        QCOMPARE(metrics::appFinishTimeFairness(r), (std::vector<double>{200.0 / 112.5, 0.5}));
    }

    void droppedAndUnfinishedJobs()
    {
        sim::RunResult r;
        r.totalGpus = 8;
        auto dropped = job("d", "x", 0, -1, 100, 1);
        dropped.droppedS = 50;
        auto open = job("o", "y", 0, -1, 100, 1);
        auto gone = job("g", "w", 0, -1, 100, 1);
        gone.droppedS = 10;
        // x ends with its finished job (a job successive halving stopped early is one with less work: it
        // finishes); y has an unfinished job; w has only a dropped job: neither finishes.
        r.jobs = {job("f", "x", 0, 100, 100, 1), dropped, open, gone};
        const auto apps = metrics::appRecords(r);
        QCOMPARE(apps.size(), std::size_t(3));
        QVERIFY(apps[0].finished());
        QCOMPARE(apps[0].endS, 100.0);
        QVERIFY(!apps[1].finished());
        QCOMPARE(apps[1].rho, -1.0);
        QVERIFY(!apps[2].finished());
        // x saw y active all along and w for its first 10 s: N_avg = (3 x 10 + 2 x 90) / 100.
        QCOMPARE(apps[0].nAvg, 2.1);
        QCOMPARE(metrics::appFinishTimeFairness(r).size(), std::size_t(1));
    }

    void placementScorePerAllocation()
    {
        const auto cluster = test::makeCluster({{"v100-16gb", 2, 4}});
        auto j = test::fixedJob("v", 0, 2, 100);
        j.arch = "vgg16";
        io::ScenarioOptions o;
        o.locality.model = "by_span";
        const auto w = test::prepare(cluster, {j}, o);
        sim::RunResult r;
        r.totalGpus = 8;
        r.jobs = {job("v", "", 0, 300, 100, 2)};
        // [0, 100) on GPUs 0, 1 (one node: 1); [100, 200) GPU 0 kept, GPU 4 of the other node (network class,
        // nodes without a rack: 1.1 / 1.6); [200, 300) back on 0, 1 (one node again).
        r.intervals = {{0, 0, 0, 300}, {0, 1, 0, 100}, {0, 4, 100, 200}, {0, 1, 200, 300}};
        const auto scores = metrics::placementScores(r, w);
        QCOMPARE(scores.size(), std::size_t(3));
        QCOMPARE(scores[0], 1.0);
        QCOMPARE(scores[1], 1.1 / 1.6);
        QCOMPARE(scores[2], 1.0);
    }
};

QTEST_GUILESS_MAIN(TestAppMetrics)
#include "test_app_metrics.moc"
