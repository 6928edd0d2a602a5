#include "cli.h"
#include "ctrl_c.h"
#include "run_db.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "io/run_info.h"
#include "io/scenario.h"
#include "io/simulate_json.h"
#include "metrics/apps.h"
#include "metrics/metrics.h"
#include "sched/registry.h"
#include "sched/run_policies.h"
#include "sim/prepare_scenario.h"
#include "store/run_recorder.h"
#include "store/run_store.h"

#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <stop_token>

#include <unistd.h>

namespace orrery::cli {

namespace {

struct SimulateArgs
{
    std::string file;
    std::vector<std::string> policies;
    std::uint64_t seed = 0;
    bool seedGiven = false;
    int threads = 1;
    bool json = false;
    std::string db; ///< run store; empty: runs are not stored
    double lockTimeoutS = kDefaultLockTimeoutS;
};

/**
 * Records `error` in every run not yet ended. Called while an exception is being handled, so it must
 * not throw: a failure to record (often the same cause, e.g. a lock still held) is reported on stderr,
 * and the original error stays the one the command reports.
 */
void failUnfinished(store::RunRecorder& recorder, const std::string& error) noexcept
{
    for (std::size_t i = 0; i < recorder.size(); ++i) {
        try {
            if (!recorder.finished(i))
                recorder.fail(i, error);
        } catch (const std::exception& e) {
            std::fprintf(stderr,
                         "orrery-cli: could not record the failure of run %lld in %s (%s); it stays 'running' "
                         "until the store is next opened for writing, which marks it failed ('interrupted')\n",
                         static_cast<long long>(recorder.runId(i)), recorder.path().c_str(), e.what());
        } catch (...) {
            std::fprintf(stderr, "orrery-cli: could not record the failure of run %lld in %s\n",
                         static_cast<long long>(recorder.runId(i)), recorder.path().c_str());
        }
    }
}

// GPU-hours per type, one row per policy: where each policy put its work.
void printGpuHoursByType(const std::vector<sim::RunResult>& runs)
{
    if (runs.empty() || runs.front().gpuTypes.size() < 2)
        return;
    std::vector<std::string> header{"policy"};
    for (const auto& t : runs.front().gpuTypes)
        header.push_back(t + "_gpu_h");
    Table table(header);
    for (const auto& r : runs) {
        std::vector<std::string> row{r.policy};
        for (const auto& u : metrics::usageByType(r))
            row.push_back(fmt::format("{:.1f}", u.gpuHours));
        table.add(row);
    }
    std::cout << "\n" << table.render();
}

// A second table, only for runs that dropped jobs or have deadlines, so other output stays as it was.
void printLifecycle(const std::vector<sim::RunResult>& runs)
{
    Table table(
        {"policy", "dropped", "slo_attain", "deadlines_met", "reward", "suspensions", "gpu_h_used", "gpu_h_billed"});
    bool any = false;
    for (const auto& r : runs) {
        const auto s = metrics::summarize(r, metrics::SummaryScope::Headline);
        if (s.jobsDropped == 0 && s.sloJobs == 0)
            continue;
        any = true;
        table.add({r.policy, std::to_string(s.jobsDropped),
                   s.sloJobs > 0 ? fmt::format("{:.1f}%", s.sloAttainment() * 100) : "-",
                   fmt::format("{}/{}", s.deadlinesMet, s.deadlines), fmt::format("{:g}", s.reward),
                   std::to_string(s.suspensions), fmt::format("{:.1f}", s.gpuHoursUsed),
                   fmt::format("{:.1f}", s.gpuHoursBilled)});
    }
    if (any)
        std::cout << "\n" << table.render();
}

void runSimulate(const SimulateArgs& args)
{
    const io::Scenario scenario = args.file == "default" ? io::defaultScenario() : io::loadScenario(args.file);
    std::vector<std::string> policies = args.policies.empty() ? scenario.policies : args.policies;
    if (policies.empty())
        throw Error(args.file, "policies", "no policy to run: give --policy or list some in the scenario");
    // Checked before anything runs (an unknown policy or parameter is bad input, not a failed run to store), and
    // canonical, so equal configurations are stored under equal labels.
    for (std::size_t i = 0; i < policies.size(); ++i)
        policies[i] =
            sched::resolvePolicy(policies[i], args.policies.empty() ? io::indexPath("policies", i) : "--policy").label;
    const std::uint64_t seed = args.seedGiven ? args.seed : scenario.options.seed;
    const sim::PreparedWorkload workload = [&] {
        try {
            return sim::prepareScenario(scenario);
        } catch (const Error& e) {
            throw e.inFile(args.file);
        }
    }();

    // Opened before anything runs: a foreign or damaged file is refused (exit 2) without simulating.
    std::optional<store::RunRecorder> recorder;
    if (!args.db.empty()) {
        std::vector<store::RunInfo> infos;
        for (const auto& p : policies)
            infos.push_back(io::runInfoOf(scenario, p, seed, {{"threads", args.threads}})); // plus the CLI's own
        recorder.emplace(openRunStoreForWriting(args.db, args.lockTimeoutS), infos);
    }

    std::stop_source stop;
    CtrlCGuard ctrlC;
    const bool bar = isatty(STDERR_FILENO) != 0;
    util::Progress progress;
    progress.stop = stop.get_token();
    int lastShown = -1;
    progress.report = [&](double f) {
        if (ctrlC.requested())
            stop.request_stop();
        const int pct = static_cast<int>(f * 100);
        if (!bar || pct == lastShown)
            return;
        lastShown = pct;
        const int width = 30;
        const int filled = pct * width / 100;
        std::fprintf(stderr, "\r[%s%s] %3d%%", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                     std::string(static_cast<std::size_t>(width - filled), ' ').c_str(), pct);
        std::fflush(stderr);
    };
    std::vector<sim::RunResult> runs;
    sched::IndexedPartialResultFn onPartial;
    if (recorder)
        onPartial = [&recorder](std::size_t i, const sim::RunResult& r) { recorder->partial(i, r); };
    try {
        runs = sched::runPolicies(workload, policies, seed, args.threads, progress, onPartial);
    } catch (const std::exception& e) {
        ctrlC.release();
        if (bar)
            std::fprintf(stderr, "\n");
        if (recorder)
            failUnfinished(*recorder, e.what());
        throw;
    }
    ctrlC.release();
    try {
        if (recorder)
            for (std::size_t i = 0; i < runs.size(); ++i)
                recorder->finish(i, runs[i]);
    } catch (const std::exception& e) {
        // E.g. a lock held too long: the cause goes into the runs not yet ended, not a generic message.
        failUnfinished(*recorder, e.what());
        throw;
    }
    if (bar)
        std::fprintf(stderr, "\r%*s\r", 40, "");

    bool cancelled = false;
    if (args.json) {
        // Streamed, byte for byte what dump(2) of {"runs": [...]} gives (io/simulate_json.h): the columns of a
        // run are most of the text, and building them as a document cost more than many simulations.
        io::JsonTextWriter w([](std::string_view text) { std::cout.write(text.data(), std::ssize(text)); });
        w.beginObject();
        w.key("runs");
        w.beginArray();
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const auto& r = runs[i];
            nlohmann::json extra = nlohmann::json::object();
            if (recorder)
                extra["run_id"] = recorder->runId(i);
            // Themis' placement score 1/S per allocation (docs/simulator.md, "Apps"): it needs the cluster's
            // locality, which the run result does not hold.
            const auto scores = metrics::placementScores(r, workload);
            extra["avg_placement_score"] =
                scores.empty() ? nlohmann::json(nullptr) : nlohmann::json(metrics::mean(scores));
            io::writeSimulateRun(w, r, metrics::summarize(r), extra);
            cancelled = cancelled || r.cancelled;
        }
        w.endArray();
        w.endObject();
        w.finish();
        std::cout << '\n';
    } else {
        std::cout << fmt::format("{}: {} jobs on {} GPUs ({}), seed {}\n\n", scenario.name, workload.jobCount(),
                                 workload.cluster().totalGpus(), workload.cluster().summary(), seed);
        Table table({"policy", "done", "avg_jct_h", "p50_h", "p95_h", "p99_h", "queue_h", "makespan_h", "util", "gpu_h",
                     "cost_usd", "decisions", "wall_s"});
        for (const auto& r : runs) {
            const auto s = metrics::summarize(r);
            cancelled = cancelled || r.cancelled;
            table.add({r.policy + (r.cancelled ? " (cancelled)" : ""), fmt::format("{}/{}", s.jobsCompleted, s.jobs),
                       fmt::format("{:.2f}", s.avgJctS / 3600), fmt::format("{:.2f}", s.p50JctS / 3600),
                       fmt::format("{:.2f}", s.p95JctS / 3600), fmt::format("{:.2f}", s.p99JctS / 3600),
                       fmt::format("{:.2f}", s.avgQueueS / 3600), fmt::format("{:.2f}", s.makespanS / 3600),
                       fmt::format("{:.1f}%", s.utilization * 100), fmt::format("{:.1f}", s.gpuHours),
                       fmt::format("{:.2f}", s.costUsd), std::to_string(s.decisions), fmt::format("{:.3f}", s.wallS)});
        }
        std::cout << table.render();
        printGpuHoursByType(runs);
        printLifecycle(runs);
        if (recorder) {
            std::vector<std::string> ids;
            for (std::size_t i = 0; i < runs.size(); ++i)
                ids.push_back(std::to_string(recorder->runId(i)));
            std::cout << fmt::format("\nstored as run{} {} in {}\n", ids.size() > 1 ? "s" : "", fmt::join(ids, ", "),
                                     recorder->path());
        }
    }
    if (cancelled)
        throw ExitRequest{Failure};
}

void registerSimulate(CLI::App& app)
{
    auto args = std::make_shared<SimulateArgs>();
    auto* cmd = app.add_subcommand("simulate", "Simulate a scenario under one or more scheduling policies");
    cmd->add_option("scenario", args->file, "Scenario JSON file ('default' for the embedded one)")->required();
    cmd->add_option("--policy", args->policies,
                    "Policy to run, with optional parameters: NAME[:KEY=VALUE]..., e.g. "
                    "tiresias:queue_thresholds_s=3600,36000:backfill_limit=0 (repeatable; default: the scenario's "
                    "policies; `orrery-cli policies` lists the parameters)");
    cmd->add_option("--seed", args->seed, "Random seed (default: the scenario's)")->each([args](const std::string&) {
        args->seedGiven = true;
    });
    cmd->add_option("--threads", args->threads, "Policies to simulate in parallel")->check(CLI::PositiveNumber);
    cmd->add_flag("--json", args->json, "Machine-readable output: {\"runs\": [...]}");
    addDbOption(cmd, args->db)->description("Store every run, as it progresses, in this run store (SQLite)");
    cmd->add_option("--lock-timeout", args->lockTimeoutS,
                    fmt::format("Seconds to wait for another process's lock on the run store before failing the "
                                "run (default {:g})",
                                kDefaultLockTimeoutS))
        ->check(CLI::PositiveNumber);
    cmd->callback([args] { runSimulate(*args); });
}

} // namespace

ORRERY_CLI_COMMAND(50, registerSimulate, "simulate");

} // namespace orrery::cli
