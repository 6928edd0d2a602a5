#include "store/run_comparison.h"

#include "store/run_store.h"

#include <algorithm>
#include <cmath>

namespace orrery::store {

namespace {

std::optional<double> percentile(std::vector<double> v, double p)
{
    if (v.empty())
        return std::nullopt;
    std::sort(v.begin(), v.end());
    // Nearest rank: the smallest value with at least p% of the values at or below it.
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    return v[std::max<std::size_t>(rank, 1) - 1];
}

std::optional<double> mean(const std::vector<double>& v)
{
    if (v.empty())
        return std::nullopt;
    double s = 0;
    for (double x : v)
        s += x;
    return s / static_cast<double>(v.size());
}

std::vector<std::optional<double>> metricsOf(const StoredRun& run)
{
    const auto& r = run.result;
    std::vector<double> jct, queue;
    double gpuSeconds = 0, cost = 0;
    for (const auto& j : r.jobs) {
        if (j.finished())
            jct.push_back(j.jctS());
        if (j.startS >= 0)
            queue.push_back(j.queueS());
        gpuSeconds += j.gpuSeconds;
        cost += j.costUsd;
    }
    std::optional<double> util;
    if (r.totalGpus > 0 && r.makespanS > 0) {
        double busy = 0;
        for (const auto& iv : r.intervals)
            busy += iv.endS - iv.startS;
        util = busy / (r.totalGpus * r.makespanS);
    }
    return {static_cast<double>(r.jobs.size()),
            static_cast<double>(jct.size()),
            mean(jct),
            percentile(jct, 50),
            percentile(jct, 95),
            mean(queue),
            r.makespanS,
            util,
            gpuSeconds / 3600.0,
            cost,
            static_cast<double>(r.decisions.size()),
            r.wallS};
}

} // namespace

RunComparison compareRuns(RunStore& store, const std::vector<std::int64_t>& ids)
{
    RunComparison c;
    c.metrics = {"jobs",        "finished_jobs", "avg_jct_s", "p50_jct_s", "p95_jct_s",  "avg_queue_s",
                 "makespan_s",  "utilization",   "gpu_hours", "cost_usd",  "decisions", "sim_wall_s"};
    for (const auto id : ids) {
        StoredRun run = store.loadRun(id);
        c.values.push_back(metricsOf(run));
        c.runs.push_back(std::move(run.record));
    }
    return c;
}

} // namespace orrery::store
