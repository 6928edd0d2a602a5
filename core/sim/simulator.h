#pragma once

#include "sim/prepared_workload.h"
#include "sim/run_result.h"
#include "util/progress.h"

#include <cstdint>
#include <functional>

namespace orrery::sim {

class Policy;

/**
 * Runs one policy over a prepared workload: a discrete-event loop over
 * arrivals, completions, round ticks and policy wake-ups (binary heap),
 * deterministic for a given seed. Options come from the workload
 * (round length, restart penalty, cross-node slowdown, gavelCompat).
 * Throws orrery::Error when the policy oversubscribes a GPU or leaves jobs
 * waiting with nothing left to happen. A stop request ends the run early with
 * RunResult::cancelled set.
 */
/**
 * Called now and then during a run, on the simulating thread, with the result
 * so far (what a run store writes incrementally): intervals, utilisation
 * samples and decisions only grow, and a job's record is final once its endS
 * is set. The final result may order its intervals differently.
 */
using PartialResultFn = std::function<void(const RunResult& partial)>;

RunResult simulate(const PreparedWorkload& workload, Policy& policy, std::uint64_t seed,
                   const util::Progress& progress = {}, const PartialResultFn& onPartial = {});

} // namespace orrery::sim
