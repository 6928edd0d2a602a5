#pragma once

#include "store/run_record.h"

#include <nlohmann/json_fwd.hpp>

#include <vector>

namespace orrery::io {

/** A run list row: id, policy, status, scenario, started, avg_jct_s and the rest of the record. */
nlohmann::json runRecordToJson(const store::RunRecord& record);
/**
 * Everything the GUI shows about one run: the record, the GPUs, and the job,
 * interval, utilisation and decision columns (units in the key names).
 * `partial` is true for a run that did not end: its `jobs` hold only the
 * jobs it stored (those that had finished), each with its job_index.
 */
nlohmann::json storedRunToJson(const store::StoredRun& run);
/**
 * A run's rate segments as columns (job_index, start_s, end_s, rate_per_s, samples_per_s), the one shape
 * `simulate --json` and `runs show --json` give them in: a run has about one segment per allocation.
 */
nlohmann::json rateSegmentColumns(const std::vector<sim::RateSegment>& segments);

} // namespace orrery::io
