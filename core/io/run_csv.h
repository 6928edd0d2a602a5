#pragma once

#include "hardware/gpu_layout.h"
#include "sim/run_result.h"
#include "store/run_comparison.h"

#include <ostream>
#include <string>
#include <vector>

namespace orrery::io {

/**
 * CSV exports of a run (RFC 4180, header row, units in column names). Missing
 * values (a job that never started or finished) are empty fields. Column lists
 * are documented in docs/database.md, next to the tables they mirror.
 */
/** `stored` (StoredRun::jobStored), when given, leaves out the jobs an interrupted run never stored. */
void writeJobsCsv(std::ostream& out, const sim::RunResult& run, const std::vector<char>* stored = nullptr);
void writeIntervalsCsv(std::ostream& out, const sim::RunResult& run, const hardware::GpuLayout& layout);
void writeUtilizationCsv(std::ostream& out, const sim::RunResult& run);
/** One row per run: run_id, scenario, policy, status, seed, then the comparison's metric columns. */
void writeComparisonCsv(std::ostream& out, const store::RunComparison& comparison);

} // namespace orrery::io
