#include "io/simulate_json.h"

#include "io/run_json.h"
#include "metrics/apps.h"

#include <algorithm>

namespace orrery::io {

namespace {

// Lifecycle and SLO figures (docs/simulator.md, "Metrics"): ratios are null when no job has a deadline.
void addLifecycleJson(nlohmann::json& out, const sim::RunResult& run, const metrics::Summary& s)
{
    const auto ratio = [](int n, double r) { return n > 0 ? nlohmann::json(r) : nlohmann::json(nullptr); };
    out["jobs_dropped"] = s.jobsDropped;
    out["suspensions"] = s.suspensions;
    out["gpu_hours_used"] = s.gpuHoursUsed;
    out["gpu_hours_billed"] = s.gpuHoursBilled;
    out["slo_jobs"] = s.sloJobs;
    out["slo_attainment"] = ratio(s.sloJobs, s.sloAttainment());
    out["deadlines"] = s.deadlines;
    out["deadlines_met"] = s.deadlinesMet;
    out["deadline_met_ratio"] = ratio(s.deadlines, s.deadlineMetRatio());
    out["reward"] = s.reward;
    nlohmann::json byClass = nlohmann::json::array();
    for (const auto& c : metrics::sloAttainmentByClass(run))
        byClass.push_back({{"slo_class", c.sloClass},
                           {"jobs", c.jobs},
                           {"jobs_met", c.jobsMet},
                           {"slo_attainment", static_cast<double>(c.jobsMet) / c.jobs},
                           {"reward", c.reward}});
    if (!byClass.empty())
        out["slo_by_class"] = std::move(byClass);
}

// Everything but the two column sets, which are the bulk of the text.
nlohmann::json runHead(const sim::RunResult& run, const metrics::Summary& s)
{
    nlohmann::json out = {{"policy", run.policy},
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
                          {"decision_solver_s_total", s.decisionSolverSTotal},
                          {"events", run.events},
                          {"wall_s", s.wallS},
                          {"cancelled", run.cancelled}};
    addLifecycleJson(out, run, s);
    // Themis' per-app finish-time fairness (docs/simulator.md, "Apps"); a job without an app is its own app.
    const auto appRho = metrics::appFinishTimeFairness(run);
    out["apps_completed"] = appRho.size();
    out["avg_app_rho"] = appRho.empty() ? nlohmann::json(nullptr) : nlohmann::json(metrics::mean(appRho));
    out["max_app_rho"] =
        appRho.empty() ? nlohmann::json(nullptr) : nlohmann::json(*std::max_element(appRho.begin(), appRho.end()));
    // Held GPU-hours per type (allocation intervals, switch pauses and profiling included): they add up to
    // gpu_hours.
    nlohmann::json byType = nlohmann::json::object();
    for (const auto& u : metrics::usageByType(run))
        byType[u.type] = u.gpuHours;
    out["gpu_hours_by_type"] = std::move(byType);
    return out;
}

// The throughput over time built on the rate segments (docs/simulator.md, "Plans and progress-dependent rates"),
// as columns.
struct ThroughputColumns
{
    std::vector<double> t, samplesPerS, workPerS, jobsPerS;
};

ThroughputColumns throughputColumns(const sim::RunResult& run)
{
    ThroughputColumns c;
    const auto points = metrics::throughputOverTime(run);
    for (auto* column : {&c.t, &c.samplesPerS, &c.workPerS, &c.jobsPerS})
        column->reserve(points.size());
    for (const auto& p : points) {
        c.t.push_back(p.timeS);
        c.samplesPerS.push_back(p.samplesPerS);
        c.workPerS.push_back(p.workPerS);
        c.jobsPerS.push_back(p.jobsPerS);
    }
    return c;
}

} // namespace

nlohmann::json simulateRunJson(const sim::RunResult& run, const metrics::Summary& s)
{
    nlohmann::json out = runHead(run, s);
    // A run has about one rate segment per allocation: a 100,000-job run has a few hundred thousand.
    out["rate_segments"] = rateSegmentColumns(run.rateSegments);
    const ThroughputColumns c = throughputColumns(run);
    out["throughput_over_time"] = {
        {"time_s", c.t}, {"samples_per_s", c.samplesPerS}, {"work_per_s", c.workPerS}, {"jobs_per_s", c.jobsPerS}};
    return out;
}

void writeSimulateRun(JsonTextWriter& w, const sim::RunResult& run, const metrics::Summary& s,
                      const nlohmann::json& extra)
{
    nlohmann::json head = runHead(run, s);
    for (auto it = extra.cbegin(); it != extra.cend(); ++it)
        head[it.key()] = it.value();
    const auto segments = [&run](JsonTextWriter& out) {
        // The members in nlohmann's (ascending) key order.
        const auto column = [&](const char* key, auto field) {
            out.key(key);
            out.beginArray();
            for (const auto& seg : run.rateSegments)
                out.value(field(seg));
            out.endArray();
        };
        out.beginObject();
        column("end_s", [](const sim::RateSegment& g) { return g.endS; });
        column("job_index", [](const sim::RateSegment& g) { return g.job; });
        column("rate_per_s", [](const sim::RateSegment& g) { return g.rate; });
        column("samples_per_s", [](const sim::RateSegment& g) { return g.samplesPerS; });
        column("start_s", [](const sim::RateSegment& g) { return g.startS; });
        out.endObject();
    };
    const auto throughput = [&run](JsonTextWriter& out) {
        // Written from the points themselves, column by column, without copying them into columns first.
        const auto points = metrics::throughputOverTime(run);
        const auto column = [&](const char* key, double metrics::ThroughputPoint::*field) {
            out.key(key);
            out.beginArray();
            for (const auto& p : points)
                out.value(p.*field);
            out.endArray();
        };
        out.beginObject();
        column("jobs_per_s", &metrics::ThroughputPoint::jobsPerS);
        column("samples_per_s", &metrics::ThroughputPoint::samplesPerS);
        column("time_s", &metrics::ThroughputPoint::timeS);
        column("work_per_s", &metrics::ThroughputPoint::workPerS);
        out.endObject();
    };
    writeObject(w, head, {{"rate_segments", segments}, {"throughput_over_time", throughput}});
}

} // namespace orrery::io
