#include "cli.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "provision/estimator_profile.h"
#include "provision/provision.h"
#include "util/text.h"
#include "workload/model_library.h"

#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <map>
#include <memory>

namespace orrery::cli {

namespace {

struct ProvisionArgs
{
    std::string model;
    int seq = 0;
    int batch = 32;
    int microBatches = 4;
    int iterations = 100;
    double sloS = 0;
    std::string gpus;
    std::string prices;
    std::string efficiency;
    std::string catalog;
    std::string strategy = "espresso";
    std::string recompute = "full";
    bool noBp = false;
    bool noCp = false;
    bool noTcp = false;
    bool evaluated = false;
    double bandwidthGbitS = 2.5;
    double optimalBudgetS = 3600;
    double optimalTimeLimitS = 3600;
    bool json = false;
};

/** `name:value,name:value` into ordered pairs; errors name the option and the item. */
std::vector<std::pair<std::string, std::string>> parsePairs(const std::string& text, const std::string& option)
{
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& raw : util::split(text, ',')) {
        const std::string item = util::trim(raw);
        if (item.empty())
            continue;
        const auto colon = item.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == item.size())
            throw Error("", option, fmt::format("expected NAME:VALUE, got '{}'", item));
        out.emplace_back(util::trim(item.substr(0, colon)), util::trim(item.substr(colon + 1)));
    }
    return out;
}

double parseNumber(const std::string& text, const std::string& option, const std::string& name)
{
    try {
        std::size_t used = 0;
        const double v = std::stod(text, &used);
        if (used == text.size() && std::isfinite(v))
            return v;
    } catch (const std::exception&) {
    }
    throw Error("", option, fmt::format("{}: expected a number, got '{}'", name, text));
}

int parseCount(const std::string& text, const std::string& name)
{
    const double v = parseNumber(text, "--gpus", name);
    if (v < 0 || v != std::floor(v) || v > 1e6)
        throw Error("", "--gpus", fmt::format("{}: expected a GPU count >= 0, got '{}'", name, text));
    return static_cast<int>(v);
}

hardware::GpuCatalog catalogFor(const std::string& extraFile)
{
    hardware::GpuCatalog catalog = hardware::GpuCatalog::builtin();
    if (!extraFile.empty()) {
        const hardware::GpuCatalog extra = hardware::GpuCatalog::fromFile(extraFile);
        for (const auto& t : extra.types())
            catalog.add(t);
    }
    return catalog;
}

std::vector<provision::PoolGpu> buildPool(const ProvisionArgs& a, const hardware::GpuCatalog& catalog)
{
    std::vector<provision::PoolGpu> pool;
    auto indexOf = [&](const std::string& name) {
        for (std::size_t i = 0; i < pool.size(); ++i)
            if (pool[i].gpu.name == name)
                return static_cast<int>(i);
        return -1;
    };
    for (const auto& [name, count] : parsePairs(a.gpus, "--gpus")) {
        const auto& type = catalog.at(name);
        if (indexOf(type.name) >= 0)
            throw Error("", "--gpus", fmt::format("{} is listed twice", type.name));
        pool.push_back({type, parseCount(count, name), type.priceUsdPerHour});
    }
    if (pool.empty())
        throw Error("", "--gpus", "no GPU types given (e.g. --gpus a6000:8,a30:16)");
    for (const auto& [name, price] : parsePairs(a.prices, "--prices")) {
        const int i = indexOf(catalog.at(name).name);
        if (i < 0)
            throw Error("", "--prices", fmt::format("{} is not in --gpus", name));
        const double v = parseNumber(price, "--prices", name);
        if (v < 0)
            throw Error("", "--prices", fmt::format("{}: a price must be >= 0, got {}", name, price));
        pool[static_cast<std::size_t>(i)].pricePerHour = v;
    }
    return pool;
}

std::map<std::string, double> parseEfficiency(const std::string& text, const hardware::GpuCatalog& catalog)
{
    std::map<std::string, double> out;
    for (const auto& [name, value] : parsePairs(text, "--efficiency")) {
        const double v = parseNumber(value, "--efficiency", name);
        if (!(v > 0 && v <= 1))
            throw Error("", "--efficiency", fmt::format("{}: expected a fraction in (0, 1], got {}", name, value));
        out[catalog.at(name).name] = v;
    }
    return out;
}

