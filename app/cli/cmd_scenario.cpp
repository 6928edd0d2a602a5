#include "cli.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "io/scenario.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "util/text.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace orrery::cli {

namespace {

struct ScenarioArgs
{
    std::string file;
    bool json = false;
};

io::Scenario loadArg(const std::string& file)
{
    return file == "default" ? io::defaultScenario() : io::loadScenario(file);
}

// Everything `simulate` refuses before running must be refused here too, or "valid" means nothing:
// the trace, generator and throughput files are read, and every policy name is looked up.
io::Scenario checkArg(const std::string& file)
{
    io::Scenario s = loadArg(file);
    const std::string label = file == "default" ? std::string("default.json") : util::baseName(file);
    for (std::size_t i = 0; i < s.policies.size(); ++i) {
        try {
            sched::makePolicy(s.policies[i]);
        } catch (const Error& e) {
            throw Error(label, io::indexPath("policies", i), e.message());
        }
    }
    try {
        sim::prepareScenario(s);
    } catch (const Error& e) {
        // A bad trace or table names its own file; say which scenario sent us there.
        if (!e.file().empty() && e.file() != label)
            throw Error(e.file(), e.location(), e.message() + " (read for " + label + ")");
        throw e.inFile(label);
    }
    return s;
}

nlohmann::json summaryJson(const io::Scenario& s)
{
    int serverless = 0;
    for (const auto& j : s.workload.jobs)
        serverless += j.kind == workload::JobKind::Serverless;
    nlohmann::json types = nlohmann::json::object();
    for (int t : s.cluster.presentTypes())
        types[s.cluster.catalog().types()[static_cast<std::size_t>(t)].name] = s.cluster.gpusOfType(t);
    return {{"name", s.name},
            {"nodes", s.cluster.nodes().size()},
            {"gpus", s.cluster.totalGpus()},
            {"gpus_by_type", types},
            {"usd_per_hour", s.cluster.priceUsdPerHour()},
            {"jobs", s.workload.jobs.size()},
            {"serverless_jobs", serverless},
            {"trace", s.workload.trace ? s.workload.trace->path : ""},
            {"generator", s.workload.generator ? s.workload.generator->jobs : 0},
            {"hyperband_apps", s.workload.hyperband ? s.workload.hyperband->apps : 0},
            {"policies", s.policies}};
}

} // namespace

namespace {

void registerScenarioCommands(CLI::App& app)
{
    auto* scenario = app.add_subcommand("scenario", "Validate or summarise a scenario file");
    scenario->require_subcommand(1);

    auto args = std::make_shared<ScenarioArgs>();
    auto* check = scenario->add_subcommand("check", "Validate a scenario; exit 0 when valid, 2 when not");
    check->add_option("file", args->file, "Scenario JSON file ('default' for the embedded one)")->required();
    check->add_flag("--json", args->json, "Machine-readable result");
    check->callback([args] {
        try {
            const io::Scenario s = checkArg(args->file);
            if (args->json)
                printJson({{"valid", true}, {"file", args->file}, {"summary", summaryJson(s)}});
            else
                std::cout << fmt::format("{}: valid ({} nodes, {} GPUs, {} jobs)\n", args->file,
                                         s.cluster.nodes().size(), s.cluster.totalGpus(), s.workload.jobs.size());
        } catch (const Error& e) {
            if (args->json)
                printJson({{"valid", false},
                           {"file", args->file},
                           {"errors", {{{"file", e.file()}, {"path", e.location()}, {"message", e.message()}}}}});
            else
                std::cerr << e.what() << '\n';
            throw ExitRequest{BadInput};
        }
    });

    auto showArgs = std::make_shared<ScenarioArgs>();
    auto* show = scenario->add_subcommand("show", "Summarise a scenario: cluster, workload, policies");
    show->add_option("file", showArgs->file, "Scenario JSON file ('default' for the embedded one)")->required();
    show->add_flag("--json", showArgs->json, "Print the normalised scenario as JSON");
    show->callback([showArgs] {
        const io::Scenario s = loadArg(showArgs->file);
        if (showArgs->json) {
            printJson(io::scenarioToJson(s));
            return;
        }
        std::cout << s.name << '\n';
        if (!s.description.empty())
            std::cout << s.description << '\n';
        Table nodes({"group", "gpu", "nodes", "gpus/node", "link", "GB/s", "usd/h"});
        for (const auto& g : s.cluster.groups()) {
            const auto& t = s.cluster.catalog().at(g.gpuType);
            const auto link = g.intraLink.value_or(t.intraLink);
            nodes.add({g.name, t.name, std::to_string(g.count), std::to_string(g.gpusPerNode),
                       hardware::toString(link.kind), fmt::format("{:g}", link.bandwidthGBps),
                       fmt::format("{:.2f}", t.priceUsdPerHour * g.count * g.gpusPerNode)});
        }
        std::cout << '\n' << nodes.render();
        std::cout << fmt::format("\n{} GPUs on {} nodes, ${:.2f}/h; network {} {:g} Gbit/s\n", s.cluster.totalGpus(),
                                 s.cluster.nodes().size(), s.cluster.priceUsdPerHour(),
                                 hardware::toString(s.cluster.network().kind), s.cluster.network().bandwidthGBps * 8);
        const auto summary = summaryJson(s);
        std::cout << fmt::format("workload: {} inline jobs ({} serverless)", s.workload.jobs.size(),
                                 summary["serverless_jobs"].get<int>());
        if (s.workload.trace)
            std::cout << fmt::format(", trace {} ({})", s.workload.trace->path, s.workload.trace->format);
        if (s.workload.generator)
            std::cout << fmt::format(", generator of {} jobs", s.workload.generator->jobs);
        if (s.workload.hyperband)
            std::cout << fmt::format(", {} Hyperband apps (generated)", s.workload.hyperband->apps);
        std::cout << fmt::format("\npolicies: {}\n",
                                 s.policies.empty() ? "(none)" : fmt::format("{}", fmt::join(s.policies, ", ")));
    });
}

} // namespace

ORRERY_CLI_COMMAND(10, registerScenarioCommands, "scenario");

} // namespace orrery::cli
