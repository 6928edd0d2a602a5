#include "results/cluster_at_time_view.h"
#include "results/cluster_snapshot.h"
#include "results/palette.h"
#include "results/wait_reason_text.h"
#include "timeline/timeline_geometry.h"
#include "timeline/timeline_index.h"
#include "timeline/timeline_rows.h"

#include "io/scenario.h"

#include <QListWidget>
#include <QSignalSpy>
#include <QTest>

using namespace orrery;
using namespace orrery::gui;

class TestTimeline : public QObject
{
    Q_OBJECT
private slots:
    void mapping_data()
    {
        QTest::addColumn<double>("viewStart");
        QTest::addColumn<double>("viewEnd");
        QTest::addColumn<int>("width");
        QTest::addColumn<double>("time");
        QTest::addColumn<double>("x");
        QTest::newRow("fit, start") << 0.0 << 1000.0 << 500 << 0.0 << 0.0;
        QTest::newRow("fit, middle") << 0.0 << 1000.0 << 500 << 500.0 << 250.0;
        QTest::newRow("fit, end") << 0.0 << 1000.0 << 500 << 1000.0 << 500.0;
        QTest::newRow("zoomed") << 200.0 << 300.0 << 1000 << 250.0 << 500.0;
        QTest::newRow("zoomed, left of window") << 200.0 << 300.0 << 1000 << 100.0 << -1000.0;
        QTest::newRow("zoomed, right of window") << 200.0 << 300.0 << 1000 << 400.0 << 2000.0;
    }
    void mapping()
    {
        QFETCH(double, viewStart);
        QFETCH(double, viewEnd);
        QFETCH(int, width);
        QFETCH(double, time);
        QFETCH(double, x);
        TimelineGeometry g = TimelineGeometry::fit(0, 1000, width);
        g.viewStartS = viewStart;
        g.viewEndS = viewEnd;
        QCOMPARE(g.timeToX(time), x);
        QCOMPARE(g.xToTime(x), time);
    }

    void zoom_data()
    {
        QTest::addColumn<double>("anchorX");
        QTest::addColumn<double>("factor");
        QTest::addColumn<double>("expectStart");
        QTest::addColumn<double>("expectEnd");
        // Bounds [0, 1000] over 1000 px.
        QTest::newRow("2x at centre") << 500.0 << 2.0 << 250.0 << 750.0;
        QTest::newRow("2x at left edge") << 0.0 << 2.0 << 0.0 << 500.0;
        QTest::newRow("2x at right edge") << 1000.0 << 2.0 << 500.0 << 1000.0;
        QTest::newRow("4x at 100px") << 100.0 << 4.0 << 75.0 << 325.0;
        QTest::newRow("zoom out past bounds clamps") << 300.0 << 0.25 << 0.0 << 1000.0;
        QTest::newRow("huge zoom stops at min span") << 500.0 << 1e12 << 500.0 - 0.0005 << 500.0 + 0.0005;
    }
    void zoom()
    {
        QFETCH(double, anchorX);
        QFETCH(double, factor);
        QFETCH(double, expectStart);
        QFETCH(double, expectEnd);
        const TimelineGeometry g = TimelineGeometry::fit(0, 1000, 1000).zoomedAt(anchorX, factor);
        QVERIFY(qAbs(g.viewStartS - expectStart) < 1e-9);
        QVERIFY(qAbs(g.viewEndS - expectEnd) < 1e-9);
        QVERIFY(g.viewStartS >= g.boundsStartS && g.viewEndS <= g.boundsEndS);
    }

    void zoomKeepsAnchor()
    {
        TimelineGeometry g = TimelineGeometry::fit(0, 86400, 1200);
        for (double x : {0.0, 37.0, 600.0, 1111.0}) {
            const double before = g.xToTime(x);
            const TimelineGeometry z = g.zoomedAt(x, 3.0);
            QVERIFY(qAbs(z.xToTime(x) - before) < 1e-6);
            g = z;
        }
    }

