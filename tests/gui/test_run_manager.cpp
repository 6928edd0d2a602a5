// The run manager's rows as a run goes through its phases, driven by a
// scripted simulate function (no core simulation, no store): the preparing
// phase shown as such, the simulating phase with its fraction, and a cancelled
// run that keeps its bar where it stopped without scrolling the panel (issue 19).
#include "async/job_runner.h"
#include "document/scenario_document.h"
#include "results/run_library.h"
#include "runs/run_manager_panel.h"
#include "runs/simulate_function.h"

#include <QApplication>
#include <QProgressBar>
#include <QScrollArea>
#include <QScrollBar>
#include <QTest>
#include <QThread>

#include <atomic>
#include <memory>

using namespace orrery;
using namespace orrery::gui;

class TestRunManager : public QObject
{
    Q_OBJECT
private slots:
    /** Runs of an edited scenario get a distinct name in the history; going back to a content seen before gives
     * its name back (issue 19: "edited scenarios get a distinct name in the run history"). */
    void editedScenariosAreNamedApart()
    {
        ScenarioDocument document;
        document.reset(io::defaultScenario(), QString());
        RunLibrary runs;
        JobRunner runner;
        RunManagerPanel panel(&document, &runs, &runner, SimulateFunction{});
        const QString name = QString::fromStdString(document.scenario().name);
        QCOMPARE(panel.historyNameOfScenario(), name);
        QCOMPARE(panel.historyNameOfScenario(), name);
        auto jobs = document.scenario().workload.jobs;
        QVERIFY(jobs.size() > 1);
        jobs.pop_back();
        document.setJobs(jobs, QStringLiteral("drop a job"));
        QCOMPARE(panel.historyNameOfScenario(), name + QStringLiteral(" (edit 1)"));
        jobs.pop_back();
        document.setJobs(jobs, QStringLiteral("drop a job"));
        QCOMPARE(panel.historyNameOfScenario(), name + QStringLiteral(" (edit 2)"));
        document.undoStack()->undo();
        QCOMPARE(panel.historyNameOfScenario(), name + QStringLiteral(" (edit 1)"));
        document.undoStack()->undo();
        QCOMPARE(panel.historyNameOfScenario(), name);
    }

    void phasesAndCancel()
    {
        ScenarioDocument document;
        document.reset(io::defaultScenario(), QString());
        RunLibrary runs;
        JobRunner runner;
        auto prepared = std::make_shared<std::atomic<bool>>(false);
        // As the core simulate function goes: a preparing phase of unknown length, then a fraction of jobs
        // done; cancelled, the simulator still says 100% as it stops, and takes a moment to hand back.
        const SimulateFunction scripted = [prepared](const io::Scenario&, const std::string& policy, TaskContext& ctx,
                                                     const sim::PartialResultFn&) {
            ctx.reportProgress(0.0, kPhasePreparing);
            while (!prepared->load() && !ctx.isCancelled())
                QThread::msleep(2);
            ctx.reportProgress(0.0, kPhaseSimulating);
            ctx.reportProgress(0.4);
            while (!ctx.isCancelled())
                QThread::msleep(2);
            ctx.reportProgress(1.0);
            QThread::msleep(300);
            sim::RunResult r;
            r.policy = policy;
            r.cancelled = true;
            return r;
        };
        RunManagerPanel panel(&document, &runs, &runner, scripted);
        panel.resize(330, 500); // narrow, as a docked panel is
        panel.show();
        const auto ids = panel.runPolicies({QStringLiteral("max_min_fairness")});
        QCOMPARE(ids.size(), 1);
        const JobRunner::TaskId id = ids.front();
        const QProgressBar* bar = panel.barOf(id);
        QVERIFY(bar);

        // Preparing: a busy bar and the phase's name; no percentage, no ETA.
        QTRY_VERIFY_WITH_TIMEOUT(panel.statusTextOf(id).contains(QStringLiteral("preparing")), 3000);
        QTest::qWait(250);
        QCOMPARE(bar->maximum(), 0);
        QVERIFY(!panel.statusTextOf(id).contains(QStringLiteral("ETA")));

        // Simulating: the fraction, and the phase no longer "preparing".
        prepared->store(true);
        QTRY_COMPARE_WITH_TIMEOUT(bar->value(), 400, 3000);
        QCOMPARE(bar->maximum(), 1000);
        QVERIFY2(panel.statusTextOf(id).startsWith(QStringLiteral("simulating")), qPrintable(panel.statusTextOf(id)));

        // Cancelled: the bar stays where the run stopped and says so; the panel does not scroll sideways.
        QScrollBar* sideways = panel.rowsArea()->horizontalScrollBar();
        panel.cancel(id);
        QTRY_COMPARE_WITH_TIMEOUT(panel.statusOf(id), QStringLiteral("cancelled"), 5000);
        QCOMPARE(bar->value(), 400);
        QVERIFY(bar->value() < bar->maximum());
        QCOMPARE(panel.statusTextOf(id), QStringLiteral("cancelled at 40%"));
        QCOMPARE(sideways->value(), 0);
        // Every row fits the panel's width: nothing (Cancel included) is cut off at the right.
        QVERIFY(panel.rowsArea()->widget()->minimumSizeHint().width() <= panel.rowsArea()->viewport()->width());
        QCOMPARE(panel.rowsArea()->horizontalScrollBarPolicy(), Qt::ScrollBarAlwaysOff);
        QVERIFY(runs.runs().isEmpty()); // a cancelled run is not added to the library
        runner.waitForDone();
    }
};

QTEST_MAIN(TestRunManager)
#include "test_run_manager.moc"
