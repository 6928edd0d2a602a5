#pragma once

#include "async/job_runner.h"
#include "sweep/sweep_estimate.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runner.h"
#include "sweep/workload_cache.h"

#include <QObject>
#include <QString>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace orrery::gui {

/**
 * Runs a sweep spec into a run store from the GUI, as `orrery-cli sweep run` does: prepare() resolves the spec and
 * estimates the CPU time on a worker (what the user confirms), start() runs the points on a worker
 * (core's sweep::runSweep on its own threads) with progress, cancel() stops it keeping every stored point; preparing
 * and starting the same spec again runs only what is missing.
 */
class SweepRunController : public QObject
{
    Q_OBJECT
public:
    /** A resolved spec, ready to run. */
    struct Prepared
    {
        QString specPath;
        QString databasePath;
        std::shared_ptr<const sweep::SweepPlan> plan;
        std::size_t alreadyStored = 0; ///< points stored completed in the store before
        std::size_t toRun = 0;
        std::optional<sweep::CpuEstimate> estimate; ///< its samples are stored rather than simulated again
        std::shared_ptr<sweep::WorkloadCache> cache;
    };
    /** How a run ended. */
    struct Outcome
    {
        std::size_t ran = 0, failed = 0, alreadyStored = 0, notRun = 0;
        bool stopped = false;
        QString error; ///< the run could not go on (the store could not be opened, say)
    };

    SweepRunController(JobRunner* runner, QObject* parent = nullptr);

    /** Resolves `specPath` against the store at `databasePath` (which may not exist yet); with `estimate`, also
     *  measures the CPU time (sweep::estimateCpu: a few points simulated, at most about 2 CPU seconds). */
    void prepare(const QString& specPath, const QString& databasePath, bool estimate = true);
    /** The same for a spec built in memory (the sweep builder's); `label` names it in the summary. */
    void prepare(sweep::SweepSpec spec, const QString& label, const QString& databasePath, bool estimate = true);
    const Prepared* prepared() const { return m_prepared.get(); }
    /** What the confirmation says: the sweep, its points, how many are stored already and the estimate. */
    QString summaryText() const;
    /** Runs the prepared sweep on `jobs` threads (0: as many as the machine has cores). */
    void start(int jobs = 0);
    void cancel();
    bool isPreparing() const { return m_prepareTask != 0; }
    bool isRunning() const { return m_runTask != 0; }
    /** Points ended in the current (or last) run, and its total: read from the worker as it goes. */
    std::size_t pointsDone() const { return m_state ? m_state->done.load() : 0; }
    std::size_t pointsTotal() const { return m_state ? m_state->total.load() : 0; }
    const Outcome& lastOutcome() const { return m_outcome; }

signals:
    void preparedReady();
    /** The spec cannot be run: the error names the spec file and the JSON path. */
    void prepareFailed(const QString& error);
    /** Sampled while running: points done of total, the ETA in seconds (< 0 unknown) and a line saying so. */
    void progress(int done, int total, double etaS, const QString& text);
    void finished(const orrery::gui::SweepRunController::Outcome& outcome);

private:
    struct State
    {
        std::atomic<std::size_t> done{0}, total{0}, failed{0};
        std::atomic<double> elapsedS{0};
        std::mutex mutex;
        Outcome outcome;
    };
    void ended(JobRunner::TaskId id);
    void prepareWith(const QString& label, const QString& databasePath, bool estimate,
                     std::function<sweep::SweepSpec()> load);

    JobRunner* m_runner;
    std::shared_ptr<Prepared> m_prepared;
    std::shared_ptr<State> m_state;
    JobRunner::TaskId m_prepareTask = 0;
    JobRunner::TaskId m_runTask = 0;
    Outcome m_outcome;
};

/** "1:05", "2:03:00": a duration as the CLI's progress bar writes it; "?" when unknown. */
QString clockText(double seconds);

} // namespace orrery::gui
