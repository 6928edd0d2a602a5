#pragma once

#include "io/scenario.h"
#include "sim/run_result.h"

#include <memory>
#include <vector>

namespace orrery::gui {

/**
 * The run's placement scores (metrics::placementScores) under the scenario it ran: the scenario is prepared again
 * for its cluster's locality model. Null when it cannot be (a trace file gone since); the comparison's placement
 * CDF then says so. Call on a worker: preparing a large trace takes a while.
 */
std::shared_ptr<const std::vector<double>> placementScoresOf(const io::Scenario& scenario, const sim::RunResult& run);

} // namespace orrery::gui
