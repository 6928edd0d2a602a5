// The options `orrery-cli serve` subcommands share and their reading into a ServingSpec.
#include "serve_args.h"

#include "count_arg.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace orrery::cli {

using namespace orrery::serve;

namespace {

/** `bert-1.3b:32,moe-2.4b:10` (a name without a count is one instance). */
std::vector<std::pair<std::string, int>> parseModels(const std::string& text)
{
    std::vector<std::pair<std::string, int>> out;
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = std::min(text.find(',', start), text.size());
        const std::string item = text.substr(start, comma - start);
        start = comma + 1;
        if (item.empty())
            throw Error("", "--models", fmt::format("empty entry in \"{}\"", text));
        const std::size_t colon = item.find(':');
        int count = 1;
        if (colon != std::string::npos) {
            const std::string n = item.substr(colon + 1);
            const auto parsed = parsePositiveCount(n);
            if (!parsed)
                throw Error("", "--models", fmt::format("{}: expected a positive count, got \"{}\"", item, n));
            count = *parsed;
        }
        out.emplace_back(item.substr(0, colon), count);
    }
    return out;
}

} // namespace

/** The run's inputs from the options, each checked under its option's name. */
ServingSpec specOf(const ServeArgs& a)
{
    if (a.models.empty() == a.set.empty())
        throw Error("", "--models", "give the models to serve with --models or --set (one of them)");
    ServingSpec spec;
    if (!a.set.empty()) {
        const auto set = modelSet(a.set);
        if (!set)
            throw Error("", "--set", fmt::format("expected S1, S2, S3 or S4, got \"{}\"", a.set));
        spec.modelSet = "S" + a.set.substr(1); // modelSet() took it: s1 ... s4, any case
        spec.models = *set;
    } else {
        spec.models = parseModels(a.models);
    }
    if (a.memoryBudgetGB < 0)
        throw Error("", "--memory-budget-gb", "expected a non-negative budget");
    if (!(a.sloScale > 0))
        throw Error("", "--slo-scale", fmt::format("expected a positive scale, got {}", a.sloScale));
    if (a.trace.empty() && !(a.durationS > 0))
        throw Error("", "--duration", fmt::format("expected a positive duration, got {}", a.durationS));
    spec.library = a.library;
    spec.gpu = a.gpu;
    spec.gpus = a.gpus;
    spec.memoryBudgetGB = a.memoryBudgetGB;
    spec.calibrate = !a.noCalibrate;
    spec.ratePerS = a.rate;
    spec.cv = a.cv;
    spec.powerLaw = a.powerLaw;
    spec.durationS = a.durationS;
    spec.seed = a.seed;
    spec.trace = a.trace;
    spec.windowMin = a.windowMin;
    spec.rateScale = a.rateScale;
    spec.cvScale = a.cvScale;
    spec.sloScale = a.sloScale;
    spec.maxBatch = a.maxBatch;
    spec.autoPartition = !a.equalLayerSplit;
    spec.method = a.algorithm;
    spec.beam = a.beam;
    spec.fastAbove = a.fastAbove;
    spec.maxBuckets = a.maxBuckets;
    spec.windowS = a.windowS;
    return spec;
}

/** A method `serve place` and `serve threshold` run: AlpaServe, a baseline, or an ablation's variant. */
void checkMethod(const std::string& option, const std::string& method)
{
    const auto known = [&](const std::vector<std::string>& list) {
        return std::find(list.begin(), list.end(), method) != list.end();
    };
    if (!known(placementMethods()) && !known(ablationMethods()))
        throw Error("", option,
                    fmt::format("expected alpaserve, sr, clockwork++, round-robin or greedy, got \"{}\"", method));
}

void addCommonOptions(CLI::App* cmd, ServeArgs& a, bool storable)
{
    cmd->add_option("--models", a.models,
                    "Models to serve: NAME[:COUNT],... from the serving library (instances NAME#i)");
    cmd->add_option("--set", a.set, "A model set of AlpaServe's Table 1 instead: S1, S2, S3 or S4");
    cmd->add_option("--library", a.library, "Serving model library file (default: the built-in Table 1 models)");
    cmd->add_option("--gpu", a.gpu, "GPU type of the cluster")->capture_default_str();
    cmd->add_option("--gpus", a.gpus, "GPUs in the cluster")->capture_default_str()->check(CLI::Range(1, 4096));
    cmd->add_option("--memory-budget-gb", a.memoryBudgetGB,
                    "Usable memory per GPU in GB (the paper's effective V100 budget: 13); 0 = the GPU's memory")
        ->capture_default_str();
    cmd->add_flag("--no-calibrate", a.noCalibrate,
                  "Use the estimator's latencies as they are, not scaled to the paper's V100 measurements");
    cmd->add_option("--rate", a.rate, "Total request rate, req/s (Gamma traffic)")->capture_default_str();
    cmd->add_option("--cv", a.cv, "Coefficient of variation of inter-arrival times (Gamma traffic)")
        ->capture_default_str();
    cmd->add_option("--power-law", a.powerLaw, "Split the rate over models with weights (i+1)^-EXPONENT; 0 = even")
        ->capture_default_str();
    cmd->add_option("--duration", a.durationS, "Seconds of Gamma traffic")->capture_default_str();
    cmd->add_option("--seed", a.seed, "Random seed of the arrivals")->capture_default_str();
    cmd->add_option("--trace", a.trace,
                    "Azure Functions trace instead of Gamma traffic: per-minute counts (MAF1 schema) or per-invocation "
                    "rows (MAF2: app,func,end_timestamp,duration); functions feed models round-robin, each window "
                    "re-fitted as a Gamma process");
    cmd->add_option("--window-min", a.windowMin, "Trace window in minutes")->capture_default_str();
    cmd->add_option("--rate-scale", a.rateScale, "Multiply the trace's fitted rates")->capture_default_str();
    cmd->add_option("--cv-scale", a.cvScale, "Multiply the trace's fitted CVs")->capture_default_str();
    cmd->add_option("--slo-scale", a.sloScale, "SLO as a multiple of each model's latency on its fewest GPUs")
        ->capture_default_str();
    cmd->add_option("--max-batch", a.maxBatch,
                    "Batch up to this many queued requests of one model (AlpaServe's §6.5 batching runtime); 1 = no "
                    "batching")
        ->capture_default_str()
        ->check(CLI::Range(1, 1024));
    cmd->add_flag("--equal-layer-split", a.equalLayerSplit,
                  "Give each pipeline stage an equal number of layers instead of the stage DP (§6.6 ablation)");
    cmd->add_flag("--json", a.json, "Print JSON");
    if (storable)
        cmd->add_option(
            "--db", a.db,
            "Also store the run (inputs, placement, attainment, latencies) in this run store (SQLite); list "
            "stored serving runs with `serve runs list`");
}

} // namespace orrery::cli
