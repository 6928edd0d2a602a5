#include "cli.h"
#include "ctrl_c.h"
#include "run_db.h"
#include "sweep_slurm.h"

#include "io/csv_writer.h"
#include "io/error.h"
#include "store/sweep_records.h"
#include "sweep/sweep_estimate.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_set>

#include <malloc.h>
#include <unistd.h>

namespace orrery::cli {

namespace {

std::string clockText(double s)
{
    if (!(s >= 0) || s > 1e8)
        return "?";
    const auto t = static_cast<long long>(s + 0.5);
    return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60)
                     : fmt::format("{}:{:02}", t / 60, t % 60);
}

sweep::SweepPlan loadPlan(const std::string& file)
{
    return sweep::resolveSweep(sweep::loadSweepSpec(file));
}

nlohmann::json estimateJson(const sweep::CpuEstimate& e, std::size_t sampled)
{
    return {{"cpu_s", e.cpuS}, {"points", e.points}, {"sampled", sampled}, {"method", e.method}};
}

std::string axisSummary(const sweep::Axis& a)
{
    if (a.values.empty())
        return fmt::format("{} ({}): values given per point", a.name, sweep::toString(a.kind));
    std::vector<std::string> vs;
    for (const auto& v : a.values)
        vs.push_back(v.is_string() ? v.get<std::string>() : v.dump());
    std::string text = fmt::format("{}", fmt::join(vs, ", "));
    if (text.size() > 100)
        text = text.substr(0, 97) + "...";
    return fmt::format("{} ({}, {} value{}): {}", a.name, sweep::toString(a.kind), a.values.size(),
                       a.values.size() == 1 ? "" : "s", text);
}

struct ShowArgs
{
    std::string spec;
    std::string db;
    bool estimate = true;
    bool json = false;
};

void runShow(const ShowArgs& args)
{
    const auto plan = loadPlan(args.spec);
    std::unordered_set<std::string> done;
    if (!args.db.empty())
        done = store::completedPointKeys(openRunStoreForReading(args.db).connection(), plan.spec.name);
    const auto toRun = sweep::pointsToRun(plan, {}, done);
    sweep::WorkloadCache cache;
    std::optional<sweep::CpuEstimate> est;
    if (args.estimate)
        est = sweep::estimateCpu(plan, toRun, cache);
    if (args.json) {
        nlohmann::json axes = nlohmann::json::array();
        for (const auto& a : plan.axes)
            axes.push_back({{"name", a.name}, {"kind", sweep::toString(a.kind)}, {"values", a.values}});
        nlohmann::json points = nlohmann::json::array();
        for (const auto& p : plan.points)
            points.push_back({{"index", p.index},
                              {"key", p.key},
                              {"policy", p.policy},
                              {"seed", p.seed},
                              {"axes", p.axes},
                              {"stored", done.count(p.key) > 0}});
        nlohmann::json out = {
            {"name", plan.spec.name}, {"scenario", plan.spec.scenario},  {"axes", axes},
            {"points", points},       {"scenarios", plan.scenarioCount}, {"workloads", plan.workloadCount},
            {"to_run", toRun.size()}};
        if (est)
            out["estimate"] = estimateJson(*est, est->samples.size());
        printJson(out);
        return;
    }
    std::cout << fmt::format("sweep {}: {} points over {} scenario{} ({} prepared workload{}), base scenario {}\n",
                             plan.spec.name, plan.points.size(), plan.scenarioCount, plan.scenarioCount == 1 ? "" : "s",
                             plan.workloadCount, plan.workloadCount == 1 ? "" : "s", plan.spec.scenario);
    for (const auto& a : plan.axes)
        std::cout << "  " << axisSummary(a) << "\n";
    if (!args.db.empty())
        std::cout << fmt::format("{} stored completed in {}, {} to run\n", plan.points.size() - toRun.size(), args.db,
                                 toRun.size());
    if (est)
        std::cout << fmt::format("estimated CPU time: {} ({:.1f} s) for {} point{}; from {}\n", clockText(est->cpuS),
                                 est->cpuS, toRun.size(), toRun.size() == 1 ? "" : "s", est->method);
}

struct RunArgs
{
    std::string spec;
    std::string db;
    int jobs = 0;
    std::string shard;
    bool estimate = true;
    bool json = false;
    double lockTimeoutS = kDefaultLockTimeoutS;
};

/**
 * glibc gives the top of its heap back to the kernel whenever 128 KiB or more of it is free, and a sweep's turns at the
 * store free that much and take it back at the next turn: page faults on fresh heap pages were a third to two fifths
 * of the store's turn, its serial part (docs/performance.md, "Sweeps"). The process keeps up to 64 MiB of free heap
 * instead; setting these turns glibc's adaptive mmap threshold off, so it is set to that adaptation's own ceiling.
 */
void keepFreedHeap()
{
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_TOP_PAD, 16 << 20);
}

