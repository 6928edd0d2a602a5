#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace orrery::store {

class Connection;

/** Replaces a run's rows of `run_gpu_types` (inside the caller's transaction). Missing sizes or prices read as 0. */
void writeGpuTypes(Connection& db, std::int64_t runId, const std::vector<std::string>& names,
                   const std::vector<int>& gpus, const std::vector<double>& usdPerGpuHour);

} // namespace orrery::store
