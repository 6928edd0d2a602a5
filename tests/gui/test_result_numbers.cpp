// The numbers the result views show, checked against the run they come from:
// the utilisation chart against the run's allocation intervals on a long run
// (issue 19: the stored Philly FIFO run charted drops to 0-60% where the trace
// never had fewer than 481 of 512 GPUs busy), and the comparison table against
// the Stored runs list and core/metrics (one metrics path).
#include "charts/chart_series.h"
#include "charts/utilisation_chart.h"
#include "hardware/cluster.h"
#include "hardware/cluster_spec.h"
#include "hardware/gpu_catalog.h"
#include "hardware/gpu_layout.h"
#include "io/scenario.h"
#include "metrics/metrics.h"
#include "models/metrics_table_model.h"
#include "models/stored_run_model.h"
#include "results/run_entry.h"
#include "store/run_store.h"
#include "synthetic_run.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <memory>
#include <random>

using namespace orrery;
using namespace orrery::gui;

namespace {

constexpr int kGpus = 512;
constexpr int kAlwaysBusy = 481; // GPUs 0..480 are never idle

std::shared_ptr<const hardware::Cluster> v100Cluster()
{
    const auto& catalog = hardware::GpuCatalog::builtin();
    return std::make_shared<const hardware::Cluster>(hardware::parseClusterSpec("v100:512/8", 8, catalog),
                                                     hardware::Link{}, catalog);
}

/**
 * A Philly-shaped long run on 512 GPUs (about 2,400 h): 481 GPUs run jobs back to back, the other 31
 * alternate between stretches of short jobs with gaps (dense utilisation samples) and stretches of one
 * long job each (all 512 busy, no sample for up to hundreds of hours). Utilisation samples are derived
 * from the intervals as the engine records them: one per instant at which the busy count changes.
 */
std::shared_ptr<sim::RunResult> longRun(const std::string& typeName, std::uint64_t seed)
{
    auto run = std::make_shared<sim::RunResult>();
    run->policy = "fifo";
    run->totalGpus = kGpus;
    run->gpuTypes = {typeName};
    run->gpusByType = {kGpus};
    const double endS = 2437.31 * 3600.0;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> longJob(20 * 3600.0, 300 * 3600.0);
    std::uniform_real_distribution<double> shortJob(0.2 * 3600.0, 6 * 3600.0);
    std::uniform_real_distribution<double> gap(0.05 * 3600.0, 3 * 3600.0);
    int job = 0;
    for (int g = 0; g < kAlwaysBusy; ++g)
        for (double t = 0; t < endS;) {
            const double e = std::min(endS, t + longJob(rng));
            run->intervals.push_back({job++, g, t, e});
            t = e;
        }
    // Stretch boundaries shared by the flexible GPUs: dense churn, then a full stretch, in turn.
    std::vector<double> cuts{0};
    std::uniform_real_distribution<double> stretch(40 * 3600.0, 250 * 3600.0);
    while (cuts.back() < endS)
        cuts.push_back(std::min(endS, cuts.back() + stretch(rng)));
    for (int g = kAlwaysBusy; g < kGpus; ++g)
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
            if (k % 2 == 1) {
                run->intervals.push_back({job++, g, cuts[k], cuts[k + 1]});
                continue;
            }
            for (double t = cuts[k] + gap(rng); t < cuts[k + 1];) {
                const double e = std::min(cuts[k + 1], t + shortJob(rng));
                run->intervals.push_back({job++, g, t, e});
                t = e + gap(rng);
            }
        }
    std::vector<std::pair<double, int>> events;
    for (const auto& i : run->intervals) {
        events.push_back({i.startS, 1});
        events.push_back({i.endS, -1});
    }
    std::sort(events.begin(), events.end());
    int busy = 0;
    run->utilization.push_back({0, 0, {0}});
    for (std::size_t k = 0; k < events.size();) {
        const double t = events[k].first;
        for (; k < events.size() && events[k].first == t; ++k)
            busy += events[k].second;
        if (busy == run->utilization.back().busyGpus)
            continue;
        if (run->utilization.back().timeS == t)
            run->utilization.back() = {t, busy, {busy}};
        else
            run->utilization.push_back({t, busy, {busy}});
    }
    run->makespanS = endS;
    return run;
}

/** Busy share (%) of [t0, t1) straight from the intervals. */
double busyPercent(const sim::RunResult& run, double t0, double t1)
{
    double busyS = 0;
    for (const auto& i : run.intervals)
        busyS += std::max(0.0, std::min(i.endS, t1) - std::max(i.startS, t0));
    return 100.0 * busyS / ((t1 - t0) * run.totalGpus);
}

} // namespace

