#pragma once

#include "sim/prepared_workload.h"
#include "sim/run_result.h"
#include "util/progress.h"

#include <cstdint>

namespace orrery::sched {
class Policy;
}

namespace orrery::sim {

/**
 * Runs one policy over a prepared workload: a discrete-event loop over
 * arrivals, completions, round ticks and policy wake-ups (binary heap),
 * deterministic for a given seed. Options come from the workload
 * (round length, restart penalty, cross-node slowdown, gavelCompat).
 * Throws orrery::Error when the policy oversubscribes a GPU or leaves jobs
 * waiting with nothing left to happen. A stop request ends the run early with
 * RunResult::cancelled set.
 */
RunResult simulate(const PreparedWorkload& workload, sched::Policy& policy, std::uint64_t seed,
                   const util::Progress& progress = {});

} // namespace orrery::sim
