// orrery-cli serve place|simulate: AlpaServe's placement and request simulation (docs/serving.md).
#include "cli.h"
#include "count_arg.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_reader.h"
#include "serve/arrivals.h"
#include "serve/clockwork.h"
#include "serve/maf_trace.h"
#include "serve/placement_json.h"
#include "serve/placement_search.h"
#include "serve/serving_metrics.h"
#include "util/text.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace orrery::cli {

namespace {

using namespace orrery::serve;

struct ServeArgs
{
    std::string models;
    std::string set;
    std::string library;
    std::string gpu = "v100-16gb";
    int gpus = 64;
    double memoryBudgetGB = 0;
    bool noCalibrate = false;
    double rate = 20;
    double cv = 3;
    double powerLaw = 0;
    double durationS = 600;
    std::uint64_t seed = 1;
    std::string trace;
    int windowMin = 60;
    double rateScale = 1;
    double cvScale = 1;
    double sloScale = 5;
    bool json = false;
    // place
    std::string algorithm = "alpaserve";
    int beam = 1;
    double fastAbove = 2e7;
    double windowS = 60;
    std::string output;
    int maxBuckets = 2;
    // simulate
    std::string placement;
    int cdfPoints = 20;
};

/** The model sets of Table 1. */
std::vector<std::pair<std::string, int>> modelSet(const std::string& name)
{
    const std::string s = util::toLower(name);
    if (s == "s1")
        return {{"bert-1.3b", 32}};
    if (s == "s2")
        return {{"bert-6.7b", 32}};
    if (s == "s3")
        return {{"bert-1.3b", 10}, {"bert-2.7b", 10}, {"bert-6.7b", 10},
                {"moe-1.3b", 10},  {"moe-2.4b", 10},  {"moe-5.3b", 10}};
    if (s == "s4")
        return {{"bert-104b", 4}};
    throw Error("", "--set", fmt::format("expected S1, S2, S3 or S4, got \"{}\"", name));
}

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

struct Setup
{
    ServingLibrary library;
    ServingProblem problem;
    Workload workload;
    std::vector<std::vector<GammaProcess>> windows; // of a trace; empty for synthetic traffic
    double windowS = 0;
};

std::unique_ptr<Setup> prepare(const ServeArgs& a)
{
    auto s = std::make_unique<Setup>();
    s->library = a.library.empty() ? ServingLibrary::builtin() : ServingLibrary::fromFile(a.library);
    if (a.models.empty() == a.set.empty())
        throw Error("", "--models", "give the models to serve with --models or --set (one of them)");
    const auto counts = a.set.empty() ? parseModels(a.models) : modelSet(a.set);
    s->problem = ServingProblem::fromCounts(counts, s->library, hardware::GpuCatalog::builtin().at(a.gpu), a.gpus);
    if (a.memoryBudgetGB < 0)
        throw Error("", "--memory-budget-gb", "expected a non-negative budget");
    s->problem.latency.memoryBudgetBytes = a.memoryBudgetGB * 1e9;
    s->problem.latency.calibrate = !a.noCalibrate;
    if (!(a.sloScale > 0))
        throw Error("", "--slo-scale", fmt::format("expected a positive scale, got {}", a.sloScale));
    s->problem.sloScale = a.sloScale;
    const int models = s->problem.models();
    if (!a.trace.empty()) {
        const MafTrace trace = readMafTrace(a.trace);
        s->windows = fitMafWindows(trace, models, {a.windowMin, a.rateScale, a.cvScale});
        s->windowS = a.windowMin * 60.0;
        s->workload = windowedGammaWorkload(s->windows, s->windowS, a.seed);
    } else {
        if (!(a.durationS > 0))
            throw Error("", "--duration", fmt::format("expected a positive duration, got {}", a.durationS));
        std::vector<GammaProcess> per;
        for (double r : powerLawRates(a.rate, models, a.powerLaw))
            per.push_back({r, a.cv});
        s->workload = gammaWorkload(per, a.durationS, a.seed);
    }
    return s;
}

void addCommonOptions(CLI::App* cmd, ServeArgs& a)
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
                    "Azure Functions per-minute counts (MAF1 schema) instead of Gamma traffic: functions feed models "
                    "round-robin, each window re-fitted as a Gamma process");
    cmd->add_option("--window-min", a.windowMin, "Trace window in minutes")->capture_default_str();
    cmd->add_option("--rate-scale", a.rateScale, "Multiply the trace's fitted rates")->capture_default_str();
    cmd->add_option("--cv-scale", a.cvScale, "Multiply the trace's fitted CVs")->capture_default_str();
    cmd->add_option("--slo-scale", a.sloScale, "SLO as a multiple of each model's latency on its fewest GPUs")
        ->capture_default_str();
    cmd->add_flag("--json", a.json, "Print JSON");
}

