#pragma once

#include "sim/prepared_workload.h"
#include "sim/run_result.h"
#include "util/progress.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace orrery::sched {

/**
 * Runs each named policy over the same prepared workload, on up to `threads`
 * threads (each run is single-threaded and independent), and returns the
 * results in the order of `policies`. Progress is the mean over runs; a stop
 * request cancels every run. Unknown policy names throw orrery::Error before
 * anything runs; the first error of a run is rethrown after all have ended.
 */
/**
 * `onPartial(i, partial)` is sim::simulate()'s partial-result callback for run i; it is called from the worker threads
 * (concurrently when threads > 1).
 */
using IndexedPartialResultFn = std::function<void(std::size_t run, const sim::RunResult& partial)>;
std::vector<sim::RunResult> runPolicies(const sim::PreparedWorkload& workload, const std::vector<std::string>& policies,
                                        std::uint64_t seed, int threads = 1, const util::Progress& progress = {},
                                        const IndexedPartialResultFn& onPartial = {});

} // namespace orrery::sched
