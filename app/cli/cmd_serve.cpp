// orrery-cli serve place|simulate: AlpaServe's placement and request simulation (docs/serving.md).
#include "cli.h"
#include "run_db.h"
#include "serve_args.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_reader.h"
#include "io/serving_csv.h"
#include "serve/placement_json.h"
#include "serve/serving_metrics.h"
#include "serve/serving_run.h"
#include "serve/threshold_search.h"
#include "store/default_path.h"
#include "store/serving_records.h"
#include "util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

namespace orrery::cli {

namespace {

using namespace orrery::serve;

/** Stores the run when --db was given, and says so on stderr (stdout stays the report). */
void storeIfAsked(const std::string& db, ServingRun& run)
{
    if (db.empty())
        return;
    auto store = openRunStoreForWriting(db);
    const auto id = store::saveServingRun(store.connection(), run);
    std::cerr << fmt::format("orrery-cli: stored serving run {} in {}\n", id, store.path());
}

nlohmann::json groupsReport(const std::vector<RunGroup>& groups)
{
    nlohmann::json out = nlohmann::json::array();
    for (const auto& g : groups)
        out.push_back({{"stages", g.config.stages},
                       {"intra", g.config.intra},
                       {"models", g.models},
                       {"utilisation", g.utilisation}});
    return out;
}

void printGroups(const std::vector<RunGroup>& groups)
{
    Table table({"group", "config", "GPUs", "models", "utilisation"});
    for (std::size_t g = 0; g < groups.size(); ++g) {
        std::string names;
        for (const auto& m : groups[g].models)
            names += (names.empty() ? "" : " ") + m;
        table.add({std::to_string(g), groups[g].config.label(), std::to_string(groups[g].config.gpus()),
                   names.empty() ? "-" : names, fmt::format("{:.1f}%", 100 * groups[g].utilisation)});
    }
    std::cout << table.render();
}

/** A stored serving run as `serve runs show --json` prints it: the spec, the placement, the outcome. */
nlohmann::json storedRunJson(const ServingRun& r)
{
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : r.groups)
        groups.push_back({{"segment", g.segment},
                          {"stages", g.config.stages},
                          {"intra", g.config.intra},
                          {"models", g.models},
                          {"utilisation", g.utilisation}});
    nlohmann::json models = nlohmann::json::array();
    for (const auto& m : r.models)
        models.push_back({{"model", m.name},
                          {"kind", m.kind},
                          {"slo_s", m.sloS},
                          {"requests", m.requests},
                          {"served", m.served},
                          {"attainment", m.attainment()}});
    nlohmann::json cdf = nlohmann::json::array();
    for (const auto& [l, q] : r.cdf)
        cdf.push_back({{"latency_s", l}, {"fraction", q}});
    const auto& lat = r.latency;
    return {
        {"id", r.id},
        {"uid", r.uid},
        {"created_at", r.createdAt},
        {"orrery_version", r.orreryVersion},
        {"spec", servingSpecToJson(r.spec)},
        {"segments", r.segments},
        {"groups", groups},
        {"requests", r.requests},
        {"served", r.served},
        {"rejected", r.rejected},
        {"unplaced", r.unplaced},
        {"attainment", r.attainment()},
        {"latency",
         {{"mean_s", lat.meanS}, {"p50_s", lat.p50S}, {"p90_s", lat.p90S}, {"p99_s", lat.p99S}, {"max_s", lat.maxS}}},
        {"latency_cdf", cdf},
        {"models", models},
        {"search_s", r.searchS},
        {"simulations", r.simulations},
        {"candidates", r.candidates}};
}

std::string optText(const std::optional<double>& v, const char* spec)
{
    return v ? fmt::format(fmt::runtime(spec), *v) : "-";
}

/** `serve runs list|show|export|delete`: the serving runs of a run store, as `runs ...` does for training runs. */
void registerServeRuns(CLI::App* serve)
{
    auto* runs =
        serve->add_subcommand("runs", "List, show, export and delete stored serving runs (serve place|simulate "
                                      "--db)");
    runs->require_subcommand(1);

    struct ListArgs
    {
        std::string db, method;
        bool json = false;
    };
    auto la = std::make_shared<ListArgs>();
    auto* list = runs->add_subcommand("list", "List stored serving runs, oldest first");
    addDbOption(list, la->db);
    list->add_option("--method", la->method, "Only runs of this method: alpaserve, sr, clockwork++ or given");
    list->add_flag("--json", la->json, "Machine-readable output: {\"serving_runs\": [...]}");
    list->callback([la] {
        std::vector<store::ServingRunRow> rows;
        if (!la->db.empty() || std::filesystem::exists(store::defaultDatabasePath()))
            rows = store::listServingRuns(openRunStoreForReading(la->db).connection(), la->method);
        if (la->json) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& r : rows)
                out.push_back({{"id", r.id},
                               {"created_at", r.createdAt},
                               {"method", r.method},
                               {"model_set", r.modelSet},
                               {"models", r.models},
                               {"gpu_type", r.gpuType},
                               {"gpus", r.gpus},
                               {"rate_per_s", r.ratePerS ? nlohmann::json(*r.ratePerS) : nlohmann::json(nullptr)},
                               {"cv", r.cv ? nlohmann::json(*r.cv) : nlohmann::json(nullptr)},
                               {"slo_scale", r.sloScale},
                               {"requests", r.requests},
                               {"served", r.served},
                               {"attainment", r.attainment},
                               {"latency_p99_s", r.p99S ? nlohmann::json(*r.p99S) : nlohmann::json(nullptr)},
                               {"groups", r.groups}});
            printJson({{"serving_runs", out}});
            return;
        }
        Table t({"id", "created", "method", "models", "GPUs", "rate_per_s", "cv", "slo_scale", "requests",
                 "attainment_pct", "p99_s", "groups"});
        for (const auto& r : rows)
            t.add({std::to_string(r.id), r.createdAt, r.method, r.modelSet.empty() ? r.models : r.modelSet,
                   fmt::format("{} x {}", r.gpus, r.gpuType), optText(r.ratePerS, "{:g}"), optText(r.cv, "{:g}"),
                   fmt::format("{:g}", r.sloScale), std::to_string(r.requests),
                   fmt::format("{:.2f}", 100 * r.attainment), optText(r.p99S, "{:.3f}"), std::to_string(r.groups)});
        std::cout << t.render();
    });

    struct ShowArgs
    {
        std::string db;
        std::int64_t id = 0;
        bool json = false;
    };
    auto sa = std::make_shared<ShowArgs>();
    auto* show = runs->add_subcommand("show", "Show one stored serving run: inputs, placement, attainment, latencies");
    show->add_option("id", sa->id, "Serving run id (see `serve runs list`)")->required();
    addDbOption(show, sa->db);
    show->add_flag("--json", sa->json, "Everything stored: spec, groups, per-model counts, latency CDF");
    show->callback([sa] {
        auto db = openRunStoreForReading(sa->db);
        const ServingRun r = store::loadServingRun(db.connection(), sa->id);
        if (sa->json) {
            printJson(storedRunJson(r));
            return;
        }
        const auto& sp = r.spec;
        std::cout << fmt::format("serving run {}: {} on {} x {}; stored {} by orrery {}\n", r.id,
                                 methodTitle(sp.method), sp.gpus, sp.gpu, r.createdAt, r.orreryVersion);
        std::cout << fmt::format("models: {}{}\n", sp.modelSet.empty() ? "" : sp.modelSet + " = ",
                                 modelCountsText(sp.models));
        if (sp.usesTrace())
            std::cout << fmt::format("traffic: trace {} ({} min windows, rate x{:g}, CV x{:g}), seed {}\n", sp.trace,
                                     sp.windowMin, sp.rateScale, sp.cvScale, sp.seed);
        else
            std::cout << fmt::format("traffic: Gamma, {:g} req/s in total, CV {:g}, power law {:g}, {:g} s, seed {}\n",
                                     sp.ratePerS, sp.cv, sp.powerLaw, sp.durationS, sp.seed);
        std::cout << fmt::format("SLO scale {:g}; SLO attainment {:.2f}% ({} of {} requests, {} rejected)\n",
                                 sp.sloScale, 100 * r.attainment(), r.served, r.requests, r.rejected);
        std::cout << fmt::format("latency of served requests: mean {:.3f} s, p50 {:.3f} s, p90 {:.3f} s, p99 {:.3f} s, "
                                 "max {:.3f} s\n",
                                 r.latency.meanS, r.latency.p50S, r.latency.p90S, r.latency.p99S, r.latency.maxS);
        for (int k = 0; k < r.segments; ++k) {
            if (r.segments > 1)
                std::cout << fmt::format("\nsegment {} (windows {} and {}):\n", k, 2 * k, 2 * k + 1);
            printGroups(r.segmentGroups(k));
        }
    });

    struct ExportArgs
    {
        std::string db, what = "runs", output;
        std::vector<std::int64_t> ids;
    };
    auto ea = std::make_shared<ExportArgs>();
    auto* exp = runs->add_subcommand("export", "Export stored serving runs as CSV (units in the column names)");
    exp->add_option("ids", ea->ids, "Serving run ids (default: every stored serving run)");
    addDbOption(exp, ea->db);
    exp->add_option("--what", ea->what,
                    "runs (one row per run, default), groups (the placement), models (per-model attainment) or cdf "
                    "(latency CDF samples)")
        ->check(CLI::IsMember({"runs", "groups", "models", "cdf"}));
    exp->add_option("-o,--output", ea->output, "Output file ('-' or absent: standard output)");
    exp->callback([ea] {
        auto db = openRunStoreForReading(ea->db);
        std::vector<std::int64_t> ids = ea->ids;
        if (ids.empty())
            for (const auto& r : store::listServingRuns(db.connection()))
                ids.push_back(r.id);
        std::vector<ServingRun> runs;
        for (const auto id : ids)
            runs.push_back(store::loadServingRun(db.connection(), id));
        const auto write = [&](std::ostream& out) {
            if (ea->what == "groups")
                io::writeServingGroupsCsv(out, runs);
            else if (ea->what == "models")
                io::writeServingModelsCsv(out, runs);
            else if (ea->what == "cdf")
                io::writeServingCdfCsv(out, runs);
            else
                io::writeServingRunsCsv(out, runs);
        };
        if (ea->output.empty() || ea->output == "-") {
            write(std::cout);
            std::cout.flush();
            return;
        }
        std::ofstream out(ea->output, std::ios::binary | std::ios::trunc);
        if (!out)
            throw Error(ea->output, "", "cannot write file");
        write(out);
        out.close();
        if (!out)
            throw std::runtime_error(ea->output + ": write failed");
    });

    struct DeleteArgs
    {
        std::string db;
        std::vector<std::int64_t> ids;
    };
    auto da = std::make_shared<DeleteArgs>();
    auto* del = runs->add_subcommand("delete", "Delete stored serving runs");
    del->add_option("ids", da->ids, "Serving run ids")->required();
    addDbOption(del, da->db);
    del->callback([da] {
        auto db = openExistingRunStoreForWriting(da->db);
        for (const auto id : da->ids) {
            if (!store::deleteServingRun(db.connection(), id))
                throw Error(db.path(), "serving run", fmt::format("no serving run with id {}", id));
            std::cout << fmt::format("deleted serving run {}\n", id);
        }
    });
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
    placeCmd
        ->add_option("--algorithm", place->algorithm,
                     "alpaserve, sr (Selective Replication) or clockwork++; the §6.6 ablation's round-robin or greedy "
                     "(4-stage pipelines, models dealt round-robin or placed by Algorithm 1 alone)")
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
        checkMethod("--algorithm", a->algorithm);
        const ServingSpec spec = specOf(*a);
        auto s = prepareServing(spec);
        ServingRun run = runServing(spec, *s);
        nlohmann::json out = {{"algorithm", a->algorithm},
                              {"gpu", s->problem.gpu->name},
                              {"gpus", s->problem.gpus},
                              {"models", s->problem.models()},
                              {"requests", s->workload.requests.size()},
                              {"slo_scale", s->problem.sloScale}};
        out["attainment"] = run.attainment();
        out["served"] = run.served;
        out["simulations"] = run.simulations;
        out["search_s"] = run.searchS;
        if (a->algorithm == kMethodClockwork) {
            const double window = s->clockworkWindowS(spec);
            out["window_s"] = window;
            nlohmann::json segments = nlohmann::json::array();
            for (int k = 0; k < run.segments; ++k)
                segments.push_back(placementToJson(placementOf(run, k, s->problem), s->problem));
            out["segments"] = segments;
            storeIfAsked(a->db, run);
            if (a->json)
                printJson(out);
            else
                std::cout << fmt::format("clockwork++: {} re-placements every {:.0f} s, SLO attainment {:.2f}% "
                                         "({} of {} requests), {:.2f} s\n",
                                         run.segments, 2 * window, 100 * run.attainment(), run.served, run.requests,
                                         run.searchS);
            return;
        }
        const Placement placement = placementOf(run, 0, s->problem);
        if (!a->output.empty()) {
            std::ofstream f(a->output);
            f << placementToJson(placement, s->problem).dump(1) << '\n';
            if (!f)
                throw Error(a->output, "", "cannot write the placement file");
        }
        out["candidates"] = run.candidates;
        out["placement"] = placementToJson(placement, s->problem);
        out["groups"] = groupsReport(run.groups);
        storeIfAsked(a->db, run);
        if (a->json) {
            printJson(out);
            return;
        }
        std::cout << fmt::format("{} on {} x {}: {} groups, {} replicas; SLO attainment {:.2f}% ({} of {} requests); "
                                 "{} simulations in {:.2f} s\n",
                                 a->algorithm, s->problem.gpus, s->problem.gpu->name, placement.groups.size(),
                                 placement.replicas(), 100 * run.attainment(), run.served, run.requests,
                                 run.simulations, run.searchS);
        printGroups(run.groups);
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
        ServingSpec spec = specOf(*a);
        spec.method = kMethodGiven;
        const std::string label = std::filesystem::path(a->placement).filename().string();
        spec.placementFile = a->placement;
        auto s = prepareServing(spec);
        ProfileCache cache(s->problem);
        const Placement placement =
            placementFromJson(io::parseJson(util::readFile(a->placement), label), label, s->problem);
        try {
            checkPlacement(cache, placement);
        } catch (const Error& e) {
            throw e.inFile(label);
        }
        const SimResult sim = evaluatePlacement(cache, placement, s->workload, true);
        ServingRun run = describeServingRun(spec, cache, {placement}, {sim});
        storeIfAsked(a->db, run);
        const LatencySummary& lat = run.latency;
        nlohmann::json perModel = nlohmann::json::array();
        for (const auto& m : run.models)
            perModel.push_back({{"model", m.name}, {"requests", m.requests}, {"served", m.served}});
        nlohmann::json cdf = nlohmann::json::array();
        for (const auto& [l, q] : latencyCdf(sim, a->cdfPoints))
            cdf.push_back({{"latency_s", l}, {"fraction", q}});
        if (a->json) {
            printJson({{"requests", run.requests},
                       {"served", run.served},
                       {"rejected", run.rejected},
                       {"unplaced", run.unplaced},
                       {"attainment", run.attainment()},
                       {"latency",
                        {{"mean_s", lat.meanS},
                         {"p50_s", lat.p50S},
                         {"p90_s", lat.p90S},
                         {"p99_s", lat.p99S},
                         {"max_s", lat.maxS}}},
                       {"latency_cdf", cdf},
                       {"models", perModel},
                       {"groups", groupsReport(run.groups)}});
            return;
        }
        std::cout << fmt::format("SLO attainment {:.2f}% ({} of {} requests served, {} rejected, {} for models no "
                                 "group hosts)\nlatency of served requests: mean {:.3f} s, p50 {:.3f} s, p90 {:.3f} s, "
                                 "p99 {:.3f} s, max {:.3f} s\n",
                                 100 * run.attainment(), run.served, run.requests, run.rejected, run.unplaced,
                                 lat.meanS, lat.p50S, lat.p90S, lat.p99S, lat.maxS);
        printGroups(run.groups);
    });

    registerServeThreshold(serve);
    registerServeRuns(serve);
}

} // namespace

ORRERY_CLI_COMMAND(45, registerServe, "serve");

} // namespace orrery::cli
