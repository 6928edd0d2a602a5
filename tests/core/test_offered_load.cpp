// The offered load of a job list on a cluster (workload/offered_load.h), which `orrery-cli import` reports.
#include "test_support.h"

#include "workload/offered_load.h"

#include <QTest>

using namespace orrery;

namespace {

workload::Job fixed(double arrivalS, int gpus, double durationS)
{
    workload::Job j;
    j.arrivalS = arrivalS;
    j.gpus = gpus;
    j.durationS = durationS;
    return j;
}

} // namespace

class TestOfferedLoad : public QObject
{
    Q_OBJECT
private slots:
    void gpuSecondsOverCapacityDuringArrivals()
    {
        workload::Job serverless;
        serverless.kind = workload::JobKind::Serverless;
        serverless.arrivalS = 400; // widens the arrival span, adds no known demand
        const std::vector<workload::Job> jobs{fixed(100, 2, 100), fixed(200, 1, 50), serverless};
        const auto load = workload::offeredLoad(jobs, 5);
        QCOMPARE(load.demandGpuS, 250.0);
        QCOMPARE(load.arrivalSpanS, 300.0);
        QCOMPARE(load.jobsCounted, 2);
        QCOMPARE(load.jobsWithoutDuration, 1);
        QVERIFY(load.factor);
        QCOMPARE(*load.factor, 250.0 / (5 * 300.0));
        // Twice the GPUs, half the load.
        QCOMPARE(*workload::offeredLoad(jobs, 10).factor, *load.factor / 2);
    }

    void undefinedWithoutDurationsOrSpan()
    {
        QVERIFY(!workload::offeredLoad({}, 8).factor);
        QVERIFY(!workload::offeredLoad({fixed(5, 1, 10), fixed(5, 4, 10)}, 8).factor); // all arrive at once
        workload::Job table = fixed(0, 1, 0);                                          // Gavel table job: iterations
        table.iterations = 1000;
        QVERIFY(!workload::offeredLoad({table, fixed(10, 1, 0)}, 8).factor);
        QVERIFY(!workload::offeredLoad({fixed(0, 1, 10), fixed(10, 1, 10)}, 0).factor);
    }
};

QTEST_GUILESS_MAIN(TestOfferedLoad)
#include "test_offered_load.moc"
