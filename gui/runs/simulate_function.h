#pragma once

#include "async/task_context.h"
#include "io/scenario.h"
#include "sim/run_result.h"
#include "sim/simulator.h"

#include <functional>
#include <string>
#include <vector>

namespace orrery::gui {

/**
 * Runs one policy over a scenario snapshot. Called on a worker thread: it sees only its arguments.
 * `onPartial` (may be empty) receives the growing result, for incremental storing. A cancelled run
 * returns what it simulated with `cancelled` set; the caller decides what to do with it.
 */
using SimulateFunction = std::function<sim::RunResult(const io::Scenario& scenario, const std::string& policy,
                                                      TaskContext& context, const sim::PartialResultFn& onPartial)>;

/**
 * The phases a run reports as its progress message, for the run manager's row: preparing the
 * workload (no fraction to show), simulating (fraction of jobs done), saving to the store.
 */
inline constexpr const char* kPhasePreparing = "preparing";
inline constexpr const char* kPhaseSimulating = "simulating";
inline constexpr const char* kPhaseSaving = "saving";

/** The core simulator behind the run manager. */
SimulateFunction coreSimulateFunction();
/** Registered policy names, in the registry's order. */
std::vector<std::string> registeredPolicies();

} // namespace orrery::gui