void runRun(const RunArgs& args)
{
    keepFreedHeap();
    const auto t0 = std::chrono::steady_clock::now();
    const auto plan = loadPlan(args.spec);
    const double resolveS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const sweep::Shard shard = args.shard.empty() ? sweep::Shard{} : sweep::parseShard(args.shard);
    const int jobs = args.jobs > 0 ? args.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    // Opened before anything runs: a foreign or damaged file is refused (exit 2) without simulating.
    auto db = openRunStoreForWriting(args.db, args.lockTimeoutS);
    const auto done = store::completedPointKeys(db.connection(), plan.spec.name);
    const auto toRun = sweep::pointsToRun(plan, shard, done);
    const std::size_t inShard = shard.end(plan.points.size()) - shard.begin(plan.points.size());

    std::stop_source stop;
    CtrlCGuard ctrlC;
    // A signal handler may only set a flag; this thread turns it into a stop request the workers see. It looks every
    // 50 ms, and its own stop request wakes it at once: a sleep here held the end of every sweep up to 50 ms.
    std::jthread watcher([&stop, &ctrlC](std::stop_token self) {
        std::mutex mutex;
        std::condition_variable_any wake;
        std::unique_lock lock(mutex);
        while (!self.stop_requested())
            if (wake.wait_for(lock, self, std::chrono::milliseconds(50), [&ctrlC] { return ctrlC.requested(); })) {
                stop.request_stop();
                return;
            }
    });

    const bool bar = isatty(STDERR_FILENO) != 0 && !args.json;
    if (!args.json)
        std::cerr << fmt::format(
            "sweep {}: {} points{}, {} already stored, {} to run on {} thread{}\n", plan.spec.name, plan.points.size(),
            shard.count > 1 ? fmt::format(" ({} in shard {}/{})", inShard, shard.index, shard.count) : "",
            inShard - toRun.size(), toRun.size(), jobs, jobs == 1 ? "" : "s");
    sweep::WorkloadCache cache;
    std::optional<sweep::CpuEstimate> est;
    if (args.estimate && !toRun.empty()) {
        est = sweep::estimateCpu(plan, toRun, cache, 2.0, 8, stop.get_token());
        if (!args.json)
            std::cerr << fmt::format("estimated CPU time: {} ({:.1f} s; about {} wall on {} thread{}), from {}\n",
                                     clockText(est->cpuS), est->cpuS, clockText(est->cpuS / jobs), jobs,
                                     jobs == 1 ? "" : "s", est->method);
    }
    sweep::SweepRunOptions options;
    options.jobs = jobs;
    options.shard = shard;
    options.stop = stop.get_token();
    options.onProgress = [&](const sweep::SweepProgress& p) {
        if (!bar)
            return;
        const double eta =
            p.done > 0 ? p.elapsedS / static_cast<double>(p.done) * static_cast<double>(p.total - p.done) : -1;
        const int width = 30;
        const int filled = p.total ? static_cast<int>(p.done * width / p.total) : width;
        std::fprintf(stderr, "\r[%s%s] %zu/%zu points%s, elapsed %s, ETA %s   ",
                     std::string(static_cast<std::size_t>(filled), '#').c_str(),
                     std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), p.done, p.total,
                     p.failed ? fmt::format(", {} failed", p.failed).c_str() : "", clockText(p.elapsedS).c_str(),
                     clockText(eta).c_str());
        std::fflush(stderr);
    };
    const std::size_t sampled = est ? est->samples.size() : 0;
    sweep::SweepRunSummary summary;
    try {
        summary = sweep::runSweep(plan, db, options, cache,
                                  est ? std::move(est->samples) : std::vector<sweep::SampledPoint>{});
    } catch (...) {
        ctrlC.release();
        throw;
    }
    watcher.request_stop();
    ctrlC.release();
    if (bar)
        std::fprintf(stderr, "\n");
    const std::size_t points = summary.ran + summary.failed;
    const double overheadMs =
        summary.ran ? (summary.storeS + summary.encodeS + summary.otherS) / static_cast<double>(summary.ran) * 1e3 +
                          resolveS / static_cast<double>(plan.points.size()) * 1e3
                    : 0;
    if (args.json) {
        nlohmann::json failures = nlohmann::json::array();
        for (const auto& f : summary.failures)
            failures.push_back({{"index", f.index}, {"key", f.key}, {"error", f.error}, {"run_id", f.runId}});
        nlohmann::json out = {{"sweep", plan.spec.name},
                              {"db", db.path()},
                              {"points", plan.points.size()},
                              {"in_shard", summary.inShard},
                              {"already_stored", summary.alreadyStored},
                              {"ran", summary.ran},
                              {"failed", summary.failed},
                              {"not_run", summary.notRun},
                              {"stopped", summary.stopped},
                              {"jobs", jobs},
                              {"wall_s", summary.wallS},
                              {"resolve_s", resolveS},
                              {"simulate_s", summary.simulateS},
                              {"prepare_s", summary.prepareS},
                              {"encode_s", summary.encodeS},
                              {"store_s", summary.storeS},
                              {"store_batches", summary.storeBatches},
                              {"other_s", summary.otherS},
                              {"overhead_ms_per_point", overheadMs},
                              {"failures", failures}};
        if (est)
            out["estimate"] = estimateJson(*est, sampled);
        printJson(out);
    } else {
        std::cout << fmt::format(
            "{} point{} run in {:.2f} s ({} failed){}; {} of {} points of the shard stored in {}\n", points,
            points == 1 ? "" : "s", summary.wallS, summary.failed,
            summary.stopped ? fmt::format(", stopped: {} left for the next run", summary.notRun) : "",
            summary.alreadyStored + summary.ran, summary.inShard, db.path());
        for (const auto& f : summary.failures)
            std::cout << fmt::format("  point {} (key {}) failed: {}\n", f.index, f.key, f.error);
    }
    if (summary.stopped || summary.failed > 0)
        throw ExitRequest{Failure};
}