class TestResultNumbers : public QObject
{
    Q_OBJECT
private slots:
    void utilisationOfALongRunMatchesItsIntervals_data()
    {
        QTest::addColumn<quint64>("seed");
        for (quint64 seed : {1, 2, 3})
            QTest::newRow(qPrintable(QStringLiteral("seed %1").arg(seed))) << seed;
    }
    void utilisationOfALongRunMatchesItsIntervals()
    {
        QFETCH(quint64, seed);
        const auto cluster = v100Cluster();
        const std::string type = cluster->catalog().types()[static_cast<std::size_t>(cluster->presentTypes()[0])].name;
        const auto run = longRun(type, seed);
        QVERIFY2(run->utilization.size() > 1500, "the run must be long enough to be averaged into buckets");

        const int buckets = 1500;
        const QVector<QPointF> pts = utilisationPoints(*run, -1, kGpus, buckets);
        QCOMPARE(pts.size(), buckets);
        const double bucketS = run->makespanS / buckets;
        double lowest = 100;
        for (int b = 0; b < buckets; ++b) {
            const double want = busyPercent(*run, b * bucketS, (b + 1) * bucketS);
            QVERIFY2(std::abs(pts[b].y() - want) < 1e-6,
                     qPrintable(QStringLiteral("bucket %1 (%2 h): chart %3%, intervals %4%")
                                    .arg(b)
                                    .arg(pts[b].x(), 0, 'f', 2)
                                    .arg(pts[b].y())
                                    .arg(want)));
            lowest = std::min(lowest, pts[b].y());
        }
        QVERIFY(lowest >= 100.0 * kAlwaysBusy / kGpus - 1e-6);

        // The chart plots those points: all GPUs and the one type.
        RunEntry entry;
        entry.name = QStringLiteral("fifo");
        entry.result = run;
        entry.cluster = cluster;
        UtilisationChart chart;
        chart.setRun(&entry);
        QCOMPARE(chart.seriesCount(), 2);
        for (auto* s : chart.chartView()->chart()->series()) {
            const auto* line = qobject_cast<QLineSeries*>(s);
            QVERIFY(line);
            const QList<QPointF> plotted = line->points();
            QCOMPARE(plotted.size(), pts.size());
            for (int b = 0; b < buckets; ++b)
                QVERIFY(std::abs(plotted[b].y() - pts[b].y()) < 1e-9);
        }
    }

    /**
     * The throughput chart under the utilisation chart: samples per second where the rates say (goodput runs),
     * else the jobs' progress per hour; the plotted steps are core's throughputOverTime.
     */
    void throughputChartFollowsTheRates()
    {
        auto run = std::make_shared<sim::RunResult>();
        run->policy = "sia";
        run->jobs.resize(2);
        run->makespanS = 150;
        // job 0: 50 samples/s over [0, 100]; job 1: 20 samples/s over [50, 150] at work rate 2.
        run->rateSegments = {{0, 0, 100, 1.0, 50.0}, {1, 50, 150, 2.0, 20.0}};
        QVERIFY(hasSampleRates(*run));
        const auto series = metrics::throughputOverTime(*run);
        const QVector<QPointF> pts = throughputPoints(series, run->makespanS, true);
        const auto levelAt = [&](double hours) {
            double y = -1;
            for (const auto& p : pts)
                if (p.x() <= hours + 1e-12)
                    y = p.y();
            return y;
        };
        QCOMPARE(levelAt(10 / 3600.0), 50.0);
        QCOMPARE(levelAt(60 / 3600.0), 70.0);
        QCOMPARE(levelAt(120 / 3600.0), 20.0);
        QCOMPARE(pts.back().x(), 150 / 3600.0);
        // Without samples: each job's work counted as 1, per hour. Job 0 did 100 units in 100 s: 36 jobs/h.
        const QVector<QPointF> progress = throughputPoints(series, run->makespanS, false);
        QCOMPARE(progress[1].y(), 36.0);

        RunEntry entry;
        entry.name = QStringLiteral("sia");
        entry.result = run;
        UtilisationChart chart;
        chart.setRun(&entry);
        QVERIFY(!chart.throughputView()->isHidden());
        const auto plotted = chart.throughputView()->chart()->series();
        QCOMPARE(plotted.size(), 1);
        QCOMPARE(qobject_cast<QLineSeries*>(plotted[0])->points().size(), pts.size());
        QCOMPARE(plotted[0]->name(), QStringLiteral("samples/s"));
        run->rateSegments[0].samplesPerS = 0;
        run->rateSegments[1].samplesPerS = 0;
        QVERIFY(!hasSampleRates(*run));
        chart.setRun(&entry);
        QCOMPARE(chart.throughputView()->chart()->series()[0]->name(), QStringLiteral("jobs' work per hour"));
        chart.setRun(nullptr);
        QVERIFY(chart.throughputView()->isHidden());
    }

