#include "test_support.h"

#include "metrics/metrics.h"

using namespace orrery;

namespace {

sim::JobRecord job(double arrival, double start, double end, double ideal, int demand)
{
    sim::JobRecord r;
    r.arrivalS = arrival;
    r.startS = start;
    r.endS = end;
    r.idealS = ideal;
    r.demand = demand;
    r.gpus = demand;
    return r;
}

} // namespace

class TestMetrics : public QObject
{
    Q_OBJECT
private slots:
    void percentilesInterpolate()
    {
        QCOMPARE(metrics::percentile({}, 50), 0.0);
        QCOMPARE(metrics::percentile({4, 1, 3, 2}, 50), 2.5);
        QCOMPARE(metrics::percentile({1, 2, 3, 4, 5}, 100), 5.0);
        QCOMPARE(metrics::percentile({10, 20}, 95), 19.5);
    }

    void jainAndCdf()
    {
        QCOMPARE(metrics::jainIndex({1, 1, 1, 1}), 1.0);
        QCOMPARE(metrics::jainIndex({1, 0, 0, 0}), 0.25);
        const auto c = metrics::cdf({3, 1, 2, 2});
        QCOMPARE(c.size(), std::size_t(3));
        QCOMPARE(c[1].first, 2.0);
        QCOMPARE(c[1].second, 0.75);
    }

    void summaryOfAHandRun()
    {
        // 2 GPUs (one type at $3.6/h). Job a: arrives 0, runs 0-100 on 2 GPUs. Job b: arrives 50, runs 100-300
        // on 1 GPU. JCT 100 and 250; queueing 0 and 50; makespan 300; busy 200 + 200 = 400 GPU-s of 600.
        sim::RunResult r;
        r.totalGpus = 2;
        r.gpuTypes = {"x"};
        r.gpusByType = {2};
        r.priceUsdPerHourByType = {3.6};
        r.gpuType = {0, 0};
        r.jobs = {job(0, 0, 100, 100, 2), job(50, 100, 300, 200, 1)};
        r.jobs[0].gpuSeconds = 200;
        r.jobs[0].costUsd = 0.2;
        r.jobs[1].gpuSeconds = 200;
        r.jobs[1].costUsd = 0.2;
        r.intervals = {{0, 0, 0, 100}, {0, 1, 0, 100}, {1, 0, 100, 300}};
        r.makespanS = 300;
        const auto s = metrics::summarize(r);
        QCOMPARE(s.jobsCompleted, 2);
        QCOMPARE(s.avgJctS, 175.0);
        QCOMPARE(s.avgQueueS, 25.0);
        QCOMPARE(s.utilization, 400.0 / 600.0);
        QCOMPARE(s.gpuHours, 400.0 / 3600);
        const auto byType = metrics::usageByType(r);
        QCOMPARE(byType[0].costUsd, 400.0 / 3600 * 3.6);

        // Finish-time fairness. Active jobs: 1 on [0,50), 2 on [50,100), 1 on [100,300].
        // a: N = (50*1 + 50*2)/100 = 1.5; a share of 2/1.5 = 1.33 GPUs of its 2 -> T_id = 100 * 1.5 = 150, rho = 2/3.
        // b: N = (50*2 + 200*1)/250 = 1.2; share 2/1.2 >= 1 -> T_id = 200, rho = 250/200 = 1.25.
        const auto rho = metrics::finishTimeFairness(r);
        QCOMPARE(rho.size(), std::size_t(2));
        QVERIFY(std::abs(rho[0] - 2.0 / 3) < 1e-12);
        QVERIFY(std::abs(rho[1] - 1.25) < 1e-12);
    }

    void excludedJobsLeaveTheAverage()
    {
        sim::RunResult r;
        r.totalGpus = 1;
        r.jobs = {job(0, 0, 100, 100, 1), job(0, 100, 400, 300, 1)};
        r.jobs[1].excludedFromAverage = true;
        QCOMPARE(metrics::summarize(r).avgJctS, 100.0);
        QCOMPARE(metrics::summarize(r).jobsCompleted, 2);
    }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "test_metrics.moc"
