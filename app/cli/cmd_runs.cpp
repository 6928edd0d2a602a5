#include "cli.h"
#include "run_db.h"

#include "io/chrome_trace.h"
#include "io/error.h"
#include "io/run_csv.h"
#include "io/run_json.h"
#include "store/default_path.h"
#include "store/run_comparison.h"
#include "store/run_merge.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

namespace orrery::cli {

namespace {

std::string fmtOpt(const std::optional<double>& v, const char* spec = "{:.1f}")
{
    return v ? fmt::format(fmt::runtime(spec), *v) : "-";
}

struct ListArgs
{
    std::string db, scenario, policy, status;
    int limit = 0;
    bool json = false;
};

void listRuns(const ListArgs& a)
{
    store::RunFilter filter;
    filter.scenario = a.scenario;
    filter.policy = a.policy;
    if (!a.status.empty())
        filter.status = store::runStatusFromString(a.status);
    filter.limit = a.limit;
    std::vector<store::RunRecord> runs;
    // Nothing stored yet at the default location is an empty list; a named file must exist.
    if (!a.db.empty() || std::filesystem::exists(store::defaultDatabasePath()))
        runs = openRunStoreForReading(a.db).listRuns(filter);
    if (a.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : runs)
            out.push_back(io::runRecordToJson(r));
        printJson({{"runs", out}});
        return;
    }
    Table t(
        {"id", "scenario", "policy", "status", "started", "jobs", "finished", "avg_jct_s", "makespan_s", "cost_usd"});
    for (const auto& r : runs)
        t.add({std::to_string(r.id), r.scenarioName, r.policy, store::toString(r.status), r.startedAt,
               r.jobCount ? std::to_string(*r.jobCount) : "-",
               r.finishedJobCount ? std::to_string(*r.finishedJobCount) : "-", fmtOpt(r.avgJctS), fmtOpt(r.makespanS),
               fmtOpt(r.costUsd, "{:.2f}")});
    std::cout << t.render();
}

/** Opens the output file (or stdout for "-"), writes, and reports a failure to write as exit 1. */
template <typename Fn> void writeOutput(const std::string& file, Fn&& write)
{
    if (file.empty() || file == "-") {
        write(std::cout);
        std::cout.flush();
        return;
    }
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    if (!out)
        throw Error(file, "", "cannot write file");
    write(out);
    out.close();
    if (!out)
        throw std::runtime_error(file + ": write failed");
}

nlohmann::json comparisonJson(const store::RunComparison& c)
{
    nlohmann::json rows = nlohmann::json::array();
    for (std::size_t r = 0; r < c.runs.size(); ++r) {
        nlohmann::json row = {{"id", c.runs[r].id},
                              {"scenario", c.runs[r].scenarioName},
                              {"policy", c.runs[r].policy},
                              {"status", store::toString(c.runs[r].status)}};
        for (std::size_t m = 0; m < c.metrics.size(); ++m)
            row[c.metrics[m]] = c.values[r][m] ? nlohmann::json(*c.values[r][m]) : nlohmann::json(nullptr);
        rows.push_back(row);
    }
    return {{"metrics", c.metrics}, {"runs", rows}};
}

void registerRunsCommands(CLI::App& app)
{
    auto* runs = app.add_subcommand("runs", "List, inspect, compare, export and delete stored runs");
    runs->require_subcommand(1);

    auto la = std::make_shared<ListArgs>();
    auto* list = runs->add_subcommand("list", "List stored runs, oldest first");
    addDbOption(list, la->db);
    list->add_option("--scenario", la->scenario, "Only runs of this scenario (name or content-hash prefix)");
    list->add_option("--policy", la->policy,
                     "Only runs of this policy: a name (every parameter setting of it) or a full label such as "
                     "tiresias:backfill_limit=0");
    list->add_option("--status", la->status, "Only runs with this status: running, completed, cancelled, failed");
    list->add_option("--limit", la->limit, "At most this many runs")->check(CLI::NonNegativeNumber);
    list->add_flag("--json", la->json, "Machine-readable output: {\"runs\": [...]}");
    list->callback([la] { listRuns(*la); });

    struct ShowArgs
    {
        std::string db;
        std::int64_t id = 0;
        bool json = false;
    };
    auto sa = std::make_shared<ShowArgs>();
    auto* show = runs->add_subcommand("show", "Show one run: what ran, its metrics and its GPUs");
    show->add_option("id", sa->id, "Run id (see `runs list`)")->required();
    addDbOption(show, sa->db);
    show->add_flag("--json", sa->json,
                   "Everything the GUI shows: record, metrics, GPUs, jobs, intervals, utilisation, decisions");
    show->callback([sa] {
        auto db = openRunStoreForReading(sa->db);
        const auto run = db.loadRun(sa->id);
        const auto cmp = store::compareRuns(db, {sa->id});
        if (sa->json) {
            auto doc = io::storedRunToJson(run);
            nlohmann::json metrics = nlohmann::json::object();
            for (std::size_t m = 0; m < cmp.metrics.size(); ++m)
                metrics[cmp.metrics[m]] =
                    cmp.values[0][m] ? nlohmann::json(*cmp.values[0][m]) : nlohmann::json(nullptr);
            doc["metrics"] = metrics;
            doc["scenario"] = nlohmann::json::parse(db.scenarioJson(run.record.scenarioId), nullptr, false);
            printJson(doc);
            return;
        }
        const auto& r = run.record;
        std::cout << fmt::format("run {}: {} on \"{}\" ({})\n", r.id, r.policy, r.scenarioName,
                                 store::toString(r.status));
        if (!r.error.empty())
            std::cout << "error: " << r.error << '\n';
        std::cout << fmt::format("started {}, finished {}; seed {}; orrery {}\n", r.startedAt,
                                 r.finishedAt.empty() ? "-" : r.finishedAt, r.seed, r.orreryVersion);
        std::cout << fmt::format("{} GPUs on {} nodes; {} jobs, {} intervals, {} utilisation samples, {} decisions\n",
                                 run.layout.gpuCount(), run.layout.nodeNames.size(), run.storedJobCount(),
                                 run.result.intervals.size(), run.result.utilization.size(),
                                 run.result.decisions.size());
        if (run.partial)
            std::cout << "partial: the run did not end; only the jobs that had finished were stored, and the "
                         "metrics cover those\n";
        std::cout << '\n';
        Table t({"metric", "value"});
        for (std::size_t m = 0; m < cmp.metrics.size(); ++m)
            t.add({cmp.metrics[m], fmtOpt(cmp.values[0][m], "{:.6g}")});
        std::cout << t.render();
    });

    struct CompareArgs
    {
        std::string db, output;
        std::vector<std::int64_t> ids;
        bool json = false;
    };
    auto ca = std::make_shared<CompareArgs>();
    auto* compare = runs->add_subcommand("compare", "Compare runs side by side (one row per run)");
    compare->add_option("ids", ca->ids, "Run ids")->required();
    addDbOption(compare, ca->db);
    compare->add_flag("--json", ca->json, "Machine-readable output");
    compare->add_option("-o,--output", ca->output, "Also write the table as CSV to this file");
    compare->callback([ca] {
        auto db = openRunStoreForReading(ca->db);
        const auto cmp = store::compareRuns(db, ca->ids);
        if (!ca->output.empty())
            writeOutput(ca->output, [&](std::ostream& out) { io::writeComparisonCsv(out, cmp); });
        if (ca->json) {
            printJson(comparisonJson(cmp));
            return;
        }
        std::vector<std::string> header = {"id", "policy", "status"};
        header.insert(header.end(), cmp.metrics.begin(), cmp.metrics.end());
        Table t(header);
        for (std::size_t r = 0; r < cmp.runs.size(); ++r) {
            std::vector<std::string> row = {std::to_string(cmp.runs[r].id), cmp.runs[r].policy,
                                            store::toString(cmp.runs[r].status)};
            for (const auto& v : cmp.values[r])
                row.push_back(fmtOpt(v, "{:.6g}"));
            t.add(row);
        }
        std::cout << t.render();
    });

    struct ExportArgs
    {
        std::string db, format, what = "jobs", output;
        std::int64_t id = 0;
    };
    auto ea = std::make_shared<ExportArgs>();
    auto* exp = runs->add_subcommand("export", "Export a run as CSV or as a Chrome trace (ui.perfetto.dev)");
    exp->add_option("id", ea->id, "Run id")->required();
    addDbOption(exp, ea->db);
    exp->add_option("--format", ea->format, "csv or chrome-trace")
        ->required()
        ->check(CLI::IsMember({"csv", "chrome-trace"}));
    exp->add_option("--what", ea->what, "For CSV: jobs (default), intervals or utilization")
        ->check(CLI::IsMember({"jobs", "intervals", "utilization"}));
    exp->add_option("-o,--output", ea->output, "Output file ('-' or absent: standard output)");
    exp->callback([ea] {
        auto db = openRunStoreForReading(ea->db);
        const auto run = db.loadRun(ea->id);
        if (run.partial)
            std::cerr << fmt::format("orrery-cli: run {} is partial (it did not end): the export holds the {} jobs it "
                                     "stored, those that had finished\n",
                                     ea->id, run.storedJobCount());
        writeOutput(ea->output, [&](std::ostream& out) {
            if (ea->format == "chrome-trace")
                io::writeChromeTrace(out, run.result, run.layout);
            else if (ea->what == "intervals")
                io::writeIntervalsCsv(out, run.result, run.layout);
            else if (ea->what == "utilization")
                io::writeUtilizationCsv(out, run.result);
            else
                io::writeJobsCsv(out, run.result, &run.jobStored);
        });
    });

    struct DeleteArgs
    {
        std::string db;
        std::vector<std::int64_t> ids;
    };
    auto da = std::make_shared<DeleteArgs>();
    auto* del = runs->add_subcommand("delete", "Delete runs and their records");
    del->add_option("ids", da->ids, "Run ids")->required();
    addDbOption(del, da->db);
    del->callback([da] {
        auto db = openExistingRunStoreForWriting(da->db);
        for (const auto id : da->ids) {
            if (!db.deleteRun(id))
                throw Error(db.path(), "run", fmt::format("no run with id {}", id));
            std::cout << fmt::format("deleted run {}\n", id);
        }
    });

    struct MergeArgs
    {
        std::vector<std::string> sources;
        std::string db;
        bool json = false;
    };
    auto ma = std::make_shared<MergeArgs>();
    auto* merge = runs->add_subcommand(
        "merge", "Copy every run of other run stores (e.g. a sweep's shards) into one: all or nothing, idempotent");
    merge->add_option("sources", ma->sources, "Run stores to copy from (read only, never changed)")->required();
    merge->add_option("--db", ma->db, "The store to merge into (created when missing)")->required();
    merge->add_flag("--json", ma->json, "Machine-readable output");
    merge->callback([ma] {
        auto db = openRunStoreForWriting(ma->db);
        const auto report = store::mergeRunStores(db, ma->sources);
        if (ma->json) {
            nlohmann::json sources = nlohmann::json::array();
            for (const auto& s : report.sources)
                sources.push_back({{"path", s.path},
                                   {"copied", s.copied},
                                   {"already_present", s.alreadyPresent},
                                   {"still_running", s.stillRunning}});
            printJson({{"db", db.path()},
                       {"copied", report.copied()},
                       {"already_present", report.alreadyPresent()},
                       {"still_running", report.stillRunning()},
                       {"serving_copied", report.servingCopied()},
                       {"sources", sources}});
        } else {
            std::cout << fmt::format("merged {} store{} into {}: {} run{} copied, {} already there",
                                     report.sources.size(), report.sources.size() == 1 ? "" : "s", db.path(),
                                     report.copied(), report.copied() == 1 ? "" : "s", report.alreadyPresent());
            if (report.servingCopied() > 0)
                std::cout << fmt::format(", {} serving run{} copied", report.servingCopied(),
                                         report.servingCopied() == 1 ? "" : "s");
            if (report.stillRunning() > 0)
                std::cout << fmt::format(", {} still being written (left out; merge again once they end)",
                                         report.stillRunning());
            std::cout << "\n";
        }
    });
}

} // namespace

ORRERY_CLI_COMMAND(60, registerRunsCommands, "runs");

} // namespace orrery::cli