    /**
     * One run, shown in Compare runs (MetricsTableModel) and in Stored runs (StoredRunModel): the same
     * texts, and the numbers core/metrics computes (Gavel-compat exclusions left out of the mean JCT,
     * p95 interpolated, slowdown and finish-time fairness apart).
     */
    void compareAndStoredRunsAgree()
    {
        const io::Scenario scenario = io::defaultScenario();
        auto run = test::syntheticRun(scenario.cluster, 90, 5, "fifo");
        for (std::size_t i = 0; i < run->jobs.size(); i += 7)
            run->jobs[i].excludedFromAverage = true; // as Gavel compatibility marks some multi-GPU jobs
        for (auto& j : run->jobs)
            j.demand = j.gpus; // finish-time fairness needs the demand (the fair share of a busy cluster)
        for (std::size_t i = 3; i < run->jobs.size(); i += 11)
            run->jobs[i].idealS *= 0.5; // slowdown 2: slowdown and rho are different numbers
        run->jobs.back().endS = -1;     // one job unfinished
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("runs.sqlite")).toStdString();
        store::RunInfo info;
        info.scenarioName = scenario.name;
        info.scenarioJson = io::scenarioToJsonText(scenario);
        info.policy = run->policy;
        info.layout = hardware::gpuLayoutOf(scenario.cluster);
        store::RunStore db(path);
        db.storeRun(info, *run);

        StoredRunModel stored;
        stored.setRecords(db.listRuns());
        QCOMPARE(stored.rowCount(), 1);
        MetricsTableModel compared;
        RunEntry entry;
        entry.name = QStringLiteral("fifo");
        entry.result = run;
        compared.setRuns({&entry});
        QCOMPARE(compared.rowCount(), 1);
        const auto shown = [](const QAbstractItemModel& m, int column) { return m.index(0, column).data().toString(); };
        QCOMPARE(shown(stored, StoredRunModel::MeanJct), shown(compared, MetricsTableModel::MeanJct));
        QCOMPARE(shown(stored, StoredRunModel::Makespan), shown(compared, MetricsTableModel::Makespan));
        QCOMPARE(shown(stored, StoredRunModel::Cost), shown(compared, MetricsTableModel::Cost));
        QCOMPARE(shown(stored, StoredRunModel::Jobs),
                 QStringLiteral("%1/%2").arg(shown(compared, MetricsTableModel::Finished),
                                             shown(compared, MetricsTableModel::Jobs)));

        const metrics::Summary s = metrics::summarize(*run);
        const auto raw = [&](int column) { return compared.index(0, column).data(Qt::UserRole).toDouble(); };
        QCOMPARE(raw(MetricsTableModel::Finished), double(s.jobsCompleted));
        QCOMPARE(raw(MetricsTableModel::MeanJct), s.avgJctS);
        QCOMPARE(raw(MetricsTableModel::MedianJct), s.p50JctS);
        QCOMPARE(raw(MetricsTableModel::P95Jct), s.p95JctS);
        QCOMPARE(raw(MetricsTableModel::MeanQueue), s.avgQueueS);
        QCOMPARE(raw(MetricsTableModel::Utilisation), s.utilization);
        QCOMPARE(raw(MetricsTableModel::Slowdown), s.avgSlowdown);
        QCOMPARE(raw(MetricsTableModel::FinishTimeFairness), s.avgFtfRho);
        QCOMPARE(raw(MetricsTableModel::Cost), s.costUsd);
        // Independent of core: the exclusions are out of the mean JCT, the p95 is interpolated.
        std::vector<double> jct;
        for (const auto& j : run->jobs)
            if (j.finished() && !j.excludedFromAverage)
                jct.push_back(j.jctS());
        double sum = 0;
        for (double v : jct)
            sum += v;
        QVERIFY(std::abs(raw(MetricsTableModel::MeanJct) - sum / jct.size()) < 1e-6);
        std::sort(jct.begin(), jct.end());
        const double rank = 0.95 * static_cast<double>(jct.size() - 1);
        const auto lo = static_cast<std::size_t>(rank);
        const double p95 = jct[lo] + (jct[lo + 1] - jct[lo]) * (rank - static_cast<double>(lo));
        QVERIFY(std::abs(raw(MetricsTableModel::P95Jct) - p95) < 1e-6);
        // Slowdown and finish-time fairness are named apart and are not the same number here.
        QVERIFY(compared.headerData(MetricsTableModel::Slowdown, Qt::Horizontal).toString() !=
                compared.headerData(MetricsTableModel::FinishTimeFairness, Qt::Horizontal).toString());
        QVERIFY(std::abs(s.avgSlowdown - s.avgFtfRho) > 1e-3);
        QVERIFY(std::abs(metricValues(*run, CdfMetric::FinishTimeFairness).front() -
                         metrics::finishTimeFairness(*run).front()) < 1e-12);
    }
};

QTEST_MAIN(TestResultNumbers)
#include "test_result_numbers.moc"
