#pragma once

#include "hardware/gpu_layout.h"
#include "sim/run_result.h"
#include "store/chunk_layout.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

namespace orrery::store {

class Connection;

/*
 * The long per-run series (allocation intervals, utilisation samples,
 * decision timings) are stored column-wise: one row per chunk of up to
 * kChunkRows records, each column a BLOB of little-endian int32 or float64
 * values. One SQL row per record made storing a 100,000-job run cost several
 * times its simulation (docs/performance.md); packed chunks cost a memcpy.
 * The byte layout is documented in docs/database.md for pandas/numpy users.
 */

/** A job event as the store keeps it: the kind as its name (sim::toString(JobEventKind)). */
struct StoredEvent
{
    int job = 0;
    double timeS = 0;
    std::string kind;
    std::string detail;
};

/** The tables of column chunks. */
enum class ChunkTable { Intervals, Utilization, Decisions, Jobs, Events, RateSegments, Gpus };

/** One column of a chunk, already in the stored (little-endian) byte order. */
using ChunkColumn = std::variant<std::vector<std::int32_t>, std::vector<double>>;

/**
 * A chunk as its table's row holds it, less the run id: what the encoders below make without a connection, so
 * that a sweep's simulating threads encode their runs and its one store writer only binds and steps
 * (RunStore::storeRuns with prepared runs, prepared_run.h).
 */
struct EncodedChunk
{
    ChunkTable table = ChunkTable::Intervals;
    std::size_t first = 0;            ///< the chunk's first record: chunk_index is first / kChunkRows
    std::size_t records = 0;          ///< records it holds
    std::string labels;               ///< Jobs, Events and Gpus: the chunk's string dictionary (chunk_layout.h)
    std::int64_t gpuTypes = 0;        ///< Utilization: values of busy_by_type per sample
    bool withApps = false;            ///< Jobs: the last column is the jobs' apps (schema 9)
    std::vector<ChunkColumn> columns; ///< in the table's column order
};

/*
 * The encoders: the chunks that hold records [from, rows.size()), whole chunks, the first one from its start (a
 * growing series rewrites its last, partial chunk). `storePath` names the store in the errors (a label with a
 * NUL byte, a job index past kMaxJobIndex: orrery::Error).
 */
std::vector<EncodedChunk> encodeIntervals(const std::vector<sim::AllocationInterval>& rows, std::size_t from);
std::vector<EncodedChunk> encodeUtilization(const std::vector<sim::UtilizationSample>& rows, std::size_t from);
std::vector<EncodedChunk> encodeDecisions(const std::vector<sim::DecisionTiming>& rows, std::size_t from);
/** Jobs in the order they became final: records [from, order.size()) of `order`, indices into `jobs`. */
std::vector<EncodedChunk> encodeJobs(const std::string& storePath, const std::vector<sim::JobRecord>& jobs,
                                     const std::vector<std::uint32_t>& order, std::size_t from);
std::vector<EncodedChunk> encodeEvents(const std::string& storePath, const std::vector<sim::JobEvent>& rows,
                                       std::size_t from);
std::vector<EncodedChunk> encodeEvents(const std::string& storePath, const std::vector<StoredEvent>& rows,
                                       std::size_t from);
std::vector<EncodedChunk> encodeRateSegments(const std::vector<sim::RateSegment>& rows, std::size_t from);
/**
 * The cluster's GPUs (schema 11, gpu_chunks): record g is global GPU g, with its node's index, its node's name and its
 * type. A run's layout is one chunk up to kChunkRows GPUs: one row per run instead of one per GPU (docs/database.md).
 */
std::vector<EncodedChunk> encodeGpus(const std::string& storePath, const hardware::GpuLayout& layout);

/** Records the chunks hold, summed. */
std::size_t recordsOf(const std::vector<EncodedChunk>& chunks);

/**
 * Appends one run's series chunk by chunk. A write starts at the chunk that
 * holds the first record not yet written and replaces it, so a growing
 * series can be synced often and its last, partial chunk is completed later.
 */
class ColumnChunkWriter
{
public:
    ColumnChunkWriter(Connection& db, std::int64_t runId);
    ~ColumnChunkWriter();
    ColumnChunkWriter(const ColumnChunkWriter&) = delete;
    ColumnChunkWriter& operator=(const ColumnChunkWriter&) = delete;