    void pan_data()
    {
        QTest::addColumn<double>("dx");
        QTest::addColumn<double>("expectStart");
        QTest::newRow("right 100px") << 100.0 << 300.0; // window [250,750] at 0.5 s/px
        QTest::newRow("left 100px") << -100.0 << 200.0;
        QTest::newRow("left past start clamps") << -1000.0 << 0.0;
        QTest::newRow("right past end clamps") << 5000.0 << 500.0;
    }
    void pan()
    {
        QFETCH(double, dx);
        QFETCH(double, expectStart);
        const TimelineGeometry g = TimelineGeometry::fit(0, 1000, 1000).zoomedAt(500, 2).panned(dx);
        QCOMPARE(g.viewStartS, expectStart);
        QCOMPARE(g.spanS(), 500.0);
    }

    void emptyRunFitsOneSecond()
    {
        const TimelineGeometry g = TimelineGeometry::fit(0, 0, 100);
        QCOMPARE(g.spanS(), 1.0);
        QVERIFY(!g.isZoomed());
    }

    void bars_data()
    {
        // One GPU, intervals (job, start, end); window [0, 100] over 100 px => 1 s per px.
        QTest::addColumn<QVector<QVector<double>>>("intervals");
        QTest::addColumn<QVector<QVector<int>>>("expect"); // x0, x1, job
        QTest::newRow("two wide bars") << QVector<QVector<double>>{{0, 10, 20}, {1, 30, 50}}
                                       << QVector<QVector<int>>{{10, 20, 0}, {30, 50, 1}};
        QTest::newRow("sub-pixel bars in one column merge")
            << QVector<QVector<double>>{{0, 10.1, 10.2}, {1, 10.3, 10.4}, {2, 10.5, 10.6}}
            << QVector<QVector<int>>{{10, 11, 0}};
        QTest::newRow("touching bars of one job join")
            << QVector<QVector<double>>{{3, 0, 5}, {3, 5, 9}} << QVector<QVector<int>>{{0, 9, 3}};
        QTest::newRow("culled outside the window")
            << QVector<QVector<double>>{{0, -50, -10}, {1, 40, 60}, {2, 150, 200}}
            << QVector<QVector<int>>{{40, 60, 1}};
        QTest::newRow("clipped at the window edges")
            << QVector<QVector<double>>{{0, -5, 5}, {1, 95, 120}} << QVector<QVector<int>>{{0, 5, 0}, {95, 100, 1}};
        QTest::newRow("bar after a sub-pixel one starts in the next column")
            << QVector<QVector<double>>{{0, 10.2, 10.4}, {1, 10.6, 20}}
            << QVector<QVector<int>>{{10, 11, 0}, {11, 20, 1}};
    }
    void bars()
    {
        QFETCH(QVector<QVector<double>>, intervals);
        QFETCH(QVector<QVector<int>>, expect);
        auto run = std::make_shared<sim::RunResult>();
        run->totalGpus = 1;
        run->jobs.resize(4);
        for (const auto& i : intervals)
            run->intervals.push_back({static_cast<int>(i[0]), 0, i[1], i[2]});
        const TimelineIndex index(run);
        const auto bars = index.bars(0, TimelineGeometry::fit(0, 100, 100));
        QCOMPARE(static_cast<int>(bars.size()), expect.size());
        for (std::size_t k = 0; k < bars.size(); ++k) {
            const auto& e = expect[static_cast<qsizetype>(k)];
            QCOMPARE(bars[k], (TimelineBar{e[0], e[1], e[2]}));
        }
    }

