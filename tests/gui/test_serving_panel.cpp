// The Serving tab (issue 17): on a small case the panel's placement and attainment are core's (serve::runServing and
// the placement calls), the cluster picture draws each group, the curves have one point per swept value per method,
// Cancel ends a long computation promptly and the GUI keeps answering meanwhile, a run saved to the run database
// reloads identically (inputs included), CSV exports carry units, and the tab is reachable from the View menu with
// its shortcut. With a MAF1/MAF2 trace file as the traffic, the trace is read on a worker (its size or the reader's
// file:line: field error shown under it), and the placement, the latency CDF and the curves shown are core's for the
// same trace.
#include "main_window.h"

#include "async/job_runner.h"
#include "serve/attainment_curves.h"
#include "serve/maf_trace.h"
#include "serve/placement_search.h"
#include "serve/serving_run.h"
#include "serving/attainment_chart.h"
#include "serving/cluster_picture.h"
#include "serving/serving_cdf_chart.h"
#include "serving/serving_inputs.h"
#include "serving/serving_panel.h"
#include "store/run_store.h"
#include "store/serving_records.h"
#include "test_support.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QLineSeries>
#include <QListWidget>
#include <QMenuBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace orrery;
using namespace orrery::gui;

namespace {

/** Four BERT-1.3B on four V100s, 13 GB budget, 8 req/s for 120 s: a placement in well under a second. */
void setSmallCase(ServingInputs* in, const char* method = serve::kMethodAlpaServe)
{
    in->setCustomModels({{"bert-1.3b", 4}});
    in->gpus()->setValue(4);
    in->memoryBudget()->setValue(13);
    in->rate()->setValue(8);
    in->cv()->setValue(3);
    in->duration()->setValue(120);
    in->sloScale()->setValue(5);
    in->method()->setCurrentIndex(in->method()->findData(QString::fromLatin1(method)));
}

std::string readAll(const QString& path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

class TestServingPanel : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        qputenv("XDG_DATA_HOME", m_dir.path().toUtf8());
        QCoreApplication::setOrganizationName(QStringLiteral("OrreryTest"));
    }

    void placementIsCoresAndDrawnAsGroups()
    {
        JobRunner runner;
        ServingPanel panel(&runner, m_dir.filePath(QStringLiteral("none.sqlite")));
        panel.resize(1200, 800);
        panel.show();
        setSmallCase(panel.inputs());
        const serve::ServingSpec spec = panel.inputs()->spec();
        QVERIFY(spec.models == (serve::ModelCounts{{"bert-1.3b", 4}}));
        QVERIFY(spec.modelSet.empty());
        QCOMPARE(spec.gpus, 4);
        QSignalSpy placed(&panel, &ServingPanel::placed);
        panel.placeButton()->click();
        QVERIFY(panel.isBusy());
        QVERIFY(panel.cancelButton()->isEnabled());
        QVERIFY(placed.wait(test::kWorkerWaitMs));
        QVERIFY(!panel.isBusy());
        const serve::ServingRun& shown = *panel.currentRun();

        // Core directly: the same spec's problem and traffic through searchPlacement and the simulator.
        auto setup = serve::prepareServing(spec);
        serve::ProfileCache cache(setup->problem);
        const auto search = serve::searchPlacement(cache, setup->workload);
        const auto sim = serve::evaluatePlacement(cache, search.placement, setup->workload, true);
        QCOMPARE(shown.attainment(), sim.attainment());
        QCOMPARE(shown.served, sim.served);
        QCOMPARE(shown.groups.size(), search.placement.groups.size());
        for (std::size_t g = 0; g < shown.groups.size(); ++g) {
            QVERIFY(shown.groups[g].config == search.placement.groups[g].config);
            QCOMPARE(shown.groups[g].models.size(), search.placement.groups[g].models.size());
            for (std::size_t m = 0; m < shown.groups[g].models.size(); ++m)
                QCOMPARE(shown.groups[g].models[m],
                         setup->problem.instances[static_cast<std::size_t>(search.placement.groups[g].models[m])].name);
        }
        QCOMPARE(shown.latency.p99S, serve::summarizeLatencies(sim).p99S);

        // The picture: one box per group, as wide as its GPUs, left to right, and its text names its models.
        ClusterPicture* picture = panel.clusterPicture();
        QCOMPARE(picture->groupCount(), static_cast<int>(shown.groups.size()));
        for (int g = 0; g < picture->groupCount(); ++g) {
            const auto& group = shown.groups[static_cast<std::size_t>(g)];
            QVERIFY(picture->groupRect(g).width() > 0);
            QVERIFY(picture->groupText(g).startsWith(
                QStringLiteral("(%1, %2)").arg(group.config.stages).arg(group.config.intra)));
            for (const auto& m : group.models)
                QVERIFY(picture->groupText(g).contains(QString::fromStdString(m)));
            if (g > 0)
                QVERIFY(picture->groupRect(g).left() >= picture->groupRect(g - 1).right() - 1);
        }
        QVERIFY(panel.summary()->text().contains(QStringLiteral("%1%").arg(100 * shown.attainment(), 0, 'f', 2)));
        // The CDF line is the stored samples as steps.
        QCOMPARE(panel.cdfChart()->cdfLine()->count(), 2 * static_cast<int>(shown.cdf.size()));
        QCOMPARE(panel.cdfChart()->cdfLine()->at(1).y(), shown.cdf.front().second);

        // CSV: the placement with units in its header.
        const QString csv = m_dir.filePath(QStringLiteral("groups.csv"));
        QString error;
        QVERIFY2(panel.exportCsv(csv, ServingCsv::Groups, &error), qPrintable(error));
        QVERIFY(readAll(csv).rfind("run_id,segment,group,stages,intra,gpus,models,replicas,utilisation_pct\r\n", 0) ==
                0);
        QVERIFY(!panel.exportCsv(csv, ServingCsv::Curves, &error));
        QVERIFY(error.contains(QStringLiteral("compute them first")));
        runner.waitForDone();
    }

