#include "store/run_comparison.h"

#include "metrics/metrics.h"
#include "store/run_store.h"

#include <optional>

namespace orrery::store {

namespace {

std::vector<std::optional<double>> metricsOf(const StoredRun& run)
{
    // A partial run's placeholders (jobs it never stored) would count as jobs that arrived at 0 and never ran.
    std::optional<sim::RunResult> stored;
    if (run.partial) {
        stored = run.result;
        stored->jobs.clear();
        for (std::size_t i = 0; i < run.result.jobs.size(); ++i)
            if (i < run.jobStored.size() && run.jobStored[i])
                stored->jobs.push_back(run.result.jobs[i]);
    }
    const metrics::Summary s = metrics::summarize(stored ? *stored : run.result);
    const bool any = s.jobsCompleted > 0;
    auto ifAny = [any](double v) { return any ? std::optional<double>(v) : std::nullopt; };
    return {static_cast<double>(s.jobs),
            static_cast<double>(s.jobsCompleted),
            ifAny(s.avgJctS),
            ifAny(s.p50JctS),
            ifAny(s.p95JctS),
            ifAny(s.p99JctS),
            s.avgQueueS,
            s.makespanS,
            s.utilization,
            s.gpuHours,
            s.costUsd,
            ifAny(s.avgFtfRho),
            ifAny(s.jainFtf),
            static_cast<double>(s.decisions),
            s.decisionWallSTotal,
            s.wallS};
}

} // namespace

RunComparison compareRuns(RunStore& store, const std::vector<std::int64_t>& ids)
{
    RunComparison c;
    // Same names as `orrery-cli simulate --json`.
    c.metrics = {"jobs",      "jobs_completed", "avg_jct_s",  "p50_jct_s",   "p95_jct_s",
                 "p99_jct_s", "avg_queue_s",    "makespan_s", "utilization", "gpu_hours",
                 "cost_usd",  "avg_ftf_rho",    "jain_ftf",   "decisions",   "decision_wall_s_total",
                 "sim_wall_s"};
    for (const auto id : ids) {
        StoredRun run = store.loadRun(id);
        c.values.push_back(metricsOf(run));
        c.runs.push_back(std::move(run.record));
    }
    return c;
}

} // namespace orrery::store
