#pragma once

#include "sim/run_result.h"
#include "store/column_chunks.h"
#include "store/job_records.h"
#include "store/process_identity.h"
#include "store/run_record.h"
#include "store/run_summary_row.h"

#include <cstddef>
#include <string>
#include <vector>

namespace orrery::store {

/**
 * A finished run made ready for the store: every row it will be stored as, built and encoded without a
 * connection (the scenario's hash, the summary columns, the column chunks, the jobs' extras), so that storing it
 * is binding and stepping statements. A sweep's simulating threads prepare their points and its one writer stores
 * them (RunStore::storeRuns): the writer is the sweep's serial part (docs/performance.md, "Sweeps"). The rows are
 * those storeRun writes for the same info and result, byte for byte: storeRun prepares too.
 */
struct PreparedRun
{
    RunInfo info;             ///< with the result's policy and seed (the result is the authority on what ran)
    std::string scenarioHash; ///< of info.scenarioJson
    RunStatus status = RunStatus::Completed;
    RunSummaryRow summary;
    std::vector<std::string> gpuTypes; ///< the result's cluster: run_gpu_types' rows
    std::vector<int> gpusByType;
    std::vector<double> priceUsdPerHourByType;
    ProcessIdentity writer;
    std::vector<EncodedChunk> chunks; ///< intervals, samples, decisions, jobs, events, rate segments, the GPU layout
    std::vector<JobExtrasRow> jobExtras;
    std::vector<sim::MetricSeries> series;
    std::size_t records = 0; ///< job, interval, sample, decision, event, rate-segment and GPU records held
};

/**
 * Prepares `result` to be stored under `info` in the store at `storePath` (named by the errors): completed, or
 * cancelled when result.cancelled. Touches no connection, so any thread may prepare while another stores. Throws
 * orrery::Error for a run the store cannot keep (a label holding a NUL byte, a job index past kMaxJobIndex, a GPU
 * on a node the layout does not name).
 */
PreparedRun prepareRun(const std::string& storePath, RunInfo info, const sim::RunResult& result);

} // namespace orrery::store