nlohmann::json planJson(const provision::ProvisionResult& r, const std::vector<provision::PoolGpu>& pool,
                        const provision::ProvisionJob& job, bool withEvaluated)
{
    nlohmann::json gpus = nlohmann::json::object();
    nlohmann::json stages = nlohmann::json::array();
    if (r.hasPlan) {
        const auto counts = r.plan.gpuCounts(pool.size());
        for (std::size_t t = 0; t < pool.size(); ++t)
            if (counts[t] > 0)
                gpus[pool[t].gpu.name] = counts[t];
        for (const auto& s : r.plan.stages)
            stages.push_back({{"gpu", pool[static_cast<std::size_t>(s.gpu)].gpu.name}, {"layers", s.layers}});
    }
    nlohmann::json out = {{"strategy", provision::toString(r.strategy)},
                          {"feasible", r.feasible},
                          {"gpus", gpus},
                          {"dp", r.hasPlan ? r.plan.dp : 0},
                          {"pp", r.hasPlan ? r.plan.pp() : 0},
                          {"stages", stages},
                          {"iteration_s", r.hasPlan ? nlohmann::json(r.plan.iterationS) : nlohmann::json(nullptr)},
                          {"total_s", r.hasPlan ? nlohmann::json(r.plan.totalS) : nlohmann::json(nullptr)},
                          {"cost", r.hasPlan ? nlohmann::json(r.plan.cost) : nlohmann::json(nullptr)},
                          {"slo_s", job.sloS},
                          {"iterations", job.iterations},
                          {"search",
                           {{"expanded", r.stats.expanded},
                            {"pruned_bp", r.stats.prunedBp},
                            {"pruned_cp", r.stats.prunedCp},
                            {"pruned_tcp", r.stats.prunedTcp},
                            {"placements", r.stats.placements},
                            {"wall_s", r.stats.wallS}}}};
    if (!r.feasible)
        out["reason"] = r.hasPlan ? "no plan meets the SLO; the fastest plan found is shown"
                                  : "no plan fits the model within the quotas";
    if (withEvaluated) {
        nlohmann::json ev = nlohmann::json::array();
        for (const auto& e : r.evaluated) {
            nlohmann::json g = nlohmann::json::object();
            for (std::size_t t = 0; t < pool.size(); ++t)
                if (e.gpuCounts[t] > 0)
                    g[pool[t].gpu.name] = e.gpuCounts[t];
            ev.push_back({{"gpus", g},
                          {"dp", e.dp},
                          {"pp", e.pp},
                          {"iteration_s", e.iterationS},
                          {"total_s", e.totalS},
                          {"cost", e.cost},
                          {"meets_slo", e.meetsSlo}});
        }
        out["evaluated"] = ev;
    }
    return out;
}

void printHuman(const provision::ProvisionResult& r, const std::vector<provision::PoolGpu>& pool,
                const provision::ProvisionJob& job)
{
    std::cout << fmt::format("strategy {}: {}\n", provision::toString(r.strategy),
                             r.feasible  ? "plan meets the SLO"
                             : r.hasPlan ? "INFEASIBLE_SLO (fastest plan found below)"
                                         : "no plan fits the model within the quotas");
    if (r.hasPlan) {
        Table table({"stage", "gpu", "gpus", "layers"});
        for (std::size_t s = 0; s < r.plan.stages.size(); ++s) {
            const auto& st = r.plan.stages[s];
            table.add({std::to_string(s), pool[static_cast<std::size_t>(st.gpu)].gpu.name, std::to_string(r.plan.dp),
                       std::to_string(st.layers)});
        }
        std::cout << table.render();
        std::cout << fmt::format(
            "dp {} x pp {} = {} GPUs; iteration {:.3f} s; {} iterations {:.1f} s (SLO {}); cost {:.4g}\n", r.plan.dp,
            r.plan.pp(), r.plan.gpuCount(), r.plan.iterationS, job.iterations, r.plan.totalS,
            job.sloS > 0 ? fmt::format("{:g} s", job.sloS) : "none", r.plan.cost);
    }
    std::cout << fmt::format("search: {} expanded, pruned BP {} CP {} TCP {}, {} placements, {:.3f} s\n",
                             r.stats.expanded, r.stats.prunedBp, r.stats.prunedCp, r.stats.prunedTcp,
                             r.stats.placements, r.stats.wallS);
}

