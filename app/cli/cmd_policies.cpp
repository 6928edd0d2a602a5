#include "cli.h"

#include "sched/registry.h"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>

namespace orrery::cli {

namespace {

std::string defaultText(const sched::ParamSpec& p)
{
    return p.defaultValue.empty() ? "scenario option" : p.defaultValue;
}

nlohmann::json paramJson(const sched::ParamSpec& p)
{
    nlohmann::json j = {{"name", p.name},
                        {"type", std::string(sched::paramTypeName(p.type))},
                        {"default", p.defaultValue.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.defaultValue)},
                        {"allowed", sched::describeAllowed(p)},
                        {"help", p.help}};
    if (std::isfinite(p.minimum))
        j["min"] = p.minimum;
    if (std::isfinite(p.maximum))
        j["max"] = p.maximum;
    if (p.type == sched::ParamType::Choice)
        j["choices"] = p.choices;
    if (p.type == sched::ParamType::NumberList) {
        j["min_count"] = p.minCount;
        j["max_count"] = p.maxCount;
        j["increasing"] = p.increasing;
    }
    return j;
}

void registerPolicies(CLI::App& app)
{
    auto json = std::make_shared<bool>(false);
    auto params = std::make_shared<bool>(false);
    auto* cmd =
        app.add_subcommand("policies", "List the scheduling policies the simulator knows, and their parameters");
    cmd->add_flag("--json", *json, "Machine-readable output (every parameter with type, default, range and help)");
    cmd->add_flag("--params", *params, "Also list each policy's parameters (give them as --policy NAME:KEY=VALUE)");
    cmd->callback([json, params] {
        if (*json) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& p : sched::registeredPolicies()) {
                nlohmann::json list = nlohmann::json::array();
                for (const auto& spec : p.allParams())
                    list.push_back(paramJson(spec));
                nlohmann::json presets = nlohmann::json::array();
                for (const auto& preset : p.presets) {
                    nlohmann::json values = nlohmann::json::object();
                    for (const auto& [k, v] : preset.values)
                        values[k] = v;
                    presets.push_back({{"name", preset.name}, {"help", preset.help}, {"values", values}});
                }
                out.push_back({{"name", p.name},
                               {"description", p.description},
                               {"traits",
                                {{"preemptive", p.traits.preemptive},
                                 {"round_based", p.traits.roundBased},
                                 {"oracle", p.traits.oracle}}},
                               {"params", list},
                               {"presets", presets}});
            }
            printJson({{"policies", out}});
            return;
        }
        Table table({"name", "description"});
        for (const auto& p : sched::registeredPolicies()) {
            table.add({p.name, p.description + (p.traits.oracle ? " [oracle]" : "")});
            if (!*params)
                continue;
            for (const auto& spec : p.allParams())
                table.add({"", fmt::format("  {}={} ({}): {}", spec.name, defaultText(spec),
                                           sched::describeAllowed(spec), spec.help)});
        }
        std::cout << table.render();
        if (!*params)
            std::cout << "Parameters: orrery-cli policies --params (or --json); give them as --policy "
                         "NAME:KEY=VALUE[:KEY=VALUE]...\n";
    });
}

} // namespace

ORRERY_CLI_COMMAND(70, registerPolicies, "policies");

} // namespace orrery::cli