    void manyIntervalsStayBounded()
    {
        // 100,000 intervals on one GPU over 1000 px: at most one bar per pixel column.
        auto run = std::make_shared<sim::RunResult>();
        run->totalGpus = 1;
        run->jobs.resize(100000);
        for (int i = 0; i < 100000; ++i)
            run->intervals.push_back({i, 0, i * 1.0, i * 1.0 + 0.9});
        const TimelineIndex index(run);
        const auto bars = index.bars(0, TimelineGeometry::fit(0, 100000, 1000));
        QVERIFY(bars.size() <= 1000);
        QVERIFY(bars.size() >= 999);
        const auto visible = index.visible(0, 500.5, 510);
        QCOMPARE(static_cast<int>(visible.size()), 10); // 500 (ends 500.9) .. 509
        QCOMPARE(index.intervalAt(0, 42.5), 42);
        QCOMPARE(index.intervalAt(0, 42.95), -1);
    }

    void rowsGroupByType()
    {
        const io::Scenario s = io::defaultScenario();
        const TimelineRows rows = TimelineRows::fromCluster(&s.cluster, s.cluster.totalGpus());
        QCOMPARE(static_cast<int>(rows.rows.size()), s.cluster.totalGpus());
        QCOMPARE(rows.groups.size(), s.cluster.presentTypes().size());
        int covered = 0;
        for (const auto& g : rows.groups)
            covered += g.rowCount;
        QCOMPARE(covered, s.cluster.totalGpus());
        // Every GPU exactly once.
        std::vector<int> seen(static_cast<std::size_t>(s.cluster.totalGpus()), 0);
        for (const auto& r : rows.rows)
            ++seen[static_cast<std::size_t>(r.gpu)];
        QVERIFY(std::all_of(seen.begin(), seen.end(), [](int n) { return n == 1; }));
        // A run on an unknown, larger cluster gets a plain group for the extra GPUs.
        const TimelineRows bigger = TimelineRows::fromCluster(&s.cluster, s.cluster.totalGpus() + 4);
        QCOMPARE(static_cast<int>(bigger.rows.size()), s.cluster.totalGpus() + 4);
    }

    void snapshotAtTime()
    {
        auto run = std::make_shared<sim::RunResult>();
        run->totalGpus = 3;
        run->jobs.resize(4);
        auto job = [](const char* id, double arrival, double start, double end) {
            sim::JobRecord r;
            r.id = id;
            r.arrivalS = arrival;
            r.startS = start;
            r.endS = end;
            return r;
        };
        run->jobs[0] = job("a", 0, 0, 100);
        run->jobs[1] = job("b", 10, 50, 200);
        run->jobs[2] = job("c", 20, 150, 300);
        run->jobs[3] = job("d", 500, -1, -1);
        run->intervals = {{0, 0, 0, 100}, {0, 1, 0, 100}, {1, 2, 50, 200}, {2, 0, 150, 300}};
        const TimelineIndex index(run);
        const ClusterSnapshot at60 = ClusterSnapshot::at(index, 60);
        QCOMPARE(at60.jobOnGpu, (std::vector<int>{0, 0, 1}));
        QCOMPARE(at60.running, (std::vector<int>{0, 1}));
        QCOMPARE(at60.queued, (std::vector<int>{2}));
        QCOMPARE(at60.busyGpus(), 3);
        const ClusterSnapshot at120 = ClusterSnapshot::at(index, 120);
        QCOMPARE(at120.jobOnGpu, (std::vector<int>{-1, -1, 1}));
        QCOMPARE(at120.queued, (std::vector<int>{2}));
        const ClusterSnapshot at600 = ClusterSnapshot::at(index, 600);
        QCOMPARE(at600.queued, (std::vector<int>{3})); // arrived, never ran
    }