    void curvesHaveOnePointPerValuePerMethod()
    {
        JobRunner runner;
        ServingPanel panel(&runner, m_dir.filePath(QStringLiteral("none.sqlite")));
        setSmallCase(panel.inputs());
        panel.curveAxis()->setCurrentIndex(panel.curveAxis()->findData(static_cast<int>(serve::CurveAxis::Rate)));
        panel.curveValues()->setText(QStringLiteral("16, 4"));
        QSignalSpy ready(&panel, &ServingPanel::curvesReady);
        panel.curvesButton()->click();
        QVERIFY(ready.wait(test::kWorkerWaitMs));
        const auto& curves = *panel.curves();
        QCOMPARE(curves.methods, serve::placementMethods());
        QCOMPARE(curves.values, (std::vector<double>{16, 4}));
        AttainmentChart* chart = panel.attainmentChart();
        QCOMPARE(chart->lineCount(), 3);
        for (std::size_t m = 0; m < curves.methods.size(); ++m) {
            QLineSeries* line = chart->line(QString::fromStdString(serve::methodTitle(curves.methods[m])));
            QVERIFY(line);
            QCOMPARE(line->count(), 2);
            // Drawn in axis order; each point is core's attainment for that value and method, in percent.
            QCOMPARE(line->at(0).x(), 4.0);
            QCOMPARE(line->at(0).y(), 100 * curves.attainment[m][1]);
            QCOMPARE(line->at(1).y(), 100 * curves.attainment[m][0]);
        }
        serve::ServingSpec spec = serve::withAxisValue(panel.inputs()->spec(), serve::CurveAxis::Rate, 4);
        spec.method = serve::kMethodAlpaServe;
        QCOMPARE(curves.attainment[0][1], serve::runServing(spec).attainment());
        const QString csv = m_dir.filePath(QStringLiteral("curves.csv"));
        QVERIFY(panel.exportCsv(csv, ServingCsv::Curves));
        QVERIFY(readAll(csv).rfind("method,rate_per_s,attainment_pct\r\nalpaserve,16,", 0) == 0);

        // A value that is not a number is refused before anything runs.
        panel.curveValues()->setText(QStringLiteral("4, x"));
        QSignalSpy failed(&panel, &ServingPanel::failed);
        panel.computeCurves();
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("\"x\"")));
        QVERIFY(!panel.isBusy());
        runner.waitForDone();
    }

    void traceTrafficIsCoresSimulationOfTheTrace()
    {
        JobRunner runner;
        ServingPanel panel(&runner, m_dir.filePath(QStringLiteral("none.sqlite")));
        panel.resize(1200, 800);
        panel.show();
        ServingInputs* in = panel.inputs();
        setSmallCase(in);
        in->sloScale()->setValue(2);

        // A trace chosen and no file named: refused before anything runs, naming what is missing.
        in->trafficSource()->setCurrentIndex(in->trafficSource()->findData(true));
        QVERIFY(in->usesTrace());
        QVERIFY(in->tracePath()->isVisible());
        QVERIFY(!in->rate()->isVisible()); // the Gamma fields give way to the trace's
        QSignalSpy failed(&panel, &ServingPanel::failed);
        panel.place();
        QCOMPARE(failed.count(), 1);
        QVERIFY(failed.first().first().toString().contains(QStringLiteral("trace file")));
        QVERIFY(!panel.isBusy());
        // The curves' rate and CV become the trace's rate and CV scales.
        const int rateAxis = panel.curveAxis()->findData(static_cast<int>(serve::CurveAxis::Rate));
        panel.curveAxis()->setCurrentIndex(rateAxis);
        QVERIFY(panel.curveAxis()->itemText(rateAxis).startsWith(QStringLiteral("Rate scale")));
        QCOMPARE(panel.curveValues()->text(), QStringLiteral("0.5, 1, 2, 4"));

        // A file with a bad row: the reader's error, file:line: field, is shown under the file and again when placing.
        const QString bad = m_dir.filePath(QStringLiteral("bad-maf2.csv"));
        {
            std::ofstream out(bad.toStdString());
            out << "app,func,end_timestamp,duration\na,f,30,1.5\na,g,10,12\n";
        }
        QSignalSpy read(&panel, &ServingPanel::traceRead);
        in->tracePath()->setText(bad);
        QTest::keyClick(in->tracePath(), Qt::Key_Return);
        QVERIFY(read.wait(test::kWorkerWaitMs));
        QCOMPARE(read.first().first().toBool(), false);
        QVERIFY2(in->traceInfo()->text().startsWith(QStringLiteral("bad-maf2.csv:3: duration: 12 s is longer")),
                 qPrintable(in->traceInfo()->text()));
        failed.clear();
        panel.place();
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, test::kWorkerWaitMs);
        QVERIFY2(failed.first().first().toString().startsWith(QStringLiteral("bad-maf2.csv:3: duration:")),
                 qPrintable(failed.first().first().toString()));
        QVERIFY(panel.messageLabel()->text().startsWith(QStringLiteral("bad-maf2.csv:3: duration:")));
        QVERIFY(!panel.currentRun());

        // The synthetic MAF2 file (6 functions, 120 minutes, 1,924 invocations), ten times its rate, two 60-min
        // windows, on four BERT-1.3B at SLO 2x.
        const QString maf2 = QString::fromStdString(test::sourcePath("data/serving/maf2_synthetic.csv"));
        read.clear();
        in->tracePath()->setText(maf2);
        QTest::keyClick(in->tracePath(), Qt::Key_Return);
        QVERIFY(read.wait(test::kWorkerWaitMs));
        QCOMPARE(read.first().first().toBool(), true);
        QVERIFY2(in->traceInfo()->text().startsWith(
                     QStringLiteral("6 function(s), 120 minute(s), %1 invocation(s)").arg(QLocale().toString(1924))),
                 qPrintable(in->traceInfo()->text()));
        in->rateScale()->setValue(10);
        const serve::ServingSpec spec = in->spec();
        QCOMPARE(spec.trace, maf2.toStdString());
        QCOMPARE(spec.windowMin, 60);
        QCOMPARE(spec.rateScale, 10.0);

        QSignalSpy placed(&panel, &ServingPanel::placed);
        panel.placeButton()->click();
        QVERIFY(placed.wait(test::kWorkerWaitMs));
        const serve::ServingRun& shown = *panel.currentRun();
        QCOMPARE(shown.spec.trace, spec.trace);

        // Core directly: the trace read and fitted per window, its requests drawn, AlpaServe's search, the simulation.
        auto setup = serve::prepareServing(spec);
        QCOMPARE(setup->windows.size(), std::size_t(2));
        QCOMPARE(setup->windowS, 3600.0);
        serve::ProfileCache cache(setup->problem);
        const auto search = serve::searchPlacement(cache, setup->workload);
        const auto sim = serve::evaluatePlacement(cache, search.placement, setup->workload, true);
        QCOMPARE(shown.requests, static_cast<long long>(setup->workload.requests.size()));
        QCOMPARE(shown.served, sim.served);
        QCOMPARE(shown.attainment(), sim.attainment());
        QVERIFY(shown.attainment() > 0.2 && shown.attainment() < 0.99); // a real case: the bursts at SLO 2x cost (54%)
        QCOMPARE(shown.latency.p99S, serve::summarizeLatencies(sim).p99S);
        QCOMPARE(shown.groups.size(), search.placement.groups.size());
        const QString summary = panel.summary()->text();
        QVERIFY(summary.contains(QStringLiteral("%1%").arg(100 * sim.attainment(), 0, 'f', 2)));
        QVERIFY(summary.contains(QStringLiteral("(%1 of %2 requests)").arg(sim.served).arg(shown.requests)));
        QVERIFY(summary.contains(QStringLiteral("p99 %1 s").arg(serve::summarizeLatencies(sim).p99S, 0, 'f', 3)));
        QVERIFY(summary.contains(QStringLiteral("trace maf2_synthetic.csv (60-min windows, rates x10")));
        QCOMPARE(panel.cdfChart()->cdfLine()->count(), 2 * static_cast<int>(shown.cdf.size()));
        QCOMPARE(panel.cdfChart()->cdfLine()->at(1).y(), shown.cdf.front().second);

        // Curves along the trace's rate scale, on the worker: each point is core's run of the spec at that scale.
        panel.curveValues()->setText(QStringLiteral("20, 5"));
        QSignalSpy ready(&panel, &ServingPanel::curvesReady);
        panel.curvesButton()->click();
        QVERIFY(ready.wait(test::kWorkerWaitMs));
        const auto& curves = *panel.curves();
        QVERIFY(curves.trace);
        for (std::size_t m = 0; m < curves.methods.size(); ++m) {
            serve::ServingSpec at = serve::withAxisValue(spec, serve::CurveAxis::Rate, 20);
            QCOMPARE(at.rateScale, 20.0);
            QCOMPARE(at.ratePerS, spec.ratePerS);
            at.method = curves.methods[m];
            QCOMPARE(curves.attainment[m][0], serve::runServing(at).attainment());
            QLineSeries* line = panel.attainmentChart()->line(QString::fromStdString(serve::methodTitle(at.method)));
            QVERIFY(line);
            QCOMPARE(line->at(1).y(), 100 * curves.attainment[m][0]); // drawn in axis order: 5, then 20
        }
        QVERIFY(curves.attainment[0][0] <= curves.attainment[0][1]); // more of the same traffic serves no more
        const QString csv = m_dir.filePath(QStringLiteral("trace-curves.csv"));
        QVERIFY(panel.exportCsv(csv, ServingCsv::Curves));
        QVERIFY(readAll(csv).rfind("method,rate_scale,attainment_pct\r\nalpaserve,20,", 0) == 0);

        // The run's inputs shown again (a stored run's way back): the trace source, its file and its scales.
        ServingPanel other(&runner, m_dir.filePath(QStringLiteral("none.sqlite")));
        QSignalSpy otherRead(&other, &ServingPanel::traceRead);
        other.inputs()->setSpec(shown.spec);
        QVERIFY(other.inputs()->usesTrace());
        QCOMPARE(serve::servingSpecToJson(other.inputs()->spec()).dump(), serve::servingSpecToJson(shown.spec).dump());
        QVERIFY(otherRead.wait(test::kWorkerWaitMs));
        QVERIFY(other.inputs()->traceInfo()->text().startsWith(QStringLiteral("6 function(s)")));
        runner.waitForDone();
    }

    void cancelStopsALongComputationPromptly()
    {
        JobRunner runner;
        ServingPanel panel(&runner, m_dir.filePath(QStringLiteral("none.sqlite")));
        // S3 (60 models of six kinds) on 64 V100s: about ten seconds per AlpaServe search, twelve searches here.
        panel.inputs()->modelSet()->setCurrentIndex(panel.inputs()->modelSet()->findData(QStringLiteral("S3")));
        panel.inputs()->gpus()->setValue(64);
        panel.inputs()->cv()->setValue(4);
        panel.curveValues()->setText(QStringLiteral("10, 20, 40, 80"));
        QSignalSpy cancelled(&panel, &ServingPanel::cancelled);
        QSignalSpy ready(&panel, &ServingPanel::curvesReady);
        panel.computeCurves();
        QVERIFY(panel.isBusy());
        // The GUI thread keeps answering while the worker searches: timers fire on time.
        int ticks = 0;
        QTimer tick;
        connect(&tick, &QTimer::timeout, [&ticks] { ++ticks; });
        tick.start(20);
        QTest::qWait(800);
        QVERIFY2(ticks >= 10, qPrintable(QString::number(ticks))); // 40 on an idle machine; a frozen GUI: 0 or 1
        QVERIFY(panel.isBusy());
        QElapsedTimer clock;
        clock.start();
        panel.cancelButton()->click();
        QVERIFY(cancelled.wait(test::kWorkerWaitMs));
        QVERIFY2(clock.elapsed() < 2000, qPrintable(QString::number(clock.elapsed())));
        QCOMPARE(ready.count(), 0);
        QVERIFY(!panel.isBusy());
        QVERIFY(panel.placeButton()->isEnabled());
        QVERIFY(panel.messageLabel()->text().contains(QStringLiteral("Cancelled")));
        runner.waitForDone();
    }

    void savedRunReloadsIdentically()
    {
        const QString db = m_dir.filePath(QStringLiteral("serving.sqlite"));
        JobRunner runner;
        ServingPanel panel(&runner, db);
        setSmallCase(panel.inputs(), serve::kMethodSelectiveReplication);
        QSignalSpy placed(&panel, &ServingPanel::placed);
        panel.place();
        QVERIFY(placed.wait(test::kWorkerWaitMs));
        QVERIFY(panel.saveButton()->isEnabled());
        const serve::ServingRun before = *panel.currentRun();
        const serve::ServingSpec inputs = panel.inputs()->spec();
        QSignalSpy saved(&panel, &ServingPanel::saved);
        QSignalSpy listed(&panel, &ServingPanel::storedListed);
        panel.saveButton()->click();
        QVERIFY(saved.wait(test::kWorkerWaitMs));
        const qint64 id = saved.first().first().toLongLong();
        QCOMPARE(panel.currentRun()->id, id);
        QVERIFY(!panel.saveButton()->isEnabled()); // stored already
        QTRY_COMPARE_WITH_TIMEOUT(panel.storedList()->count(), 1, 10000);

        // In the store: what the panel showed.
        serve::ServingRun stored;
        {
            store::RunStore::Options ro;
            ro.access = store::RunStore::Access::ReadOnly;
            store::RunStore s(db.toStdString(), ro);
            stored = store::loadServingRun(s.connection(), id);
        }
        QCOMPARE(serve::servingSpecToJson(stored.spec).dump(), serve::servingSpecToJson(before.spec).dump());
        QCOMPARE(stored.attainment(), before.attainment());
        QVERIFY(stored.cdf == before.cdf);
        QCOMPARE(stored.groups.size(), before.groups.size());

        // A new panel on the database shows its newest serving run, inputs included, as stored.
        ServingPanel other(&runner, db);
        QSignalSpy shown(&other, &ServingPanel::runShown);
        QVERIFY(shown.wait(test::kWorkerWaitMs));
        const serve::ServingRun& back = *other.currentRun();
        QCOMPARE(back.id, id);
        QCOMPARE(back.uid, stored.uid);
        QCOMPARE(serve::servingSpecToJson(other.inputs()->spec()).dump(), serve::servingSpecToJson(inputs).dump());
        QCOMPARE(back.attainment(), before.attainment());
        QCOMPARE(back.served, before.served);
        QCOMPARE(back.latency.p99S, before.latency.p99S);
        QVERIFY(back.cdf == before.cdf);
        QCOMPARE(back.groups.size(), before.groups.size());
        for (std::size_t g = 0; g < back.groups.size(); ++g) {
            QVERIFY(back.groups[g].config == before.groups[g].config);
            QCOMPARE(back.groups[g].models, before.groups[g].models);
            QCOMPARE(back.groups[g].utilisation, before.groups[g].utilisation);
        }
        QCOMPARE(other.clusterPicture()->groupCount(), panel.clusterPicture()->groupCount());
        for (int g = 0; g < other.clusterPicture()->groupCount(); ++g)
            QCOMPARE(other.clusterPicture()->groupText(g), panel.clusterPicture()->groupText(g));
        QVERIFY(!other.saveButton()->isEnabled());
        runner.waitForDone();
    }

    void reachableFromTheViewMenu()
    {
        MainWindow window;
        window.setDatabasePath(m_dir.filePath(QStringLiteral("window.sqlite")));
        QTabWidget* tabs = window.resultTabs();
        const int index = tabs->indexOf(window.servingPanel());
        QVERIFY(index >= 0);
        QCOMPARE(tabs->tabText(index), QStringLiteral("Serving"));
        QAction* action = nullptr;
        for (QAction* menu : window.menuBar()->actions())
            if (menu->menu() && menu->text() == QStringLiteral("&View"))
                for (QAction* a : menu->menu()->actions())
                    if (a->text() == QStringLiteral("Serving"))
                        action = a;
        QVERIFY(action);
        QVERIFY(!action->shortcut().isEmpty());
        tabs->setCurrentIndex(0);
        action->trigger();
        QCOMPARE(tabs->currentWidget(), static_cast<QWidget*>(window.servingPanel()));
        window.jobRunner()->waitForDone();
    }

private:
    QTemporaryDir m_dir;
};

QTEST_MAIN(TestServingPanel)
#include "test_serving_panel.moc"
