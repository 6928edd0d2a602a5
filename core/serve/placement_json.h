#pragma once

// The placement file (`orrery-serving-placement`): what `orrery-cli serve place --output` writes and
// `serve simulate --placement` reads (docs/serving.md, "Placement file").

#include "serve/placement.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace orrery::serve {

nlohmann::json placementToJson(const Placement& placement, const ServingProblem& problem);

/**
 * Reads a placement for `problem`: models by instance name (`bert-1.3b#0`). Also accepts a `serve place --json`
 * report (its `placement` member). Errors name `file` and the JSON path.
 */
Placement placementFromJson(const nlohmann::json& doc, const std::string& file, const ServingProblem& problem);

} // namespace orrery::serve