nlohmann::json groupsReport(const Placement& placement, const SimResult& sim, const ServingProblem& problem)
{
    nlohmann::json groups = nlohmann::json::array();
    const std::vector<double> util = sim.groupUtilisation();
    for (std::size_t g = 0; g < placement.groups.size(); ++g) {
        nlohmann::json models = nlohmann::json::array();
        for (int m : placement.groups[g].models)
            models.push_back(problem.instances[static_cast<std::size_t>(m)].name);
        groups.push_back({{"stages", placement.groups[g].config.stages},
                          {"intra", placement.groups[g].config.intra},
                          {"models", models},
                          {"utilisation", g < util.size() ? util[g] : 0.0}});
    }
    return groups;
}

void printGroups(const Placement& placement, const SimResult& sim, const ServingProblem& problem)
{
    Table table({"group", "config", "GPUs", "models", "utilisation"});
    const std::vector<double> util = sim.groupUtilisation();
    for (std::size_t g = 0; g < placement.groups.size(); ++g) {
        std::string names;
        for (int m : placement.groups[g].models)
            names += (names.empty() ? "" : " ") + problem.instances[static_cast<std::size_t>(m)].name;
        table.add({std::to_string(g), placement.groups[g].config.label(),
                   std::to_string(placement.groups[g].config.gpus()), names.empty() ? "-" : names,
                   fmt::format("{:.1f}%", 100 * util[g])});
    }
    std::cout << table.render();
}

