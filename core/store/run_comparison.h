#pragma once

#include "store/run_record.h"

#include <optional>
#include <string>
#include <vector>

namespace orrery::store {

class RunStore;

/**
 * Several runs side by side: one row per run, one column per metric (names
 * with units, as in the CSV export and the GUI's comparison table).
 */
struct RunComparison
{
    std::vector<std::string> metrics;                       ///< column names, e.g. `avg_jct_s`
    std::vector<RunRecord> runs;                            ///< rows
    std::vector<std::vector<std::optional<double>>> values; ///< values[row][metric]; absent when undefined
};

/** Loads each run and computes its metrics; throws orrery::Error for an unknown id. */
RunComparison compareRuns(RunStore& store, const std::vector<std::int64_t>& ids);

} // namespace orrery::store
