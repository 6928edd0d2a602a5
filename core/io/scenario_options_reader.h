#pragma once

// Internal to the scenario reader: the "options" members that carry their own sub-formats, and policy specs.

#include "io/json_reader.h"
#include "io/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace orrery::io::detail {

/** `options.estimate_error` and `estimate_error_scale` into `op` (docs/simulator.md, "Estimates versus truth"). */
void readEstimateError(JsonObject& options, ScenarioOptions& op);
/** `options.locality` at `path`: a model name or an object (docs/simulator.md, "Locality"). */
LocalityOptions readLocality(const nlohmann::json& value, const std::string& path);
/** One `policies[]` entry at `path` (a spec string or {"name", "params"}), checked; its canonical label. */
std::string readPolicy(const nlohmann::json& entry, const std::string& path);

} // namespace orrery::io::detail
