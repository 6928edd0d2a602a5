#include "cli.h"

#include "io/error.h"
#include "io/scenario.h"
#include "metrics/metrics.h"
#include "sim/run_policies.h"

#include <fmt/format.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <memory>
#include <stop_token>

#include <unistd.h>

namespace orrery::cli {

namespace {

std::atomic<bool> g_interrupted{false};

extern "C" void onInterrupt(int)
{
    g_interrupted = true;
}

struct SimulateArgs
{
    std::string file;
    std::vector<std::string> policies;
    std::uint64_t seed = 0;
    bool seedGiven = false;
    int threads = 1;
    bool json = false;
};

nlohmann::json runJson(const sim::RunResult& run, const metrics::Summary& s)
{
    return {{"policy", run.policy},
            {"seed", run.seed},
            {"jobs", s.jobs},
            {"jobs_completed", s.jobsCompleted},
            {"avg_jct_s", s.avgJctS},
            {"p50_jct_s", s.p50JctS},
            {"p95_jct_s", s.p95JctS},
            {"p99_jct_s", s.p99JctS},
            {"avg_queue_s", s.avgQueueS},
            {"avg_job_samples_per_s", s.avgJobSamplesPerS},
            {"avg_job_samples_per_jct_s", s.avgJobSamplesPerJctS},
            {"makespan_s", s.makespanS},
            {"utilization", s.utilization},
            {"gpu_hours", s.gpuHours},
            {"cost_usd", s.costUsd},
            {"avg_ftf_rho", s.avgFtfRho},
            {"jain_ftf", s.jainFtf},
            {"decisions", s.decisions},
            {"decision_wall_s_total", s.decisionWallSTotal},
            {"events", run.events},
            {"wall_s", s.wallS},
            {"cancelled", run.cancelled}};
}

void runSimulate(const SimulateArgs& args)
{
    const io::Scenario scenario = args.file == "default" ? io::defaultScenario() : io::loadScenario(args.file);
    std::vector<std::string> policies = args.policies.empty() ? scenario.policies : args.policies;
    if (policies.empty())
        throw Error(args.file, "policies", "no policy to run: give --policy or list some in the scenario");
    const std::uint64_t seed = args.seedGiven ? args.seed : scenario.options.seed;
    const sim::PreparedWorkload workload = [&] {
        try {
            return sim::prepareScenario(scenario);
        } catch (const Error& e) {
            throw e.inFile(args.file);
        }
    }();

    std::stop_source stop;
    g_interrupted = false;
    auto previous = std::signal(SIGINT, onInterrupt);
    const bool bar = isatty(STDERR_FILENO) != 0;
    util::Progress progress;
    progress.stop = stop.get_token();
    int lastShown = -1;
    progress.report = [&](double f) {
        if (g_interrupted)
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
    try {
        runs = sim::runPolicies(workload, policies, seed, args.threads, progress);
    } catch (...) {
        std::signal(SIGINT, previous);
        if (bar)
            std::fprintf(stderr, "\n");
        throw;
    }
    std::signal(SIGINT, previous);
    if (bar)
        std::fprintf(stderr, "\r%*s\r", 40, "");

    bool cancelled = false;
    if (args.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto& r : runs) {
            out.push_back(runJson(r, metrics::summarize(r)));
            cancelled = cancelled || r.cancelled;
        }
        printJson({{"runs", out}});
    } else {
        std::cout << fmt::format("{}: {} jobs on {} GPUs ({}), seed {}\n\n", scenario.name, workload.jobCount(),
                                 workload.cluster().totalGpus(), workload.cluster().summary(), seed);
        Table table({"policy", "done", "avg_jct_h", "p50_h", "p95_h", "p99_h", "queue_h", "makespan_h", "util",
                     "gpu_h", "cost_usd", "decisions", "wall_s"});
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
    }
    if (cancelled)
        throw ExitRequest{Failure};
}

void registerSimulate(CLI::App& app)
{
    auto args = std::make_shared<SimulateArgs>();
    auto* cmd = app.add_subcommand("simulate", "Simulate a scenario under one or more scheduling policies");
    cmd->add_option("scenario", args->file, "Scenario JSON file ('default' for the embedded one)")->required();
    cmd->add_option("--policy", args->policies, "Policy to run (repeatable; default: the scenario's policies)");
    cmd->add_option("--seed", args->seed, "Random seed (default: the scenario's)")
        ->each([args](const std::string&) { args->seedGiven = true; });
    cmd->add_option("--threads", args->threads, "Policies to simulate in parallel")->check(CLI::PositiveNumber);
    cmd->add_flag("--json", args->json, "Machine-readable output: {\"runs\": [...]}");
    cmd->callback([args] { runSimulate(*args); });
}

} // namespace

ORRERY_CLI_COMMAND(50, registerSimulate);

} // namespace orrery::cli
