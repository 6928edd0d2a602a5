#include "cli.h"
#include "count_arg.h"
#include "estimate_args.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/scenario.h"
#include "util/text.h"
#include "workload/model_library.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <optional>

namespace orrery::cli {

namespace {

struct PlanArgs
{
    EstimateArgs train;
    std::string cluster;
    std::string gpus;
    int maxGpus = 64;
    int gpusPerNode = 8;
    double networkGBps = 25;
    std::string rank = "frenzy";
    bool pipeline = false;
    bool contextParallel = false;
    int top = 0;
};

estimate::PlanRank planRank(const std::string& text)
{
    if (text == "frenzy")
        return estimate::PlanRank::Frenzy;
    if (text == "throughput")
        return estimate::PlanRank::Throughput;
    if (text == "cost")
        return estimate::PlanRank::Cost;
    throw Error("", "--rank", fmt::format("expected frenzy, throughput or cost, got \"{}\"", text));
}

/** `a100:8,h100-sxm:16` -> one target per entry (a count caps how many of that type). */
std::vector<estimate::PlanTarget> parseGpuList(const std::string& text, const PlanArgs& args)
{
    const auto& catalog = hardware::GpuCatalog::builtin();
    const hardware::Link network{hardware::LinkKind::InfiniBand, args.networkGBps, 5.0};
    std::vector<estimate::PlanTarget> targets;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        start = comma + 1;
        const std::size_t colon = item.find(':');
        const std::string name = item.substr(0, colon);
        int count = args.maxGpus;
        if (colon != std::string::npos) {
            const auto parsed = parsePositiveCount(item.substr(colon + 1));
            if (!parsed)
                throw Error("", "--gpus",
                            fmt::format("\"{}\": expected TYPE or TYPE:COUNT with a positive count", item));
            count = *parsed;
        }
        const hardware::GpuType* gpu = nullptr;
        try {
            gpu = &catalog.at(name);
        } catch (const Error& e) {
            throw Error("", "--gpus", e.message());
        }
        estimate::PlanTarget t;
        t.gpu = gpu;
        t.maxGpus = count;
        t.gpusPerNode = args.gpusPerNode;
        t.intraNode = gpu->intraLink;
        t.interNode = network;
        targets.push_back(t);
    }
    return targets;
}

/** One target per GPU type of the scenario's cluster: how many there are, the widest node, its link. */
std::vector<estimate::PlanTarget> clusterTargets(const hardware::Cluster& cluster)
{
    std::vector<estimate::PlanTarget> targets;
    for (int typeIndex : cluster.presentTypes()) {
        estimate::PlanTarget t;
        t.gpu = &cluster.catalog().types()[static_cast<std::size_t>(typeIndex)];
        t.maxGpus = cluster.gpusOfType(typeIndex);
        t.gpusPerNode = 0;
        for (const auto& node : cluster.nodes())
            if (node.gpuTypeIndex == typeIndex && node.gpuCount > t.gpusPerNode) {
                t.gpusPerNode = node.gpuCount;
                t.intraNode = node.intraLink;
            }
        t.interNode = cluster.network();
        targets.push_back(t);
    }
    return targets;
}

void registerPlanCommand(CLI::App& app)
{
    auto args = std::make_shared<PlanArgs>();
    auto* cmd =
        app.add_subcommand("plan", "MARP: feasible (GPU type, dp, tp[, pp, ep, cp]) plans for a job, best first");
    addTrainingOptions(cmd, args->train, false);
    cmd->add_option("--cluster", args->cluster, "Scenario JSON: plan on its cluster's GPU types and counts");
    cmd->add_option("--gpus", args->gpus, "GPU types to consider, TYPE[:COUNT],... (default: the whole catalog)");
    cmd->add_option("--max-gpus", args->maxGpus, "Largest plan, and the count of each type without COUNT")
        ->capture_default_str();
    cmd->add_option("--gpus-per-node", args->gpusPerNode, "GPUs per node without --cluster")->capture_default_str();
    cmd->add_option("--network-gbps", args->networkGBps, "Inter-node bandwidth per GPU, GB/s, without --cluster")
        ->capture_default_str();
    cmd->add_option("--rank", args->rank, "Order: frenzy (fewest GPUs first), throughput or cost")
        ->capture_default_str();
    cmd->add_flag("--pipeline", args->pipeline, "Also enumerate pipeline parallelism (pp > 1)");
    cmd->add_flag("--context-parallel", args->contextParallel,
                  "Also enumerate context parallelism (cp = 2, 4, 8, 16; needs --flash-attn)");
    cmd->add_option("--top", args->top, "Print only the first N plans (0: all)")->capture_default_str();
    cmd->callback([args] {
        if (!args->cluster.empty() && !args->gpus.empty())
            throw Error("", "--gpus", "give either --cluster or --gpus, not both");
        if (args->maxGpus < 1)
            throw Error("", "--max-gpus", fmt::format("expected a positive integer, got {}", args->maxGpus));
        if (args->gpusPerNode < 1)
            throw Error("", "--gpus-per-node", fmt::format("expected a positive integer, got {}", args->gpusPerNode));
        if (!(args->networkGBps > 0))
            throw Error("", "--network-gbps", fmt::format("expected a positive number, got {}", args->networkGBps));
        std::optional<io::Scenario> scenario;
        std::vector<estimate::PlanTarget> targets;
        workload::ModelSpec model;
        if (!args->cluster.empty()) {
            scenario = io::loadScenario(args->cluster);
            targets = clusterTargets(scenario->cluster);
            model = workload::resolveModel(args->train.model, scenario->models());
        } else {
            model = loadModel(args->train.model);
            if (!args->gpus.empty()) {
                targets = parseGpuList(args->gpus, *args);
            } else {
                targets = estimate::targetsFromTypes(hardware::GpuCatalog::builtin().types(), args->maxGpus,
                                                     {hardware::LinkKind::InfiniBand, args->networkGBps, 5.0},
                                                     args->gpusPerNode);
            }
        }
        const workload::TrainingConfig config = trainingConfig(args->train);
        if (args->contextParallel && !config.flashAttention)
            throw Error("", "--context-parallel", "ring attention runs on flash attention: add --flash-attn");
        estimate::PlanOptions options;
        options.mode = memoryMode(args->train.mode);
        options.rank = planRank(args->rank);
        options.allowPipeline = args->pipeline;
        options.allowContextParallel = args->contextParallel;
        options.maxGpus = args->maxGpus;
        std::vector<estimate::Plan> plans = estimate::rankPlans(model, config, targets, options);
        if (args->top > 0 && plans.size() > static_cast<std::size_t>(args->top))
            plans.resize(static_cast<std::size_t>(args->top));

        if (args->train.json) {
            nlohmann::json list = nlohmann::json::array();
            for (const auto& p : plans)
                list.push_back({{"gpu", p.gpu},
                                {"count", p.count},
                                {"dp", p.par.dp},
                                {"tp", p.par.tp},
                                {"pp", p.par.pp},
                                {"ep", p.par.ep},
                                {"cp", p.par.cp},
                                {"memory_gib", p.memoryGiB},
                                {"samples_per_s", p.samplesPerS},
                                {"iteration_s", p.iterationS},
                                {"usd_per_hour", p.usdPerHour}});
            printJson({{"model", model.name}, {"batch", config.globalBatch}, {"plans", list}});
            return;
        }
        if (plans.empty()) {
            std::cout << fmt::format("{}: no feasible plan on the given GPUs\n", model.name);
            throw ExitRequest{Failure};
        }
        // An ep column only for MoE models (dense models always have ep = 1), a cp column only when cp is enumerated.
        const bool moe = model.isMoe();
        std::vector<std::string> header{"#", "gpu", "count", "dp", "tp", "pp"};
        if (moe)
            header.push_back("ep");
        if (args->contextParallel)
            header.push_back("cp");
        for (const char* h : {"memory_gib", "samples/s", "usd/h"})
            header.push_back(h);
        Table table(header);
        for (std::size_t i = 0; i < plans.size(); ++i) {
            const auto& p = plans[i];
            std::vector<std::string> row{std::to_string(i + 1),    p.gpu,
                                         std::to_string(p.count),  std::to_string(p.par.dp),
                                         std::to_string(p.par.tp), std::to_string(p.par.pp)};
            if (moe)
                row.push_back(std::to_string(p.par.ep));
            if (args->contextParallel)
                row.push_back(std::to_string(p.par.cp));
            row.push_back(fmt::format("{:.2f}", p.memoryGiB));
            row.push_back(fmt::format("{:.3g}", p.samplesPerS));
            row.push_back(fmt::format("{:.2f}", p.usdPerHour));
            table.add(row);
        }
        std::cout << table.render();
    });
}

} // namespace

ORRERY_CLI_COMMAND(32, registerPlanCommand, "plan");

} // namespace orrery::cli
