#pragma once

#include "async/job_runner.h"
#include "runs/simulate_function.h"

#include <QHash>
#include <QWidget>

#include <cstdint>
#include <functional>
#include <vector>

class QLabel;
class QListWidget;
class QProgressBar;
class QPushButton;
class QScrollArea;
class QSpinBox;
class QVBoxLayout;

namespace orrery::gui {

class RunLibrary;
class ScenarioDocument;

/**
 * Choose policies, run them (each in its own worker task, several at once),
 * follow each with a progress bar, an ETA and Cancel. A failed run shows its
 * error in its row and leaves the others running. Runs are stored while they
 * run (store::RunRecorder, as the CLI does) when a store path is set, and finished runs go to the
 * RunLibrary.
 */
class RunManagerPanel : public QWidget
{
    Q_OBJECT
public:
    RunManagerPanel(ScenarioDocument* document, RunLibrary* runs, JobRunner* runner, SimulateFunction simulate,
                    QWidget* parent = nullptr);

    /** Starts one run per policy on a snapshot of the current scenario; returns the task ids. Runs of a scenario
     * edited since its first run under that name are named "name (edit n)" in the history. */
    QVector<JobRunner::TaskId> runPolicies(const QStringList& policies);
    QStringList checkedPolicies() const;
    void setCheckedPolicies(const QStringList& policies);
    void cancel(JobRunner::TaskId id);
    /** Status text of a run's row ("running", "done", "cancelled", "failed: ..."). */
    QString statusOf(JobRunner::TaskId id) const;
    /** The progress bar of a run's row (tests, screenshots); nullptr for an unknown id. */
    const QProgressBar* barOf(JobRunner::TaskId id) const;
    /** The text beside a run's bar (phase, ETA, final state). */
    QString statusTextOf(JobRunner::TaskId id) const;
    QScrollArea* rowsArea() const { return m_area; }
    /** Runs started from now on are stored in this SQLite file while they run (store::RunRecorder); empty: not stored.
     */
    void setStorePathProvider(std::function<QString()> provider) { m_storePath = std::move(provider); }
    /** The name the runs of the current scenario get in the history (see runPolicies). */
    QString historyNameOfScenario();

signals:
    void runFinished(int runId);
    void runFailed(const QString& policy, const QString& error);
    void allFinished();

private:
    struct Row
    {
        QString policy;
        QWidget* widget = nullptr;
        QProgressBar* bar = nullptr;
        QLabel* status = nullptr;
        QPushButton* cancel = nullptr;
        QString state;
        bool cancelling = false; ///< cancel asked: the bar stays where it was
    };
    void onProgress(JobRunner::TaskId id, double fraction, double etaS, const QString& message);
    void finishRow(JobRunner::TaskId id, const QString& state, bool keepBar);
    void populatePolicies();

    ScenarioDocument* m_document;
    RunLibrary* m_runs;
    JobRunner* m_runner;
    SimulateFunction m_simulate;
    std::function<QString()> m_storePath;
    QListWidget* m_policies;
    QSpinBox* m_seed;
    QPushButton* m_run;
    QVBoxLayout* m_rowsLayout;
    QScrollArea* m_area = nullptr;
    QHash<JobRunner::TaskId, Row> m_rows;
    QHash<QString, int> m_runCounter;
    /** Per scenario name, the contents run under it so far (hashes), in order: the n-th different content is
     * shown as "name (edit n)" so the history never gives one name to two scenarios. */
    QHash<QString, std::vector<std::uint64_t>> m_scenarioContents;
};

} // namespace orrery::gui
