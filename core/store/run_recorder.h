#pragma once

#include "sim/run_result.h"
#include "store/run_record.h"
#include "store/run_store.h"
#include "store/run_writer.h"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace orrery::store {

/**
 * Records runs in a store while they are simulated: what `orrery-cli simulate --db` and the GUI's run
 * manager both do. Each run is `running` from construction, its partial results are written at most
 * every kSyncS seconds (so a crash or kill loses at most that much and leaves the store consistent),
 * and finish() ends it `completed`, or `cancelled` when the result says so. A run not ended by
 * finish() or fail() when the recorder is destroyed is marked failed by its writer.
 *
 * The runs share one connection. Every store access holds `mutex`: the recorder's own, or one the
 * caller shares with other connections to the same file (the GUI's, so that parallel runs and the
 * store browser never find the file locked by each other). partial(), finish() and fail() may be
 * called from several threads, each for its own run.
 */
class RunRecorder
{
public:
    static constexpr double kSyncS = 0.25;

    /** Begins one running run per info in `store`; throws (orrery::Error, DatabaseError) if it cannot. */
    RunRecorder(RunStore store, const std::vector<RunInfo>& runs, std::mutex* mutex = nullptr);
    ~RunRecorder();
    RunRecorder(const RunRecorder&) = delete;
    RunRecorder& operator=(const RunRecorder&) = delete;

    std::size_t size() const { return m_writers.size(); }
    std::int64_t runId(std::size_t run) const { return m_writers[run].runId(); }
    const std::string& path() const { return m_path; }
    bool finished(std::size_t run) const;

    /** Writes what is new in `partial` once kSyncS has passed since this run's last write. */
    void partial(std::size_t run, const sim::RunResult& partial);
    /** Writes the rest and ends the run: cancelled when `result.cancelled`, completed otherwise. */
    void finish(std::size_t run, const sim::RunResult& result);
    /** Commits what was written and marks the run failed with `error`. */
    void fail(std::size_t run, const std::string& error);

private:
    std::mutex m_ownMutex;
    std::mutex& m_mutex;
    std::string m_path;
    std::optional<RunStore> m_store;
    std::vector<RunWriter> m_writers;
    std::vector<std::optional<std::chrono::steady_clock::time_point>> m_lastSync;
};

} // namespace orrery::store
