// The Sweeps tab (issue 18) on a small real sweep (data/sweeps/policies-by-size.json cut to 8 points): the table
// holds the stored points and core's metrics of their runs, the CSV carries units, heat-map cells are the means of
// their points, lines and the Pareto front come from the same points, double-clicking a point opens its run, a sweep
// started from the GUI can be cancelled and resumed without running a point twice, and a bad spec is reported with
// its file and JSON path.
#include "main_window.h"

#include "async/job_runner.h"
#include "charts/chart_series.h"
#include "charts/tradeoff_chart.h"
#include "export/csv_export.h"
#include "io/scenario.h"
#include "metrics/metrics.h"
#include "painted_pixels.h"
#include "results/run_library.h"
#include "store/run_store.h"
#include "store/sqlite.h"
#include "store/sweep_records.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"
#include "sweeps/sweep_heat_map_grid.h"
#include "sweeps/sweep_heat_map_view.h"
#include "sweeps/sweep_lines.h"
#include "sweeps/sweep_list_model.h"
#include "sweeps/sweep_points_model.h"
#include "sweeps/sweep_run_controller.h"
#include "sweeps/sweeps_panel.h"
#include "test_support.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <fstream>
#include <map>

using namespace orrery;
using namespace orrery::gui;

namespace {

/** The data/sweeps example cut small: two RTX group sizes x FIFO and SJF x two seeds. */
nlohmann::json smallSpec()
{
    std::ifstream in(test::sourcePath("data/sweeps/policies-by-size.json"));
    nlohmann::json spec = nlohmann::json::parse(in);
    spec["name"] = "policies-by-size-small";
    for (auto& axis : spec["axes"]) {
        if (axis["kind"] == "node_count")
            axis["values"] = {1, 3};
        if (axis["kind"] == "policy")
            axis["values"] = {"fifo", "sjf"};
        if (axis["kind"] == "seed")
            axis["values"] = {0, 1};
    }
    return spec;
}

std::string writeSpec(const QTemporaryDir& dir, const QString& name, const nlohmann::json& spec)
{
    const std::string path = dir.filePath(name).toStdString();
    std::ofstream(path) << spec.dump(2);
    return path;
}

/** run id -> the run's avg_jct_s column, written by the store when the run ended (not by the panel's code). */
std::map<qint64, double> storedMeanJct(const std::string& db)
{
    store::RunStore s(db);
    std::map<qint64, double> out;
    store::Statement q(s.connection(), "SELECT id, avg_jct_s FROM runs WHERE status = 'completed'");
    while (q.step())
        out[q.columnInt(0)] = q.columnDouble(1);
    return out;
}

} // namespace

class TestSweepsPanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.path().toUtf8());
        QCoreApplication::setOrganizationName(QStringLiteral("OrreryTest"));
        m_db = m_dir.filePath(QStringLiteral("sweep.sqlite")).toStdString();
        const auto spec = writeSpec(m_dir, QStringLiteral("small.json"), smallSpec());
        const auto plan = sweep::resolveSweep(sweep::loadSweepSpec(spec));
        QCOMPARE(plan.points.size(), std::size_t{8});
        store::RunStore db(m_db);
        sweep::WorkloadCache cache;
        sweep::SweepRunOptions options;
        options.jobs = 2;
        const auto summary = sweep::runSweep(plan, db, options, cache);
        QCOMPARE(summary.ran, std::size_t{8});
    }

    void listsTheSweepWithDoneAndTotal()
    {
        JobRunner runner;
        SweepsPanel panel(&runner, QString::fromStdString(m_db));
        QAbstractItemModelTester tester(panel.sweepList(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_COMPARE_WITH_TIMEOUT(panel.sweepList()->rowCount(), 1, 10000);
        const auto* list = panel.sweepList();
        QCOMPARE(list->index(0, SweepListModel::Name).data().toString(), QStringLiteral("policies-by-size-small"));
        QCOMPARE(list->index(0, SweepListModel::Points).data().toString(), QStringLiteral("8 / 8"));
        QCOMPARE(list->index(0, SweepListModel::Axes).data().toString(),
                 QStringLiteral("node_count:rtx x policy x seed"));
        runner.waitForDone();
    }

    void tableMatchesTheStoredPointsAndMetrics()
    {
        JobRunner runner;
        SweepsPanel panel(&runner, QString::fromStdString(m_db));
        QAbstractItemModelTester tester(panel.points(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QTRY_COMPARE_WITH_TIMEOUT(panel.points()->rowCount(), 8, 10000);
        const SweepPointsModel* m = panel.points();
        QCOMPARE(m->columnCount(), 1 + 3 + 1 + 6);
        store::RunStore db(m_db);
        const auto rows = store::sweepPoints(db.connection(), "policies-by-size-small");
        QCOMPARE(rows.size(), std::size_t{8});
        for (const auto& row : rows) {
            const int r = m->rowOfRun(row.runId);
            QVERIFY(r >= 0);
            const auto axes = nlohmann::json::parse(row.axesJson);
            QCOMPARE(m->index(r, m->axisColumn(0)).data().toString(),
                     QString::number(axes["node_count:rtx"].get<int>()));
            QCOMPARE(m->index(r, m->axisColumn(1)).data().toString(),
                     QString::fromStdString(axes["policy"].get<std::string>()));
            QCOMPARE(m->index(r, m->axisColumn(2)).data().toString(), QString::number(axes["seed"].get<int>()));
            QCOMPARE(m->index(r, m->statusColumn()).data().toString(), QStringLiteral("completed"));
            // core's metrics of the stored run, as the comparison view computes them.
            const store::StoredRun run = db.loadRun(row.runId);
            const metrics::Summary s = metrics::summarize(run.result);
            const auto value = [&](SweepMetric metric) {
                return m->index(r, m->metricColumn(metric)).data(SweepPointsModel::SortRole).toDouble();
            };
            QCOMPARE(value(SweepMetric::MeanJct), s.avgJctS);
            QCOMPARE(value(SweepMetric::MeanJct), *row.avgJctS); // the store's own column agrees
            QCOMPARE(value(SweepMetric::P95Jct), s.p95JctS);
            QCOMPARE(value(SweepMetric::Makespan), s.makespanS);
            QCOMPARE(value(SweepMetric::Utilisation), s.utilization);
            QCOMPARE(value(SweepMetric::Cost), s.costUsd);
            const double price =
                io::parseScenarioText(db.scenarioJson(run.record.scenarioId), "t").cluster.priceUsdPerHour();
            QCOMPARE(value(SweepMetric::ProvisionedCost), price * s.makespanS / 3600.0);
            QVERIFY(s.p95JctS >= s.avgJctS * 0.5 && s.utilization > 0 && s.utilization <= 1);
        }
        // The RTX group's size changes the provisioned cost: the edited cluster is the one priced.
        // CSV: units in the headers, one line per point, values in those units.
        const QString csv = modelToCsv(*m);
        const QStringList lines = csv.trimmed().split(QStringLiteral("\r\n"));
        QCOMPARE(lines.size(), 9);
        QCOMPARE(lines[0], QStringLiteral("run_id,node_count:rtx,policy,seed,status,mean_jct_s,p95_jct_s,makespan_s,"
                                          "utilisation_pct,cost_usd,provisioned_cost_usd"));
        const QString path = m_dir.filePath(QStringLiteral("points.csv"));
        QVERIFY(panel.exportCsv(path));
        QVERIFY(QFile::exists(path));
        // Sorting by mean JCT sorts by the number, not the text.
        panel.pointsView()->sortByColumn(m->metricColumn(SweepMetric::MeanJct), Qt::AscendingOrder);
        const auto* proxy = panel.pointsView()->model();
        for (int i = 1; i < proxy->rowCount(); ++i)
            QVERIFY(proxy->index(i - 1, m->metricColumn(SweepMetric::MeanJct))
                        .data(SweepPointsModel::SortRole)
                        .toDouble() <=
                    proxy->index(i, m->metricColumn(SweepMetric::MeanJct)).data(SweepPointsModel::SortRole).toDouble());
        runner.waitForDone();
    }

    void heatMapCellsAreTheMeansOfTheirPoints()
    {
        JobRunner runner;
        SweepsPanel panel(&runner, QString::fromStdString(m_db));
        QTRY_COMPARE_WITH_TIMEOUT(panel.points()->rowCount(), 8, 10000);
        const auto jct = storedMeanJct(m_db);
        const auto grid = heatMapGrid(panel.points()->table(), "node_count:rtx", "seed", SweepMetric::MeanJct);
        QCOMPARE(grid.xLabels, (QStringList{QStringLiteral("1"), QStringLiteral("3")}));
        QCOMPARE(grid.yLabels, (QStringList{QStringLiteral("0"), QStringLiteral("1")}));
        store::RunStore db(m_db);
        const auto rows = store::sweepPoints(db.connection(), "policies-by-size-small");
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x) {
                double sum = 0;
                int n = 0;
                for (const auto& row : rows) {
                    const auto axes = nlohmann::json::parse(row.axesJson);
                    if (QString::number(axes["node_count:rtx"].get<int>()) == grid.xLabels[x] &&
                        QString::number(axes["seed"].get<int>()) == grid.yLabels[y]) {
                        sum += jct.at(row.runId);
                        ++n;
                    }
                }
                const auto& cell = grid.cells[std::size_t(y)][std::size_t(x)];
                QCOMPARE(cell.count, 2); // averaged over the two policies
                QCOMPARE(n, 2);
                QVERIFY(qAbs(cell.mean - sum / n) <= 1e-9 * sum);
            }
        QVERIFY(grid.any && grid.lo <= grid.hi);

        // The panel shows that grid for the axes chosen, and draws it.
        panel.heatMapX()->setCurrentIndex(panel.heatMapX()->findText(QStringLiteral("node_count:rtx")));
        panel.heatMapY()->setCurrentIndex(panel.heatMapY()->findText(QStringLiteral("seed")));
        QCOMPARE(panel.heatMap()->grid().cells[1][0].mean, grid.cells[1][0].mean);
        panel.resize(1200, 800);
        panel.heatMap()->resize(600, 300);
        QVERIFY(test::paintedPixels(panel.heatMap()->grab().toImage()) > 1000);

        // Lines: one per policy along the RTX size, each point the mean over the seeds.
        const auto lines = sweepLines(panel.points()->table(), "node_count:rtx", SweepMetric::MeanJct);
        QVERIFY(lines.axis.numeric);
        QCOMPARE(lines.lines.size(), std::size_t{2});
        for (const auto& line : lines.lines) {
            QCOMPARE(line.x, (std::vector<double>{1, 3}));
            QCOMPARE(line.count, (std::vector<int>{2, 2}));
        }
        // The Pareto front of cost against mean JCT is the comparison view's, over the completed points.
        QVERIFY(!panel.tradeoff()->front().empty());
        runner.waitForDone();
    }

    void doubleClickOpensThePointsRun()
    {
        MainWindow window;
        window.setDatabasePath(QString::fromStdString(m_db));
        window.resize(1400, 900);
        window.show();
        window.resultTabs()->setCurrentWidget(window.sweepsPanel());
        SweepsPanel* panel = window.sweepsPanel();
        QTRY_COMPARE_WITH_TIMEOUT(panel->points()->rowCount(), 8, 10000);
        QTableView* view = panel->pointsView();
        const int row = 5;
        const QModelIndex index = view->model()->index(row, 0);
        const qint64 runId = index.data(SweepPointsModel::RunIdRole).toLongLong();
        const QString policy =
            index.siblingAtColumn(panel->points()->axisColumn(1)).data().toString(); // the "policy" axis
        view->scrollTo(index);
        const QRect cell = view->visualRect(index);
        QSignalSpy open(panel, &SweepsPanel::openRunRequested);
        // A double-click is a press (which picks the row) and a double-click event; QTest sends only the latter.
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, cell.center());
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, cell.center());
        QCOMPARE(open.count(), 1);
        QCOMPARE(open.first().first().toLongLong(), runId);
        QTRY_VERIFY_WITH_TIMEOUT(window.runs()->current() && window.runs()->current()->storeId == runId, 10000);
        const RunEntry* run = window.runs()->current();
        QCOMPARE(run->storePath, QString::fromStdString(m_db));
        QCOMPARE(QString::fromStdString(run->result->policy), policy);
        QVERIFY(run->cluster);
        window.jobRunner()->waitForDone();
    }

    void runFromTheGuiCancelsAndResumesWithoutRunningAPointTwice()
    {
        // 300 cheap points (the default scenario, FIFO and SJF, 150 seeds) on one thread: cancelled after a few.
        auto spec = smallSpec();
        spec["name"] = "many-seeds";
        spec["axes"] = nlohmann::json::array();
        spec["axes"].push_back({{"kind", "policy"}, {"values", {"fifo", "sjf"}}});
        nlohmann::json seeds = nlohmann::json::array();
        for (int s = 0; s < 150; ++s)
            seeds.push_back(s);
        spec["axes"].push_back({{"kind", "seed"}, {"values", seeds}});
        const QString specPath = QString::fromStdString(writeSpec(m_dir, QStringLiteral("many.json"), spec));
        const QString db = m_dir.filePath(QStringLiteral("resume.sqlite"));

        JobRunner runner;
        SweepsPanel panel(&runner, db);
        SweepRunController* c = panel.runController();
        QSignalSpy prepared(c, &SweepRunController::preparedReady);
        QSignalSpy finished(c, &SweepRunController::finished);
        c->prepare(specPath, db, false);
        QVERIFY(prepared.wait(test::kWorkerWaitMs));
        QCOMPARE(c->prepared()->toRun, std::size_t{300});
        QCOMPARE(c->prepared()->alreadyStored, std::size_t{0});
        c->start(1);
        QVERIFY(c->isRunning());
        QTRY_VERIFY_WITH_TIMEOUT(c->pointsDone() >= 2, 20000);
        c->cancel();
        QVERIFY(finished.wait(test::kWorkerWaitMs));
        QVERIFY(!c->isRunning());
        QVERIFY(c->lastOutcome().stopped);
        QVERIFY(c->lastOutcome().error.isEmpty());
        std::size_t kept = 0;
        {
            store::RunStore s(db.toStdString());
            const auto rows = store::sweepPoints(s.connection(), "many-seeds");
            for (const auto& r : rows)
                QCOMPARE(QString::fromStdString(r.status), QStringLiteral("completed")); // abandoned ones not stored
            kept = rows.size();
        }
        QVERIFY2(kept >= 2 && kept < 300, qPrintable(QStringLiteral("%1 points kept").arg(kept)));
        QCOMPARE(c->lastOutcome().ran, kept);
        // The panel lists the sweep with what is done.
        QTRY_COMPARE_WITH_TIMEOUT(panel.sweepList()->rowCount(), 1, 10000);
        QCOMPARE(panel.sweepList()->index(0, SweepListModel::Points).data().toString(),
                 QStringLiteral("%1 / 300").arg(kept));

        // Running the spec again runs only the rest.
        c->prepare(specPath, db, true);
        QVERIFY(prepared.wait(test::kWorkerWaitMs));
        QCOMPARE(c->prepared()->alreadyStored, kept);
        QCOMPARE(c->prepared()->toRun, 300 - kept);
        QVERIFY(c->prepared()->estimate);
        QVERIFY(c->summaryText().contains(QStringLiteral("Estimated CPU time")));
        QSignalSpy progress(c, &SweepRunController::progress);
        c->start(2);
        QVERIFY(finished.wait(test::kWorkerWaitMs));
        // The event loop ran while the points ran (progress is sampled on the GUI thread), saying points and ETA.
        QVERIFY(progress.count() >= 1);
        const QString line = progress.last().at(3).toString();
        QVERIFY2(line.contains(QStringLiteral("points")) && line.contains(QStringLiteral("ETA")), qPrintable(line));
        QVERIFY(!c->lastOutcome().stopped);
        QCOMPARE(c->lastOutcome().ran, 300 - kept);
        QCOMPARE(c->lastOutcome().alreadyStored, kept);
        {
            store::RunStore s(db.toStdString());
            const auto rows = store::sweepPoints(s.connection(), "many-seeds");
            QCOMPARE(rows.size(), std::size_t{300});
            for (const auto& r : rows) {
                QCOMPARE(r.attempts, 1); // no point ran twice
                QCOMPARE(QString::fromStdString(r.status), QStringLiteral("completed"));
            }
            QCOMPARE(s.connection().queryInt("SELECT count(*) FROM runs"), std::int64_t{300});
        }
        QTRY_COMPARE_WITH_TIMEOUT(panel.sweepList()->index(0, SweepListModel::Points).data().toString(),
                                  QStringLiteral("300 / 300"), 10000);
        runner.waitForDone();
    }

    void aBadSpecIsReportedWithItsFileAndJsonPath()
    {
        auto spec = smallSpec();
        spec["axes"][0]["group"] = "rtxx";
        const QString specPath = QString::fromStdString(writeSpec(m_dir, QStringLiteral("bad.json"), spec));
        JobRunner runner;
        SweepsPanel panel(&runner, m_dir.filePath(QStringLiteral("none.sqlite")));
        QSignalSpy failed(panel.runController(), &SweepRunController::prepareFailed);
        panel.runSpec(specPath, false);
        QVERIFY(failed.wait(test::kWorkerWaitMs));
        const QString error = failed.first().first().toString();
        QVERIFY2(error.contains(QStringLiteral("bad.json")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("axes[0]")), qPrintable(error));
        QVERIFY2(error.contains(QStringLiteral("rtxx")), qPrintable(error));
        QCOMPARE(panel.messageLabel()->text(), error);
        QVERIFY(!QFile::exists(m_dir.filePath(QStringLiteral("none.sqlite")))); // nothing written
        runner.waitForDone();
    }

private:
    QTemporaryDir m_dir;
    std::string m_db;
};

QTEST_MAIN(TestSweepsPanel)
#include "test_sweeps_panel.moc"
