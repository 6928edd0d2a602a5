#pragma once

#include "sim/run_result.h"
#include "store/prepared_run.h"
#include "store/run_record.h"
#include "store/run_writer.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace orrery::store {

class Connection;

/**
 * The SQLite file that keeps every run (schema: docs/database.md).
 *
 * Opening checks the file before writing anything: a file that is not an
 * SQLite database, an SQLite database of another application, a damaged one,
 * or one written by a newer Orrery is refused with an orrery::Error naming
 * the file, and left as it was. Opened for writing, a store must also pass
 * `PRAGMA quick_check`, so that new runs never go into a damaged file. A
 * missing or empty file becomes a new store; an older schema is migrated
 * forward (several processes may create or migrate one file at once). Runs
 * left `running` by a writer that no longer exists are then marked failed
 * with the error "interrupted".
 *
 * Opened ReadOnly, nothing is written (no recovery, no migration): the store
 * may sit on a read-only mount. Runs of dead writers are then reported
 * failed/"interrupted" without being changed in the file.
 */
class RunStore
{
public:
    enum class Access { ReadWrite, ReadOnly };
    struct Options
    {
        Access access = Access::ReadWrite;
        /** How long to wait for another process's write lock before failing. */
        int lockTimeoutMs = 60000;
        /** Told when a wait for a lock gets long (e.g. to say so on stderr). */
        std::function<void(const std::string& path)> onLockWait;
    };

    explicit RunStore(const std::string& path);
    RunStore(const std::string& path, const Options& options);
    ~RunStore();
    RunStore(RunStore&&) noexcept;
    RunStore& operator=(RunStore&&) noexcept;

    const std::string& path() const { return m_path; }
    /** Ids of the runs marked interrupted when this store was opened. */
    const std::vector<std::int64_t>& recoveredRuns() const { return m_recovered; }

    /** Finds or inserts the scenario (by content); returns its id. */
    std::int64_t storeScenario(const std::string& name, const std::string& json);
    std::string scenarioJson(std::int64_t scenarioId);

    /** Records a new `running` run owned by this process and returns the writer that fills it. */
    RunWriter beginRun(const RunInfo& info, int batchRows = RunWriter::kDefaultBatchRows);
    /**
     * Stores a complete result in one transaction (completed, or cancelled when result.cancelled); returns the run
     * id. All or nothing: a run that cannot be stored throws and leaves no trace.
     */
    std::int64_t storeRun(const RunInfo& info, const sim::RunResult& result);

    /** A complete result for storeRuns; both must outlive the call. */
    struct RunToStore
    {
        const RunInfo* info = nullptr;
        const sim::RunResult* result = nullptr;
    };
    /** What became of one run of storeRuns: its id, or 0 and why it was left out. */
    struct StoredOutcome
    {
        std::int64_t runId = 0;
        std::string error;
    };
    /**
     * Stores several complete results as storeRun does, in one transaction (a sweep's finished points: one
     * commit for many runs instead of one or more per run). Each run is still all or nothing: one that cannot be
     * stored is left out with its error and the others are stored. A failure of the file itself (disk full, a lock
     * held past the timeout) throws and stores none of them, as does a process killed before the commit.
     */
    std::vector<StoredOutcome> storeRuns(const std::vector<RunToStore>& runs);
    /**
     * The same for runs prepared beforehand (prepareRun, on any thread): this only binds their rows and steps the
     * statements, which is all a sweep's one writer does. The rows are those of storeRuns above.
     */
    std::vector<StoredOutcome> storeRuns(const std::vector<const PreparedRun*>& runs);

    std::vector<RunRecord> listRuns(const RunFilter& filter = {});
    std::optional<RunRecord> findRun(std::int64_t id);
    /** How much of a run loadRun reads. */
    enum class RunParts {
        Whole,
        /** What metrics::summarize reads: the jobs with their extras, the intervals and the decisions. The GPU
         *  layout, utilisation samples, job events, series and rate segments stay empty (a sweep's table of a
         *  thousand runs needs none of them, and the events alone can be most of a run's rows). */
        ForSummary,
    };
    /** The run; throws orrery::Error (field `run`) when there is no such run. */
    StoredRun loadRun(std::int64_t id, RunParts parts = RunParts::Whole);
    /**
     * Deletes a run and its rows (and its scenario when no other run uses it).
     * False when there is no such run; throws orrery::Error when a live process is still writing it.
     */
    bool deleteRun(std::int64_t id);

    /** `PRAGMA integrity_check`: "ok", or the problems found. */
    std::string integrityCheck();

    Connection& connection() { return *m_db; }

    bool readOnly() const;

private:
    /** storeRuns with a savepoint per run, so that a run that fails part-way is left out and the others kept. */
    std::vector<StoredOutcome> storeRunsOneByOne(const std::vector<const PreparedRun*>& runs);
    /** A whole run, inside the caller's transaction. */
    std::int64_t writeRun(const PreparedRun& run);
    /** The scenario's id, inserted when the store lacks it, inside the caller's transaction. */
    std::int64_t findOrInsertScenario(const std::string& name, const std::string& json, const std::string& hash);
    void recoverInterrupted();
    void refuseIfDamaged();
    void markDeadWriters(RunRecord& r) const;

    std::string m_path;
    std::unique_ptr<Connection> m_db;
    std::vector<std::int64_t> m_recovered;
    std::vector<std::int64_t> m_deadWriters; ///< read-only: runs shown as interrupted, not marked in the file
};

} // namespace orrery::store
