#pragma once

#include "io/scenario.h"
#include "sim/prepared_workload.h"

namespace orrery::sim {

/** Expands the scenario's jobs (inline, trace, generator) and binds them to the scenario's throughput sources. */
PreparedWorkload prepareScenario(const io::Scenario& scenario);

} // namespace orrery::sim