struct ResultsArgs
{
    std::string db;
    std::string sweep;
    std::string format = "table";
    std::string output;
};

std::string axisText(const nlohmann::json& v)
{
    return v.is_null() ? "" : v.is_string() ? v.get<std::string>() : v.dump();
}

void runResults(const ResultsArgs& args)
{
    auto db = openRunStoreForReading(args.db);
    auto& c = db.connection();
    std::string name = args.sweep;
    if (name.empty()) {
        const auto names = store::sweepNames(c);
        if (names.empty())
            throw Error(db.path(), "sweep", "the store holds no sweep");
        if (names.size() > 1)
            throw Error(
                db.path(), "sweep",
                fmt::format("the store holds several sweeps ({}): name one with --sweep", fmt::join(names, ", ")));
        name = names.front();
    }
    const auto rows = store::sweepPoints(c, name);
    if (rows.empty())
        throw Error(db.path(), "sweep", fmt::format("no point of a sweep \"{}\" is stored", name));
    std::vector<std::string> axes = store::sweepAxes(c, name);
    std::vector<nlohmann::json> axisValues;
    for (const auto& r : rows) {
        axisValues.push_back(nlohmann::json::parse(r.axesJson));
        for (const auto& [k, v] : axisValues.back().items())
            if (std::find(axes.begin(), axes.end(), k) == axes.end())
                axes.push_back(k);
    }
    const auto opt = [](const auto& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); };
    std::ofstream file;
    std::ostream* out = &std::cout;
    if (!args.output.empty() && args.output != "-") {
        file.open(args.output, std::ios::binary | std::ios::trunc);
        if (!file)
            throw Error(args.output, "", "cannot write file");
        out = &file;
    }
    if (args.format == "json") {
        nlohmann::json points = nlohmann::json::array();
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& r = rows[i];
            points.push_back({{"run_id", r.runId},
                              {"point_key", r.pointKey},
                              {"axes", axisValues[i]},
                              {"policy", r.policy},
                              {"seed", r.seed},
                              {"status", r.status},
                              {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)},
                              {"attempts", r.attempts},
                              {"jobs", opt(r.jobCount)},
                              {"finished_jobs", opt(r.finishedJobCount)},
                              {"avg_jct_s", opt(r.avgJctS)},
                              {"makespan_s", opt(r.makespanS)},
                              {"cost_usd", opt(r.costUsd)},
                              {"sim_wall_s", opt(r.simWallS)}});
        }
        *out << nlohmann::json({{"sweep", name}, {"axes", axes}, {"points", points}}).dump(2) << "\n";
    } else if (args.format == "csv") {
        io::CsvWriter w(*out);
        w.field("run_id").field("point_key");
        for (const auto& a : axes)
            w.field(a);
        for (const char* h : {"status", "attempts", "jobs", "finished_jobs", "avg_jct_s", "makespan_s", "cost_usd",
                              "sim_wall_s", "error"})
            w.field(h);
        w.endRow();
        const auto num = [&](const auto& v) {
            if (v)
                w.field(*v);
            else
                w.empty();
        };
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& r = rows[i];
            w.field(static_cast<long long>(r.runId)).field(r.pointKey);
            for (const auto& a : axes)
                w.field(axisValues[i].contains(a) ? axisText(axisValues[i][a]) : std::string());
            w.field(r.status).field(r.attempts);
            num(r.jobCount);
            num(r.finishedJobCount);
            num(r.avgJctS);
            num(r.makespanS);
            num(r.costUsd);
            num(r.simWallS);
            w.field(r.error);
            w.endRow();
        }
    } else {
        std::vector<std::string> header{"run"};
        header.insert(header.end(), axes.begin(), axes.end());
        for (const char* h : {"status", "done", "avg_jct_h", "makespan_h", "cost_usd"})
            header.emplace_back(h);
        Table t(header);
        const auto hours = [](const std::optional<double>& v) { return v ? fmt::format("{:.2f}", *v / 3600) : "-"; };
        for (std::size_t i = 0; i < rows.size(); ++i) {
            const auto& r = rows[i];
            std::vector<std::string> row{std::to_string(r.runId)};
            for (const auto& a : axes)
                row.push_back(axisValues[i].contains(a) ? axisText(axisValues[i][a]) : "-");
            row.push_back(r.status);
            row.push_back(r.jobCount ? fmt::format("{}/{}", r.finishedJobCount.value_or(0), *r.jobCount) : "-");
            row.push_back(hours(r.avgJctS));
            row.push_back(hours(r.makespanS));
            row.push_back(r.costUsd ? fmt::format("{:.2f}", *r.costUsd) : "-");
            t.add(row);
        }
        *out << fmt::format("sweep {}: {} point{}\n", name, rows.size(), rows.size() == 1 ? "" : "s") << t.render();
    }
    out->flush();
    if (file.is_open()) {
        file.close();
        if (!file)
            throw std::runtime_error(args.output + ": write failed");
    }
}