    /** Writes records [from, rows.size()); returns how many records it wrote (rewritten ones included). */
    std::size_t writeIntervals(const std::vector<sim::AllocationInterval>& rows, std::size_t from);
    std::size_t writeUtilization(const std::vector<sim::UtilizationSample>& rows, std::size_t from);
    std::size_t writeDecisions(const std::vector<sim::DecisionTiming>& rows, std::size_t from);
    /**
     * Job records are written in the order they become final (a job when it finishes, the rest when
     * the run ends): `order` lists the indices into `jobs` written so far, and records [from,
     * order.size()) of it are new. A label with a NUL byte throws orrery::Error.
     */
    std::size_t writeJobs(const std::vector<sim::JobRecord>& jobs, const std::vector<std::uint32_t>& order,
                          std::size_t from);
    /**
     * Job events (schema 6, event_chunks): append-only like the series above. Kinds and details are
     * stored as text in the chunk's labels, so a kind this build does not know survives a migration.
     */
    std::size_t writeEvents(const std::vector<sim::JobEvent>& rows, std::size_t from);
    std::size_t writeEvents(const std::vector<StoredEvent>& rows, std::size_t from);
    /** Rate segments (schema 7, rate_segment_chunks), written once the run has ended: the engine extends a job's last
     * segment. */
    std::size_t writeRateSegments(const std::vector<sim::RateSegment>& rows, std::size_t from);
    /** Writes chunks an encoder made (replacing any of the same index); returns the records they hold. */
    std::size_t write(const std::vector<EncodedChunk>& chunks);
    /** The same for chunks the run does not have yet (a run stored whole): plain inserts, which need no statement
     *  journal; a chunk already there is a constraint error. */
    std::size_t writeNew(const std::vector<EncodedChunk>& chunks);
    /** Removes the run's interval chunks (the series is about to be written again in another order). */
    void deleteIntervals();

private:
    struct Impl;
    std::unique_ptr<Impl> m;
};

/** Reads a run's series back; a damaged chunk throws orrery::Error naming `path`, the table, run and chunk. */
std::vector<sim::AllocationInterval> readIntervals(Connection& db, const std::string& path, std::int64_t runId);
std::vector<sim::UtilizationSample> readUtilization(Connection& db, const std::string& path, std::int64_t runId);
std::vector<sim::DecisionTiming> readDecisions(Connection& db, const std::string& path, std::int64_t runId);
/** A run's job events in the order they happened; an unknown kind is a damaged chunk. */
std::vector<sim::JobEvent> readJobEvents(Connection& db, const std::string& path, std::int64_t runId);
std::vector<sim::RateSegment> readRateSegments(Connection& db, const std::string& path, std::int64_t runId);
/** A run's GPU layout; nodes without a GPU keep an empty name (the chunks name the nodes of their GPUs only). */
hardware::GpuLayout readGpuLayout(Connection& db, const std::string& path, std::int64_t runId);
/**
 * A run's job records, each at its job_index; jobs an interrupted run never wrote stay default (empty
 * id). `expectedJobs` sizes the result when known (the run's job_count). `stored`, when given, gets 1
 * for each job_index the store holds, 0 for the default ones.
 */
std::vector<sim::JobRecord> readJobs(Connection& db, const std::string& path, std::int64_t runId,
                                     std::size_t expectedJobs = 0, std::vector<char>* stored = nullptr);

/** Number of records a run's chunks of `table` hold (job_chunks, interval_chunks, utilization_chunks,
 * decision_chunks, event_chunks, rate_segment_chunks or gpu_chunks). */
std::int64_t chunkedRecordCount(Connection& db, const std::string& table, std::int64_t runId);

} // namespace orrery::store
