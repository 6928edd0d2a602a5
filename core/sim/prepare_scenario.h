#pragma once

#include "io/scenario.h"
#include "sim/prepared_workload.h"

#include <functional>
#include <vector>

namespace orrery::sim {

/** Expands the scenario's jobs (inline, trace, generator) and binds them to the scenario's throughput sources. */
PreparedWorkload prepareScenario(const io::Scenario& scenario);
/** The same, with `editJobs` applied to the expanded jobs before they are bound (a sweep's workload edits). */
PreparedWorkload prepareScenario(const io::Scenario& scenario,
                                 const std::function<void(std::vector<workload::Job>&)>& editJobs);

} // namespace orrery::sim