void registerServe(CLI::App& app)
{
    auto* serve = app.add_subcommand("serve", "Model serving with AlpaServe: placement and request simulation");
    serve->require_subcommand(1);

    auto place = std::make_shared<ServeArgs>();
    auto* placeCmd = serve->add_subcommand(
        "place", "Partition the GPUs into groups, choose parallel configurations and replicas (AlpaServe's "
                 "Algorithms 1-2, or a baseline) for the most requests within SLO");
    addCommonOptions(placeCmd, *place);
    placeCmd->add_option("--algorithm", place->algorithm, "alpaserve, sr (Selective Replication) or clockwork++")
        ->capture_default_str();
    placeCmd->add_option("--beam", place->beam, "Beam width of Algorithm 1")->capture_default_str();
    placeCmd
        ->add_option("--fast-above", place->fastAbove,
                     "Use Algorithm 1's fast heuristic when an iteration would simulate more requests than this "
                     "(models x groups x requests)")
        ->capture_default_str();
    placeCmd->add_option("--max-buckets", place->maxBuckets, "Latency buckets Algorithm 2 may form")
        ->capture_default_str();
    placeCmd
        ->add_option("--window", place->windowS,
                     "Clockwork++ window in seconds (re-placement every two; a trace's own window when given)")
        ->capture_default_str();
    placeCmd->add_option("--output", place->output, "Write the placement file (for serve simulate --placement)");
    placeCmd->callback([a = place] {
        auto s = prepare(*a);
        ProfileCache cache(s->problem);
        SearchOptions options;
        options.greedy.beam = a->beam;
        options.greedy.fastAbove = a->fastAbove;
        options.maxBuckets = a->maxBuckets;
        const auto started = std::chrono::steady_clock::now();
        nlohmann::json out = {{"algorithm", a->algorithm},
                              {"gpu", s->problem.gpu->name},
                              {"gpus", s->problem.gpus},
                              {"models", s->problem.models()},
                              {"requests", s->workload.requests.size()},
                              {"slo_scale", s->problem.sloScale}};
        if (a->algorithm == "clockwork++") {
            const double window = s->windowS > 0 ? s->windowS : a->windowS;
            const ClockworkResult cw = clockworkPlusPlus(cache, s->workload, window, options);
            const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            out["attainment"] = cw.attainment();
            out["served"] = cw.served;
            out["simulations"] = cw.simulations;
            out["search_s"] = seconds;
            out["window_s"] = window;
            nlohmann::json segments = nlohmann::json::array();
            for (const auto& p : cw.placements)
                segments.push_back(placementToJson(p, s->problem));
            out["segments"] = segments;
            if (a->json)
                printJson(out);
            else
                std::cout << fmt::format("clockwork++: {} re-placements every {:.0f} s, SLO attainment {:.2f}% "
                                         "({} of {} requests), {:.2f} s\n",
                                         cw.placements.size(), 2 * window, 100 * cw.attainment(), cw.served,
                                         cw.requests, seconds);
            return;
        }
        SearchResult result;
        if (a->algorithm == "alpaserve")
            result = searchPlacement(cache, s->workload, options);
        else if (a->algorithm == "sr")
            result = selectiveReplication(cache, s->workload, options);
        else
            throw Error("", "--algorithm",
                        fmt::format("expected alpaserve, sr or clockwork++, got \"{}\"", a->algorithm));
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        const SimResult sim = evaluatePlacement(cache, result.placement, s->workload);
        if (!a->output.empty()) {
            std::ofstream f(a->output);
            f << placementToJson(result.placement, s->problem).dump(1) << '\n';
            if (!f)
                throw Error(a->output, "", "cannot write the placement file");
        }
        out["attainment"] = sim.attainment();
        out["served"] = sim.served;
        out["simulations"] = result.simulations;
        out["candidates"] = result.candidates;
        out["search_s"] = seconds;
        out["placement"] = placementToJson(result.placement, s->problem);
        out["groups"] = groupsReport(result.placement, sim, s->problem);
        if (a->json) {
            printJson(out);
            return;
        }
        std::cout << fmt::format("{} on {} x {}: {} groups, {} replicas; SLO attainment {:.2f}% ({} of {} requests); "
                                 "{} simulations in {:.2f} s\n",
                                 a->algorithm, s->problem.gpus, s->problem.gpu->name, result.placement.groups.size(),
                                 result.placement.replicas(), 100 * sim.attainment(), sim.served, sim.requests,
                                 result.simulations, seconds);
        printGroups(result.placement, sim, s->problem);
    });

    auto simulate = std::make_shared<ServeArgs>();
    auto* simCmd = serve->add_subcommand("simulate", "Simulate requests on a placement: SLO attainment, latency "
                                                     "distribution, per-group utilisation");
    addCommonOptions(simCmd, *simulate);
    simCmd->add_option("--placement", simulate->placement, "Placement file (serve place --output or --json)")
        ->required();
    simCmd->add_option("--cdf-points", simulate->cdfPoints, "Points of the latency CDF in --json")
        ->capture_default_str()
        ->check(CLI::Range(1, 10000));
    simCmd->callback([a = simulate] {
        auto s = prepare(*a);
        ProfileCache cache(s->problem);
        const std::string label = std::filesystem::path(a->placement).filename().string();
        const Placement placement =
            placementFromJson(io::parseJson(util::readFile(a->placement), label), label, s->problem);
        try {
            checkPlacement(cache, placement);
        } catch (const Error& e) {
            throw e.inFile(label);
        }
        const SimResult sim = evaluatePlacement(cache, placement, s->workload, true);
        const LatencySummary lat = summarizeLatencies(sim);
        nlohmann::json perModel = nlohmann::json::array();
        for (int m = 0; m < s->problem.models(); ++m)
            perModel.push_back({{"model", s->problem.instances[static_cast<std::size_t>(m)].name},
                                {"requests", sim.requestsPerModel[static_cast<std::size_t>(m)]},
                                {"served", sim.servedPerModel[static_cast<std::size_t>(m)]}});
        nlohmann::json cdf = nlohmann::json::array();
        for (const auto& [l, q] : latencyCdf(sim, a->cdfPoints))
            cdf.push_back({{"latency_s", l}, {"fraction", q}});
        if (a->json) {
            printJson({{"requests", sim.requests},
                       {"served", sim.served},
                       {"rejected", sim.rejected},
                       {"unplaced", sim.unplaced},
                       {"attainment", sim.attainment()},
                       {"latency",
                        {{"mean_s", lat.meanS},
                         {"p50_s", lat.p50S},
                         {"p90_s", lat.p90S},
                         {"p99_s", lat.p99S},
                         {"max_s", lat.maxS}}},
                       {"latency_cdf", cdf},
                       {"models", perModel},
                       {"groups", groupsReport(placement, sim, s->problem)}});
            return;
        }
        std::cout << fmt::format("SLO attainment {:.2f}% ({} of {} requests served, {} rejected, {} for models no "
                                 "group hosts)\nlatency of served requests: mean {:.3f} s, p50 {:.3f} s, p90 {:.3f} s, "
                                 "p99 {:.3f} s, max {:.3f} s\n",
                                 100 * sim.attainment(), sim.served, sim.requests, sim.rejected, sim.unplaced,
                                 lat.meanS, lat.p50S, lat.p90S, lat.p99S, lat.maxS);
        printGroups(placement, sim, s->problem);
    });
}

} // namespace

ORRERY_CLI_COMMAND(45, registerServe);

} // namespace orrery::cli
