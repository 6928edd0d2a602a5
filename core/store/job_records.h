#pragma once

#include "sim/run_result.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace orrery::store {

class Connection;

/*
 * The extensible records of a run (schema version 5, docs/database.md "Extensible records"): per-job
 * extras as one JSON object per job and named metric series over time. Per-job events are column chunks
 * since schema 6 (column_chunks.h). Later systems
 * add keys, event kinds and series names, not tables: the schema stays as it is.
 */

/** A job's extras object as JSON text, empty when the job has none (the default: nothing is written). */
std::string jobExtrasJson(const sim::JobRecord& job);

/** A row of `job_extras`, less the run id. */
struct JobExtrasRow
{
    std::int64_t jobIndex = 0;
    std::string json; ///< jobExtrasJson
};

/** The rows of jobs order[from..] (job indices into `jobs`) that have extras, built without a connection. */
std::vector<JobExtrasRow> encodeJobExtras(const std::vector<sim::JobRecord>& jobs,
                                          const std::vector<std::uint32_t>& order, std::size_t from);
/** Writes rows encodeJobExtras made; returns how many. */
std::size_t writeJobExtras(Connection& db, std::int64_t runId, const std::vector<JobExtrasRow>& rows);
/** Writes the extras of jobs order[from..] (job indices into `jobs`); returns the rows written. */
std::size_t writeJobExtras(Connection& db, std::int64_t runId, const std::vector<sim::JobRecord>& jobs,
                           const std::vector<std::uint32_t>& order, std::size_t from);
/** Replaces the run's series with `series`; returns the rows written. */
std::size_t writeSeries(Connection& db, std::int64_t runId, const std::vector<sim::MetricSeries>& series);

/** Reads the extras back into `jobs` (by job_index); a damaged object throws orrery::Error naming `path`. */
void readJobExtras(Connection& db, const std::string& path, std::int64_t runId, std::vector<sim::JobRecord>& jobs);
std::vector<sim::MetricSeries> readSeries(Connection& db, const std::string& path, std::int64_t runId);

} // namespace orrery::store