void registerProvisionCommand(CLI::App& app)
{
    auto a = std::make_shared<ProvisionArgs>();
    auto* cmd = app.add_subcommand(
        "provision", "Cheapest heterogeneous GPU set and pipeline placement meeting a training-time SLO (Espresso)");
    cmd->add_option("--model", a->model, "Model name from the library, or a model JSON file")->required();
    cmd->add_option("--seq", a->seq, "Sequence length (default: the model's)");
    cmd->add_option("--batch", a->batch, "Global batch size B")->capture_default_str();
    cmd->add_option("--micro-batches", a->microBatches, "Micro-batches per iteration m")->capture_default_str();
    cmd->add_option("--iterations", a->iterations, "Training iterations z")->capture_default_str();
    cmd->add_option("--slo-s", a->sloS, "Deadline for all z iterations, seconds (0: none)")->capture_default_str();
    cmd->add_option("--gpus", a->gpus, "Quotas per type, e.g. a6000:8,a30:16,rtx3090:16,a4000:16")->required();
    cmd->add_option("--prices", a->prices, "Hourly price per GPU, e.g. a6000:6,a30:4 (default: catalog USD)");
    cmd->add_option("--efficiency", a->efficiency,
                    "Calibrated achievable efficiency per type, e.g. a6000:0.47 (default: the estimator's)");
    cmd->add_option("--catalog", a->catalog, "Extra or overriding GPU types (orrery-gpus JSON)");
    cmd->add_option("--strategy", a->strategy, "espresso, sia+, whale+, hph+ or optimal")->capture_default_str();
    cmd->add_option("--recompute", a->recompute, "Activation recomputation: none, selective, full")
        ->capture_default_str();
    cmd->add_flag("--no-bp", a->noBp, "Disable boundary pruning");
    cmd->add_flag("--no-cp", a->noCp, "Disable cost pruning");
    cmd->add_flag("--no-tcp", a->noTcp, "Disable time-and-capacity pruning");
    cmd->add_option("--bandwidth-gbit-s", a->bandwidthGbitS, "Inter-instance bandwidth")->capture_default_str();
    cmd->add_option("--optimal-budget-s", a->optimalBudgetS, "Optimal refuses searches estimated above this")
        ->capture_default_str();
    cmd->add_option("--optimal-time-limit-s", a->optimalTimeLimitS,
                    "Optimal stops with an error after searching this long (0: no limit)")
        ->capture_default_str();
    cmd->add_flag("--evaluated", a->evaluated, "With --json: every complete plan evaluated (cost vs time)");
    cmd->add_flag("--json", a->json, "Machine-readable output");
    cmd->callback([a] {
        const hardware::GpuCatalog catalog = catalogFor(a->catalog);
        provision::ProvisionJob job;
        job.model = workload::resolveModel(a->model);
        job.training.globalBatch = a->batch;
        job.training.seq = a->seq;
        if (a->seq < 0)
            throw Error("", "--seq", fmt::format("expected a sequence length >= 1, got {}", a->seq));
        job.training.recompute = workload::recomputeFromString(a->recompute);
        job.microBatches = a->microBatches;
        job.iterations = a->iterations;
        job.sloS = a->sloS;
        job.interBandwidthGbitS = a->bandwidthGbitS;
        const auto pool = buildPool(*a, catalog);

        provision::ProvisionOptions options;
        options.strategy = provision::strategyFromString(a->strategy);
        options.boundaryPruning = !a->noBp;
        options.costPruning = !a->noCp;
        options.timeCapacityPruning = !a->noTcp;
        options.recordEvaluated = a->evaluated;
        options.optimalBudgetS = a->optimalBudgetS;
        options.optimalTimeLimitS = a->optimalTimeLimitS;
        const provision::EstimatorProfileSource source(parseEfficiency(a->efficiency, catalog));
        const auto result = provision::provisionGpus(job, pool, source, options);
        if (a->json)
            printJson(planJson(result, pool, job, a->evaluated));
        else
            printHuman(result, pool, job);
    });
}

} // namespace

ORRERY_CLI_COMMAND(40, registerProvisionCommand, "provision");

} // namespace orrery::cli
