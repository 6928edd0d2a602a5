#include "cli.h"

#include "sched/registry.h"

#include <iostream>
#include <memory>

namespace orrery::cli {

namespace {

void registerPolicies(CLI::App& app)
{
    auto json = std::make_shared<bool>(false);
    auto* cmd = app.add_subcommand("policies", "List the scheduling policies the simulator knows");
    cmd->add_flag("--json", *json, "Machine-readable output");
    cmd->callback([json] {
        if (*json) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& p : sched::registeredPolicies())
                out.push_back({{"name", p.name}, {"description", p.description}});
            printJson({{"policies", out}});
            return;
        }
        Table table({"name", "description"});
        for (const auto& p : sched::registeredPolicies())
            table.add({p.name, p.description});
        std::cout << table.render();
    });
}

} // namespace

ORRERY_CLI_COMMAND(70, registerPolicies);

} // namespace orrery::cli
