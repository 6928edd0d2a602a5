#pragma once

#include "async/task_context.h"
#include "io/scenario.h"
#include "sim/run_result.h"

#include <functional>
#include <string>
#include <vector>

namespace orrery::gui {

/** Runs one policy over a scenario snapshot. Called on a worker thread: it sees only its arguments. */
using SimulateFunction = std::function<sim::RunResult(const io::Scenario& scenario, const std::string& policy,
                                                      TaskContext& context)>;

/** The core simulator behind the run manager. */
SimulateFunction coreSimulateFunction();
/** Registered policy names, in the registry's order. */
std::vector<std::string> registeredPolicies();

} // namespace orrery::gui
