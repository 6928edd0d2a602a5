#include "io/run_info.h"

namespace orrery::io {

store::RunInfo runInfoOf(const Scenario& scenario, const std::string& policy, std::uint64_t seed,
                         const nlohmann::json& extraOptions)
{
    return runInfoOf(scenario, scenarioToJsonText(scenario), policy, seed, extraOptions);
}

store::RunInfo runInfoOf(const Scenario& scenario, std::string scenarioText, const std::string& policy,
                         std::uint64_t seed, const nlohmann::json& extraOptions)
{
    store::RunInfo info;
    info.scenarioName = scenario.name;
    info.scenarioJson = std::move(scenarioText);
    info.policy = policy;
    nlohmann::json options = scenarioOptionsToJson(scenario.options);
    for (const auto& [key, value] : extraOptions.items())
        options[key] = value;
    info.optionsJson = options.dump();
    info.seed = seed;
    store::setClusterOf(info, scenario.cluster);
    return info;
}

} // namespace orrery::io
