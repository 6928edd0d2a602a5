#pragma once

#include "sim/run_result.h"

#include <cstdint>
#include <optional>

namespace orrery::store {

class Statement;

/** The summary columns of a finished run's `runs` row: metrics::summarize's headline figures of its result. */
struct RunSummaryRow
{
    int jobs = 0;
    int jobsCompleted = 0;
    std::optional<double> avgJctS; ///< absent when no job finished
    double makespanS = 0;
    double costUsd = 0;
    double wallS = 0;
    std::int64_t events = 0;
    int totalGpus = 0;
    int jobsDropped = 0;
};

RunSummaryRow summaryRowOf(const sim::RunResult& result);

/** Binds job_count, finished_job_count, avg_jct_s, makespan_s, cost_usd, sim_wall_s, events, total_gpus and
 *  dropped_job_count, in that order, from parameter `first` on. */
void bindSummaryRow(Statement& s, int first, const RunSummaryRow& row);

} // namespace orrery::store
