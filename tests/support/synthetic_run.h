#pragma once
// A run shaped like the simulator's output, for view tests that must not
// depend on a policy: jobs packed greedily (first free GPUs) on a cluster.

#include "hardware/cluster.h"
#include "sim/run_result.h"

#include <cstdint>
#include <memory>
#include <string>

namespace orrery::gui::test {

std::shared_ptr<sim::RunResult> syntheticRun(const hardware::Cluster& cluster, int jobs, std::uint64_t seed = 7,
                                             const std::string& policy = "synthetic");

} // namespace orrery::gui::test
