#pragma once

#include "sim/run_result.h"
#include "store/run_record.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace orrery::store {
class RunStore;
class RunWriter;
} // namespace orrery::store

namespace orrery::gui {

/**
 * Stores one GUI run in the SQLite store while it is simulated, as
 * `orrery-cli simulate --db` does: the run is `running` from its start,
 * partial results are synced at most every kSyncS seconds, and it ends
 * `completed` or `cancelled`. A crash of the GUI therefore loses at most the
 * last quarter second of a run, and the next open marks it interrupted.
 *
 * Lives on the worker thread of its run; every store access holds
 * RunSaver::storeMutex(), so parallel runs write one at a time.
 */
class RunRecording
{
public:
    static constexpr double kSyncS = 0.25;

    /** Opens `path` and records a new running run; throws (orrery::Error, store::DatabaseError) if it cannot. */
    RunRecording(const std::string& path, const store::RunInfo& info);
    /** Without finish(), the run is left `failed` (the simulation threw). */
    ~RunRecording();
    RunRecording(const RunRecording&) = delete;
    RunRecording& operator=(const RunRecording&) = delete;

    /** Called with each partial result; writes what is new once kSyncS has passed since the last write. */
    void partial(const sim::RunResult& partial);
    /** Writes the rest and the status (cancelled when `result.cancelled`); returns the run's store id. */
    std::int64_t finish(const sim::RunResult& result);

private:
    std::unique_ptr<store::RunStore> m_store;
    std::unique_ptr<store::RunWriter> m_writer;
    std::optional<std::chrono::steady_clock::time_point> m_lastSync;
};

} // namespace orrery::gui