    void queuedJobsSayWhyTheyWait()
    {
        // Two V100s and two A100s; a holds both V100s over [0, 100), b both A100s over [0, 300); c waits from 10
        // with FIFO's reason, d from 20 with none (a policy that explains nothing).
        auto run = std::make_shared<sim::RunResult>();
        run->totalGpus = 4;
        run->gpuTypes = {"v100-16gb", "a100-40gb-sxm"};
        run->gpusByType = {2, 2};
        run->gpuType = {0, 0, 1, 1};
        run->jobs.resize(4);
        auto job = [](const char* id, double arrival, double start, double end, int demand) {
            sim::JobRecord r;
            r.id = id;
            r.arrivalS = arrival;
            r.startS = start;
            r.endS = end;
            r.demand = demand;
            return r;
        };
        run->jobs[0] = job("a", 0, 0, 100, 2);
        run->jobs[1] = job("b", 0, 0, 300, 2);
        run->jobs[2] = job("c", 10, 100, 400, 2);
        run->jobs[3] = job("d", 20, 300, 500, 2);
        run->intervals = {{0, 0, 0, 100},   {0, 1, 0, 100},   {1, 2, 0, 300},   {1, 3, 0, 300},
                          {2, 0, 100, 400}, {2, 1, 100, 400}, {3, 2, 300, 500}, {3, 3, 300, 500}};
        run->jobEvents = {{10, 2, sim::JobEventKind::Reason, "first in FIFO order; waits for room: needs 2 x V100"}};
        run->makespanS = 500;

        const metrics::WaitReasons reasons(*run);
        const TimelineIndex index(run);
        const ClusterSnapshot at50 = ClusterSnapshot::at(index, 50);
        QCOMPARE(freeGpusByType(*run, at50), (std::vector<int>{0, 0}));
        QCOMPARE(waitReasonText(*run, reasons, at50, 2),
                 QStringLiteral("first in FIFO order; waits for room: needs 2 x V100; no GPU free now"));
        QCOMPARE(waitReasonText(*run, reasons, at50, 3),
                 QStringLiteral("the policy gave no reason; asks 2 GPUs; no GPU free now"));
        // At 150 c runs on the V100s; d still waits for the A100s b holds.
        const ClusterSnapshot at150 = ClusterSnapshot::at(index, 150);
        QCOMPARE(at150.queued, (std::vector<int>{3}));
        // At 350 a and b are gone, c holds both V100s, d both A100s: nothing waits; at 450 c has ended.
        const ClusterSnapshot at450 = ClusterSnapshot::at(index, 450);
        QCOMPARE(freeGpusByType(*run, at450), (std::vector<int>{2, 0}));
        QCOMPARE(waitReasonText(*run, reasons, at450, 3),
                 QStringLiteral("the policy gave no reason; asks 2 GPUs; free now: 2 x v100-16gb"));

        // The view lists them with their reasons, and a click names the job.
        RunEntry entry;
        entry.result = run;
        ClusterAtTimeView view;
        view.setRun(&entry);
        view.setTime(50);
        QCOMPARE(view.queueList()->count(), 2);
        QVERIFY(view.queueList()->item(0)->text().contains(QStringLiteral("first in FIFO order")));
        QVERIFY(view.queueList()->item(1)->text().contains(QStringLiteral("the policy gave no reason")));
        QSignalSpy clicked(&view, &ClusterAtTimeView::jobClicked);
        emit view.queueList()->itemClicked(view.queueList()->item(1));
        QCOMPARE(clicked.count(), 1);
        QCOMPARE(clicked.at(0).at(0).toInt(), 3);
    }

    void durationsAndSteps()
    {
        QCOMPARE(formatDuration(5), QStringLiteral("5 s"));
        QCOMPARE(formatDuration(125), QStringLiteral("2m 05s"));
        QCOMPARE(formatDuration(3600 * 2 + 60 * 5), QStringLiteral("2h 05m"));
        QCOMPARE(niceTimeStep(3600, 6), 600.0);
        QCOMPARE(niceTimeStep(0.5, 5), 0.1);
        QCOMPARE(niceTimeStep(86400 * 30, 10), 3 * 86400.0);
    }
};

QTEST_MAIN(TestTimeline)
#include "test_timeline.moc"
