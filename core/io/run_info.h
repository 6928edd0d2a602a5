#pragma once

#include "io/scenario.h"
#include "store/run_record.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace orrery::io {

/**
 * What the run store keeps about a run of `scenario` under `policy` with `seed`: the scenario's name
 * and normalised JSON, its options as JSON (plus `extraOptions`, e.g. the CLI's thread count), and the
 * cluster (types, GPUs and prices per type, the GPU layout). The one builder of store::RunInfo, used by
 * `orrery-cli simulate --db` and by the GUI for the runs it simulates and the runs it saves afterwards,
 * so that a run stores the same whoever ran it. It lives in io, not store, because it reads an
 * io::Scenario and store sits below io's scenario layer.
 */
store::RunInfo runInfoOf(const Scenario& scenario, const std::string& policy, std::uint64_t seed,
                         const nlohmann::json& extraOptions = nlohmann::json::object());
/** The same, for a caller that holds scenarioToJsonText(scenario) already (a sweep's resolved scenarios). */
store::RunInfo runInfoOf(const Scenario& scenario, std::string scenarioText, const std::string& policy,
                         std::uint64_t seed, const nlohmann::json& extraOptions = nlohmann::json::object());

} // namespace orrery::io
