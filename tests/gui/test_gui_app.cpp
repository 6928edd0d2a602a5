// The main window as a user drives it: edit the cluster and undo, add a job
// mix, run two policies (and cancel a third), compare, export a PDF, a CSV
// and a Chrome trace; every model under QAbstractItemModelTester; every main
// view rendered and checked not blank.
#include "main_window.h"
#include "painted_pixels.h"

#include "async/job_runner.h"
#include "charts/cdf_chart.h"
#include "charts/chart_series.h"
#include "charts/tradeoff_chart.h"
#include "charts/utilisation_chart.h"
#include "charts/zoomable_chart_view.h"
#include "document/scenario_document.h"
#include "editors/cluster_editor.h"
#include "editors/gpu_catalog_view.h"
#include "editors/workload_editor.h"
#include "export/chart_export.h"
#include "export/csv_export.h"
#include "io/run_info.h"
#include "metrics/queue_length.h"
#include "models/cluster_model.h"
#include "models/gpu_catalog_model.h"
#include "models/gpu_totals_model.h"
#include "models/job_mix.h"
#include "models/job_table_model.h"
#include "models/metrics_table_model.h"
#include "models/run_list_model.h"
#include "models/trace_summary.h"
#include "results/cluster_at_time_view.h"
#include "results/comparison_view.h"
#include "results/job_details_panel.h"
#include "results/run_library.h"
#include "runs/run_history_panel.h"
#include "runs/run_manager_panel.h"
#include "runs/run_saver.h"
#include "store/run_store.h"
#include "timeline/gantt_view.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChartView>
#include <QFile>
#include <QLineEdit>
#include <QMenuBar>
#include <QMouseEvent>
#include <QProcess>
#include <QSignalSpy>
#include <QSlider>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QUndoStack>
#include <QWheelEvent>

#include <map>

#include <nlohmann/json.hpp>

using namespace orrery;
using namespace orrery::gui;

/**
 * The default cluster with fixed-GPU jobs (Philly-style: GPU count and a
 * duration measured on the reference GPU), which every policy can place.
 */
static io::Scenario fixedJobScenario(int jobs)
{
    io::Scenario s = io::defaultScenario();
    s.name = "fixed jobs";
    s.workload.jobs.clear();
    const int demand[] = {1, 1, 2, 4, 8, 1, 2};
    for (int i = 0; i < jobs; ++i) {
        workload::Job j;
        j.id = "f" + std::to_string(i);
        j.kind = workload::JobKind::Fixed;
        j.arrivalS = 90.0 * i;
        j.user = "u" + std::to_string(i % 4);
        j.gpus = demand[i % 7];
        j.durationS = 1800 + 600.0 * (i % 9);
        j.model = i % 2 ? "resnet-50" : "transformer";
        s.workload.jobs.push_back(j);
    }
    return s;
}

