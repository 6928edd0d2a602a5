#pragma once

#include "sim/run_result.h"
#include "store/run_record.h"

#include <cstdint>
#include <memory>
#include <string>

namespace orrery::store {

class Connection;

/**
 * Writes one run as it is simulated. Records go into a transaction that is
 * committed after each kind of record (jobs, intervals, samples, decisions)
 * once `batchRows` or more are pending, and at the end of every sync() and
 * finish(), so a crash loses at most the uncommitted records and the file
 * stays consistent. No transaction stays open between calls, so several
 * writers may share one connection (serialised by the caller).
 *
 * sync() takes the growing RunResult and writes only what is new: intervals,
 * utilisation samples and decisions past those already written (they are
 * append-only while the run goes on), and job records once they are final
 * (finished). finish() writes the remaining jobs and the run's summary and
 * status; if the final result orders its intervals differently from what was
 * synced, the run's intervals are rewritten in the final order.
 *
 * A writer destroyed before finish()/fail() marks its run failed
 * ("writer closed before the run ended"), so no run stays `running` once its
 * writer is gone. Single-threaded: use it from one thread.
 */
class RunWriter
{
public:
    static constexpr int kDefaultBatchRows = 10000;

    RunWriter(Connection& db, std::int64_t runId, int batchRows = kDefaultBatchRows);
    ~RunWriter();
    RunWriter(RunWriter&&) noexcept;
    RunWriter& operator=(RunWriter&&) = delete;
    RunWriter(const RunWriter&) = delete;
    RunWriter& operator=(const RunWriter&) = delete;

    std::int64_t runId() const;

    /** Writes what `partial` holds beyond the previous sync, committing every batch and at the end. */
    void sync(const sim::RunResult& partial);
    /** Writes the rest of `result`, its summary and `status` (Completed or Cancelled), and commits. */
    void finish(const sim::RunResult& result, RunStatus status);
    /** Commits what was written and marks the run failed with `error`. */
    void fail(const std::string& error);
    bool finished() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

} // namespace orrery::store
