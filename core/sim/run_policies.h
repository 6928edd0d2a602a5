#pragma once

#include "io/scenario.h"
#include "sim/prepared_workload.h"
#include "sim/run_result.h"
#include "util/progress.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace orrery::sim {

/** Expands the scenario's jobs (inline, trace, generator) and binds them to the scenario's throughput sources. */
PreparedWorkload prepareScenario(const io::Scenario& scenario);

/**
 * Runs each named policy over the same prepared workload, on up to `threads`
 * threads (each run is single-threaded and independent), and returns the
 * results in the order of `policies`. Progress is the mean over runs; a stop
 * request cancels every run. Unknown policy names throw orrery::Error before
 * anything runs; the first error of a run is rethrown after all have ended.
 */
/**
 * `onPartial(i, partial)` is simulate()'s partial-result callback for run i; it is called from the worker threads
 * (concurrently when threads > 1).
 */
using IndexedPartialResultFn = std::function<void(std::size_t run, const RunResult& partial)>;
std::vector<RunResult> runPolicies(const PreparedWorkload& workload, const std::vector<std::string>& policies,
                                   std::uint64_t seed, int threads = 1, const util::Progress& progress = {},
                                   const IndexedPartialResultFn& onPartial = {});

} // namespace orrery::sim