class TestGuiApp : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_data.isValid());
        qputenv("XDG_DATA_HOME", m_data.path().toUtf8());
        QCoreApplication::setOrganizationName(QStringLiteral("OrreryTest"));
        m_window = std::make_unique<MainWindow>();
        m_window->setScenario(io::defaultScenario(), QString());
        m_window->resize(1400, 900);
        connect(m_window->runSaver(), &RunSaver::failed, this,
                [](int, const QString& e) { qWarning() << "store:" << e; });
        m_window->show();
    }
    void cleanupTestCase() { m_window.reset(); }

    void modelsPassTheTester()
    {
        auto* w = m_window.get();
        QAbstractItemModelTester cluster(w->clusterEditor()->model(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester totals(w->clusterEditor()->totalsModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester catalog(w->catalogView()->model(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester jobs(w->workloadEditor()->model(),
                                      QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester metrics(w->comparison()->metrics(),
                                         QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester runs(w->runHistory()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        // Drive every model through its change paths while the testers watch.
        // Add group asks for the type: the new group is one node of 8 of that type, named after it.
        const int groupsBefore = w->clusterEditor()->model()->rowCount();
        QVERIFY(w->clusterEditor()->model()->addGroup("h100-sxm"));
        QCOMPARE(w->clusterEditor()->model()->rowCount(), groupsBefore + 1);
        const auto& added = w->document()->cluster().groups().back();
        QCOMPARE(added.gpuType, std::string("h100-sxm"));
        QCOMPARE(added.name, std::string("h100"));
        QCOMPARE(added.count * added.gpusPerNode, 8);
        QVERIFY(w->clusterEditor()->model()->addGroup("h100-sxm"));
        QCOMPARE(w->document()->cluster().groups().back().name, std::string("h100"
                                                                            "2"));
        w->document()->undoStack()->undo();
        w->document()->undoStack()->undo();
        QVERIFY(!w->clusterEditor()->model()->addGroup("no-such-gpu"));
        QCOMPARE(w->clusterEditor()->model()->rowCount(), groupsBefore);
        JobMix mix;
        mix.model = "gpt2-124m";
        mix.count = 3;
        w->workloadEditor()->addMix(mix);
        w->document()->undoStack()->undo();
        w->catalogView()->addOrReplaceCustom(io::defaultScenario().cluster.catalog().types().front());
        w->document()->undoStack()->undo();
        QCOMPARE(w->clusterEditor()->model()->rowCount(), 3);
        QCOMPARE(w->clusterEditor()->totalsModel()->rowCount(), 4); // 3 types + All
        QVERIFY(w->catalogView()->model()->rowCount() > 5);
        QCOMPARE(w->workloadEditor()->model()->rowCount(), 60);
        QVERIFY(!w->document()->isModified());
    }

    void editClusterAndUndo()
    {
        auto* doc = m_window->document();
        auto* model = m_window->clusterEditor()->model();
        const int before = doc->cluster().totalGpus(); // 3x8 + 2x8 + 1x4 = 44
        QCOMPARE(before, 44);
        QVERIFY(model->setData(model->index(0, ClusterModel::Nodes), 5));
        QCOMPARE(doc->cluster().totalGpus(), 60);
        QVERIFY(doc->isModified());
        QCOMPARE(m_window->clusterEditor()
                     ->totalsModel()
                     ->data(m_window->clusterEditor()->totalsModel()->index(3, GpuTotalsModel::Gpus))
                     .toInt(),
                 60);
        // Refused edits are explained and change nothing.
        QVERIFY(!model->setData(model->index(0, ClusterModel::Nodes), 0));
        QVERIFY(m_window->clusterEditor()->message().contains(QStringLiteral("whole number")));
        QVERIFY(!model->setData(model->index(1, ClusterModel::Name), QStringLiteral("rtx")));
        QVERIFY(m_window->clusterEditor()->message().contains(QStringLiteral("already called")));
        QVERIFY(!model->setData(model->index(0, ClusterModel::GpuType), QStringLiteral("no-such-gpu")));
        QCOMPARE(doc->cluster().totalGpus(), 60);
        doc->undoStack()->undo();
        QCOMPARE(doc->cluster().totalGpus(), before);
        QVERIFY(!doc->isModified());
        doc->undoStack()->redo();
        QCOMPARE(doc->cluster().totalGpus(), 60);
        doc->undoStack()->undo();
    }

    void saveAndReopen()
    {
        const QString path = m_data.filePath(QStringLiteral("edited.json"));
        auto* doc = m_window->document();
        JobMix mix;
        mix.model = "bert-base";
        mix.count = 4;
        mix.arrival = JobMix::Arrival::Uniform;
        mix.ratePerHour = 4;
        m_window->workloadEditor()->addMix(mix);
        QCOMPARE(doc->scenario().workload.jobs.size(), std::size_t(64));
        QVERIFY(m_window->saveTo(path));
        QVERIFY(!doc->isModified());
        ScenarioDocument reopened;
        QString error;
        QVERIFY2(reopened.load(path, &error), qPrintable(error));
        QCOMPARE(reopened.scenario().workload.jobs.size(), std::size_t(64));
        doc->undoStack()->undo();
        QCOMPARE(doc->scenario().workload.jobs.size(), std::size_t(60));
        QVERIFY(doc->isModified());
        m_window->setScenario(io::defaultScenario(), QString());
    }

    void runTwoPoliciesAndCancelOne()
    {
        m_window->setScenario(fixedJobScenario(60), QString());
        auto* manager = m_window->runManager();
        auto* runner = m_window->jobRunner();
        const auto ids =
            manager->runPolicies({QStringLiteral("fifo"), QStringLiteral("sjf"), QStringLiteral("tiresias")});
        QCOMPARE(ids.size(), 3);
        manager->cancel(ids[2]); // before it can finish: it must end cancelled, the others unaffected
        QTRY_COMPARE_WITH_TIMEOUT(runner->runningCount(), 0, 15000);
        QCOMPARE(manager->statusOf(ids[0]), QStringLiteral("done"));
        QCOMPARE(manager->statusOf(ids[1]), QStringLiteral("done"));
        QCOMPARE(manager->statusOf(ids[2]), QStringLiteral("cancelled"));
        QCOMPARE(m_window->runs()->runs().size(), 2);
        for (const auto& r : m_window->runs()->runs()) {
            QCOMPARE(r.result->jobs.size(), std::size_t(60));
            QVERIFY(!r.result->intervals.empty());
        }
        // Recorded in the store while they ran: the finished ones completed, the cancelled one cancelled.
        QVERIFY(m_window->runs()->runs()[0].storeId >= 0 && m_window->runs()->runs()[1].storeId >= 0);
        QCOMPARE(m_window->runHistory()->model()->rowCount(), 2);
        store::RunStore db(m_window->runSaver()->databasePath().toStdString());
        std::map<std::string, std::string> statusByPolicy;
        for (const auto& r : db.listRuns())
            statusByPolicy[r.policy] = store::toString(r.status);
        QCOMPARE(statusByPolicy["fifo"], std::string("completed"));
        QCOMPARE(statusByPolicy["sjf"], std::string("completed"));
        QCOMPARE(statusByPolicy["tiresias"], std::string("cancelled"));
        // Stored as the CLI stores them (io::runInfoOf): the scenario's options, not "{}" (issue 19).
        const io::Scenario ran = fixedJobScenario(60);
        for (const auto& r : db.listRuns()) {
            QVERIFY2(nlohmann::json::parse(r.optionsJson) == io::scenarioOptionsToJson(ran.options),
                     r.optionsJson.c_str());
            QCOMPARE(r.optionsJson, io::runInfoOf(ran, r.policy, r.seed).optionsJson);
            QCOMPARE(r.seed, ran.options.seed);
        }
        const auto stored = db.loadRun(m_window->runs()->runs()[0].storeId).result;
        QCOMPARE(stored.jobs.size(), std::size_t(60));
        QCOMPARE(stored.intervals.size(), m_window->runs()->runs()[0].result->intervals.size());
    }

    void failedRunLeavesOthersRunning()
    {
        auto* manager = m_window->runManager();
        const auto ids = manager->runPolicies({QStringLiteral("no-such-policy"), QStringLiteral("fifo")});
        QTRY_COMPARE_WITH_TIMEOUT(m_window->jobRunner()->runningCount(), 0, 15000);
        QVERIFY(manager->statusOf(ids[0]).startsWith(QStringLiteral("failed")));
        QVERIFY(manager->statusOf(ids[0]).contains(QStringLiteral("no-such-policy")));
        QCOMPARE(manager->statusOf(ids[1]), QStringLiteral("done"));
        QCOMPARE(m_window->runs()->runs().size(), 3);
        m_window->runs()->remove(m_window->runs()->runs().back().id);
    }

    void openTheComparison()
    {
        m_window->runHistory()->selectAll();
        QCOMPARE(m_window->runs()->compared().size(), 2);
        auto* cmp = m_window->comparison();
        QCOMPARE(cmp->metrics()->rowCount(), 2);
        QCOMPARE(cmp->cdf()->seriesCount(), 2);
        cmp->cdf()->setLogScale(true);
        QCOMPARE(cmp->cdf()->seriesCount(), 2);
        QVERIFY(!cmp->tradeoff()->front().empty());
        const QString csv = modelToCsv(*cmp->metrics());
        QCOMPARE(csv.count(QStringLiteral("\r\n")), 3);
        // ASCII headers with their units; values in those units (utilisation in percent, as the table shows it).
        const QStringList lines = csv.split(QStringLiteral("\r\n"));
        QCOMPARE(lines.front(), QStringLiteral("run,policy,jobs,finished,mean_jct_s,median_jct_s,p95_jct_s,"
                                               "mean_queueing_s,makespan_s,utilisation_pct,mean_slowdown,"
                                               "mean_ftf_rho,cost_usd,provisioned_cost_usd"));
        const QStringList first = lines.at(1).split(QLatin1Char(','));
        const auto* model = cmp->metrics();
        QCOMPARE(first.at(MetricsTableModel::Utilisation).toDouble(),
                 100.0 * model->data(model->index(0, MetricsTableModel::Utilisation), Qt::UserRole).toDouble());
        // The provisioned cost, beside the busy one: the cluster's price for the makespan.
        const double makespan = model->data(model->index(0, MetricsTableModel::Makespan), Qt::UserRole).toDouble();
        QVERIFY(qAbs(first.at(MetricsTableModel::ProvisionedCost).toDouble() -
                     m_window->document()->cluster().priceUsdPerHour() * makespan / 3600.0) < 1e-6);
        QVERIFY(first.at(MetricsTableModel::ProvisionedCost).toDouble() > first.at(MetricsTableModel::Cost).toDouble());
        QCOMPARE(first.at(MetricsTableModel::MeanJct).toDouble(),
                 model->data(model->index(0, MetricsTableModel::MeanJct), Qt::UserRole).toDouble());
    }

    void ganttInteraction()
    {
        auto* gantt = m_window->gantt();
        m_window->resultTabs()->setCurrentIndex(0);
        QVERIFY(gantt->hasRun());
        const double span = gantt->geometry().spanS();
        gantt->zoomAt(100, 4);
        QVERIFY(qAbs(gantt->geometry().spanS() - span / 4) < 1e-6 * span);
        gantt->zoomToFit();
        QCOMPARE(gantt->geometry().spanS(), span);
        // Click on the first bar of the first row: highlights that job.
        const auto& run = *m_window->runs()->current()->result;
        int job = -1;
        for (int x = GanttView::kLabelWidth + 1; x < gantt->viewport()->width() && job < 0; x += 2)
            job = gantt->jobAt(QPoint(x, GanttView::kHeaderHeight + GanttView::kGroupHeaderHeight + 5));
        QVERIFY(job >= 0 && job < static_cast<int>(run.jobs.size()));
        gantt->setHighlightedJob(job);
        QCOMPARE(gantt->highlightedJob(), job);
    }

    /** One time cursor across the Gantt, cluster-at-t and the utilisation chart; the queue track; measuring. */
    void sharedTimeCursorQueueTrackAndMeasure()
    {
        auto* gantt = m_window->gantt();
        m_window->resultTabs()->setCurrentIndex(0);
        gantt->zoomToFit();
        const auto& run = *m_window->runs()->current()->result;
        // The queue track is the core series of this run.
        const auto queue = metrics::queueLengthOverTime(run);
        QCOMPARE(gantt->queueSeries().size(), queue.size());
        QVERIFY(std::any_of(queue.begin(), queue.end(), [](const auto& q) { return q.queued > 0; }));

        // A click on the timeline moves the cursor everywhere.
        QSignalSpy moved(gantt, &GanttView::cursorMoved);
        const int x = GanttView::kLabelWidth + gantt->geometry().widthPx / 2;
        QTest::mouseClick(gantt->viewport(), Qt::LeftButton, {}, QPoint(x, GanttView::kAxisHeight + 5));
        QCOMPARE(moved.count(), 1);
        const double t = gantt->cursorTime();
        QVERIFY(t > 0 && t < run.makespanS);
        QCOMPARE(m_window->clusterAtTime()->time(), t);
        QCOMPARE(m_window->utilisation()->chartView()->cursorX(), t / 3600);
        // Cluster-at-t's slider moves the others.
        auto* slider = m_window->clusterAtTime()->findChild<QSlider*>();
        QVERIFY(slider);
        slider->setValue(100);
        QCOMPARE(gantt->cursorTime(), m_window->clusterAtTime()->time());
        QCOMPARE(m_window->utilisation()->chartView()->cursorX(), m_window->clusterAtTime()->time() / 3600);

        // Shift+drag measures a range; Escape clears it.
        const int y = GanttView::kHeaderHeight + GanttView::kGroupHeaderHeight + 5;
        QTest::mousePress(gantt->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(x, y));
        QMouseEvent move(QEvent::MouseMove, QPointF(x + 100, y), gantt->viewport()->mapToGlobal(QPointF(x + 100, y)),
                         Qt::NoButton, Qt::LeftButton, Qt::ShiftModifier);
        QCoreApplication::sendEvent(gantt->viewport(), &move);
        QTest::mouseRelease(gantt->viewport(), Qt::LeftButton, Qt::ShiftModifier, QPoint(x + 100, y));
        const auto range = gantt->measuredRange();
        QVERIFY(range.has_value());
        QVERIFY(qAbs((range->second - range->first) - 100 * gantt->geometry().spanS() / gantt->geometry().widthPx) <
                2 * gantt->geometry().spanS() / gantt->geometry().widthPx);
        QTest::keyClick(gantt, Qt::Key_Escape);
        QVERIFY(!gantt->measuredRange().has_value());

        // The utilisation chart zooms on time and goes back with a double-click.
        auto* chartView = m_window->utilisation()->chartView();
        m_window->resultTabs()->setCurrentWidget(m_window->utilisation());
        chartView->resize(800, 500);
        QVERIFY(!chartView->isZoomed());
        QWheelEvent wheel(QPointF(400, 250), chartView->mapToGlobal(QPointF(400, 250)), QPoint(), QPoint(0, 240),
                          Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
        QCoreApplication::sendEvent(chartView->viewport(), &wheel);
        QVERIFY(chartView->isZoomed());
        QTest::mouseDClick(chartView->viewport(), Qt::LeftButton, {}, QPoint(400, 250));
        QVERIFY(!chartView->isZoomed());
        m_window->resultTabs()->setCurrentIndex(0);
    }

    void viewsRenderSomething_data()
    {
        QTest::addColumn<int>("which");
        QTest::newRow("gantt") << 0;
        QTest::newRow("cluster at time t") << 1;
        QTest::newRow("utilisation") << 2;
        QTest::newRow("comparison") << 3;
        QTest::newRow("cluster editor") << 4;
        QTest::newRow("workload editor") << 5;
        QTest::newRow("main window") << 6;
    }
    void viewsRenderSomething()
    {
        QFETCH(int, which);
        QWidget* widgets[] = {m_window->gantt(),      m_window->clusterAtTime(), m_window->utilisation()->chartView(),
                              m_window->comparison(), m_window->clusterEditor(), m_window->workloadEditor(),
                              m_window.get()};
        QWidget* w = widgets[which];
        if (which < 4)
            m_window->resultTabs()->setCurrentIndex(which);
        const QImage image = renderToImage(w, w == m_window.get() ? QSize() : QSize(900, 600));
        const int painted = test::paintedPixels(image, 2);
        QVERIFY2(painted > image.width() * image.height() / 4 / 50,
                 qPrintable(QStringLiteral("only %1 painted pixels").arg(painted)));
    }

    void exports()
    {
        const QString pdf = m_data.filePath(QStringLiteral("report.pdf"));
        QString error;
        // The report is laid out from the data: the views on screen keep their size (the old one left the Gantt
        // at the PDF's height until a restart).
        const QSize ganttBefore = m_window->gantt()->size();
        const int pages = m_window->exportReport(pdf, &error);
        QVERIFY2(pages >= 3, qPrintable(error));
        QCOMPARE(m_window->gantt()->size(), ganttBefore);
        QFile f(pdf);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QVERIFY(bytes.startsWith("%PDF"));
        QCOMPARE(
            static_cast<int>(bytes.count("/Type /Page\n") + bytes.count("/Type /Page ") + bytes.count("/Type /Page>")),
            pages);

        const QString svg = m_data.filePath(QStringLiteral("cdf.svg"));
        QVERIFY(exportWidget(m_window->comparison()->cdf()->chartView(), svg, &error));
        QFile s(svg);
        QVERIFY(s.open(QIODevice::ReadOnly));
        QVERIFY(s.readAll().contains("<svg"));
        const QString png = m_data.filePath(QStringLiteral("gantt.png"));
        QVERIFY(exportWidget(m_window->gantt(), png, &error));
        QVERIFY(!QImage(png).isNull());

        const QString trace = m_data.filePath(QStringLiteral("trace.json"));
        QVERIFY2(m_window->exportChromeTraceTo(trace, &error), qPrintable(error));
        QFile t(trace);
        QVERIFY(t.open(QIODevice::ReadOnly));
        const QByteArray json = t.readAll();
        QVERIFY(json.contains("traceEvents"));
        QVERIFY(json.contains("\"ph\":\"X\"") || json.contains("\"ph\": \"X\""));
    }

    void chartAdapters()
    {
        // CDF of 1..4: steps at each value.
        const auto pts = cdfPoints({4, 1, 3, 2});
        QCOMPARE(pts.size(), 8);
        QCOMPARE(pts.front(), QPointF(1, 0));
        QCOMPARE(pts.back(), QPointF(4, 1));
        QCOMPARE(cdfPoints({-1, 0, 2}, true).size(), 2);
        // Thinned to 10 steps, still ends at (max, 1).
        std::vector<double> many(1000);
        for (int i = 0; i < 1000; ++i)
            many[static_cast<std::size_t>(i)] = i;
        const auto thin = cdfPoints(many, false, 10);
        QCOMPARE(thin.size(), 20);
        QCOMPARE(thin.back(), QPointF(999, 1));
        // Pareto: (cost, JCT) minimise both.
        const std::vector<TradeoffPoint> p{{"a", 1, 10}, {"b", 2, 5}, {"c", 3, 6}, {"d", 4, 1}, {"e", 2, 7}};
        QCOMPARE(paretoFront(p, true), (std::vector<int>{0, 1, 3}));
        QCOMPARE(paretoFront(p, false), (std::vector<int>{0}));
        // Job mix and trace summary.
        JobMix mix;
        mix.model = "gpt2-124m";
        mix.count = 5;
        mix.arrival = JobMix::Arrival::Uniform;
        mix.ratePerHour = 60;
        const auto jobs = generateJobs(mix, {});
        QCOMPARE(jobs.size(), std::size_t(5));
        QCOMPARE(jobs[4].arrivalS, 240.0);
        QCOMPARE(QString::fromStdString(jobs[0].id), QStringLiteral("mix000"));
        QCOMPARE(QString::fromStdString(generateJobs(mix, jobs)[0].id), QStringLiteral("mix005"));
        const TraceSummary s = TraceSummary::of(io::defaultScenario().workload.jobs);
        QCOMPARE(s.jobs, 60);
        QCOMPARE(s.serverless, 60);
        QCOMPARE(s.demandCounts.back(), 60);
        int arrivals = 0;
        for (int n : s.arrivalsPerBin)
            arrivals += n;
        QCOMPARE(arrivals, 60);
    }

    void latestWinsDropsStaleResults()
    {
        JobRunner runner;
        QStringList delivered;
        std::atomic<bool> release{false};
        runner.start<QString>(
            QStringLiteral("k"),
            [&](TaskContext&) {
                while (!release.load())
                    QThread::msleep(1);
                return QStringLiteral("old");
            },
            this, [&](QString v) { delivered << v; });
        runner.start<QString>(
            QStringLiteral("k"), [](TaskContext&) { return QStringLiteral("new"); }, this,
            [&](QString v) { delivered << v; });
        release = true;
        QTRY_COMPARE(runner.runningCount(), 0);
        QCOMPARE(delivered, QStringList{QStringLiteral("new")});
    }

    void findJobRevealsItInTheGantt()
    {
        const auto* current = m_window->runs()->current();
        QVERIFY(current && current->result);
        const auto& jobs = current->result->jobs;
        // The last job that ran: its first bar is away from the start of a fitted window.
        int job = static_cast<int>(jobs.size()) - 1;
        while (job >= 0 && jobs[static_cast<std::size_t>(job)].startS < 0)
            --job;
        QVERIFY(job >= 0);
        m_window->resultTabs()->setCurrentIndex(3);
        auto* find = m_window->jobDetails()->findField();
        find->setText(QString::fromStdString(jobs[static_cast<std::size_t>(job)].id));
        QTest::keyClick(find, Qt::Key_Return);
        QCOMPARE(m_window->resultTabs()->currentIndex(), 0);
        QCOMPARE(m_window->gantt()->highlightedJob(), job);
        QCOMPARE(m_window->jobDetails()->shownJob(), job);
        const auto& g = m_window->gantt()->geometry();
        const double start = jobs[static_cast<std::size_t>(job)].startS;
        QVERIFY2(g.viewStartS <= start && start <= g.viewEndS,
                 qPrintable(QStringLiteral("%1 not in [%2, %3]").arg(start).arg(g.viewStartS).arg(g.viewEndS)));
    }

    /** File > New gives an empty scenario that every view shows without trouble; the default is one click away. */
    void newIsEmptyAndDefaultIsOneClickAway()
    {
        MainWindow w;
        w.newScenario();
        QCOMPARE(w.document()->cluster().totalGpus(), 0);
        QVERIFY(w.document()->scenario().workload.jobs.empty());
        QCOMPARE(w.clusterEditor()->model()->rowCount(), 0);
        for (QWidget* view : {static_cast<QWidget*>(w.clusterEditor()), static_cast<QWidget*>(w.workloadEditor()),
                              static_cast<QWidget*>(&w)})
            QVERIFY(!renderToImage(view, view == &w ? QSize() : QSize(600, 400)).isNull());
        QVERIFY(w.clusterEditor()->model()->addGroup("a100-40gb-sxm"));
        QCOMPARE(w.document()->cluster().totalGpus(), 8);
        w.document()->undoStack()->clear(); // no "save changes?" prompt in a test
        w.newFromDefault();
        QCOMPARE(w.document()->scenario().name, io::defaultScenario().name);
        QCOMPARE(w.document()->cluster().totalGpus(), io::defaultScenario().cluster.totalGpus());
    }

    void helpMenuOpensGuideAndShortcuts()
    {
        const auto action = [this](const QString& text) -> QAction* {
            for (QAction* top : m_window->menuBar()->actions())
                if (top->menu())
                    for (QAction* a : top->menu()->actions())
                        if (a->text().remove(QLatin1Char('&')) == text)
                            return a;
            return nullptr;
        };
        QAction* guide = action(QStringLiteral("User Guide"));
        QVERIFY(guide);
        guide->trigger();
        auto* browser = m_window->findChild<QTextBrowser*>(QStringLiteral("UserGuide"));
        QVERIFY(browser);
        // The bundled docs/gui.md, rendered from its Markdown.
        QVERIFY(browser->toPlainText().contains(QStringLiteral("Files and shortcuts")));
        QVERIFY(!browser->toPlainText().contains(QStringLiteral("## ")));
        browser->window()->close();

        QAction* shortcuts = action(QStringLiteral("Keyboard Shortcuts"));
        QVERIFY(shortcuts);
        shortcuts->trigger();
        auto* table = m_window->findChild<QTableWidget*>(QStringLiteral("Shortcuts"));
        QVERIFY(table);
        QMap<QString, QString> listed;
        for (int r = 0; r < table->rowCount(); ++r)
            listed.insert(table->item(r, 0)->text(), table->item(r, 1)->text());
        QCOMPARE(listed.value(QStringLiteral("File > Export PDF Report")),
                 QKeySequence(Qt::CTRL | Qt::Key_P).toString(QKeySequence::NativeText));
        QVERIFY(listed.size() >= 10);
        table->window()->close();
    }

    /** `orrery --help` and `--version` answer without a display (no platform plugin is even loaded). */
    void helpAndVersionNeedNoDisplay()
    {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
            env.remove(QString::fromLatin1(name));
        for (const QString& option : {QStringLiteral("--help"), QStringLiteral("--version")}) {
            QProcess p;
            p.setProcessEnvironment(env);
            p.start(QStringLiteral(ORRERY_GUI_PATH), {option});
            QVERIFY(p.waitForFinished(30000));
            const QString out = QString::fromUtf8(p.readAllStandardOutput());
            QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0,
                     qPrintable(option + QStringLiteral(": ") + QString::fromUtf8(p.readAllStandardError())));
            QVERIFY2(out.contains(option == QStringLiteral("--help") ? QStringLiteral("--calibration")
                                                                     : QStringLiteral("Orrery")),
                     qPrintable(out));
        }
    }

private:
    QTemporaryDir m_data;
    std::unique_ptr<MainWindow> m_window;
};

QTEST_MAIN(TestGuiApp)
#include "test_gui_app.moc"