void registerSweep(CLI::App& app)
{
    auto* sweep = app.add_subcommand(
        "sweep", "What-if sweeps: a grid of scenarios x policies x seeds from one spec, run locally or on Slurm");
    sweep->require_subcommand(1);

    auto sa = std::make_shared<ShowArgs>();
    auto* show =
        sweep->add_subcommand("show", "Resolve a sweep spec: its axes, points and an estimate of the CPU time");
    show->add_option("spec", sa->spec, "Sweep spec (JSON, docs/sweeps.md)")->required();
    show->add_option("--db", sa->db, "Also say how many points this run store holds already");
    show->add_flag("!--no-estimate", sa->estimate, "Skip the estimate (which simulates a few points to measure them)");
    show->add_flag("--json", sa->json, "Machine-readable output, with every point and its key");
    show->callback([sa] { runShow(*sa); });

    auto ra = std::make_shared<RunArgs>();
    auto* run = sweep->add_subcommand(
        "run", "Run a sweep's points into a run store; run again to resume (stored points are not run again)");
    run->add_option("spec", ra->spec, "Sweep spec (JSON, docs/sweeps.md)")->required();
    run->add_option("--db", ra->db, "Run store (SQLite) the points are stored in")->required();
    run->add_option("--jobs", ra->jobs,
                    "Threads that simulate points and take turns storing them (default: the number of cores)")
        ->check(CLI::PositiveNumber);
    run->add_option("--shard", ra->shard, "Run only shard I of N (I from 0): a contiguous block of the points");
    run->add_flag("!--no-estimate", ra->estimate, "Start without estimating the CPU time first");
    run->add_flag("--json", ra->json, "Machine-readable summary (no progress bar)");
    run->add_option("--lock-timeout", ra->lockTimeoutS,
                    fmt::format("Seconds to wait for another process's lock on the run store (default {:g})",
                                kDefaultLockTimeoutS))
        ->check(CLI::PositiveNumber);
    run->callback([ra] { runRun(*ra); });

    auto rs = std::make_shared<ResultsArgs>();
    auto* results =
        sweep->add_subcommand("results", "A sweep's points as stored: axis values and metrics, one row each");
    addDbOption(results, rs->db);
    results->add_option("--sweep", rs->sweep, "Which sweep (default: the store's only one)");
    results->add_option("--format", rs->format, "table, csv or json")->check(CLI::IsMember({"table", "csv", "json"}));
    results->add_option("-o,--output", rs->output, "Write to this file instead of stdout");
    results->callback([rs] { runResults(*rs); });

    registerSweepSlurmCommands(sweep);
}

} // namespace

ORRERY_CLI_COMMAND(55, registerSweep, "sweep");

} // namespace orrery::cli
