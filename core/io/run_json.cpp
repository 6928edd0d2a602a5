#include "io/run_json.h"

#include "metrics/metrics.h"

#include <nlohmann/json.hpp>

namespace orrery::io {

namespace {

template <typename T> nlohmann::json orNull(const std::optional<T>& v)
{
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json timeOrNull(double s)
{
    return s >= 0 ? nlohmann::json(s) : nlohmann::json(nullptr);
}

} // namespace

nlohmann::json runRecordToJson(const store::RunRecord& r)
{
    return {{"id", r.id},
            {"policy", r.policy},
            {"status", store::toString(r.status)},
            {"scenario", r.scenarioName},
            {"scenario_id", r.scenarioId},
            {"scenario_hash", r.scenarioHash},
            {"started", r.startedAt},
            {"finished", r.finishedAt.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.finishedAt)},
            {"error", r.error.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.error)},
            {"seed", r.seed},
            {"orrery_version", r.orreryVersion},
            {"options", nlohmann::json::parse(r.optionsJson, nullptr, false)},
            {"total_gpus", r.totalGpus},
            {"gpu_types", r.gpuTypes},
            {"jobs", orNull(r.jobCount)},
            {"finished_jobs", orNull(r.finishedJobCount)},
            {"avg_jct_s", orNull(r.avgJctS)},
            {"makespan_s", orNull(r.makespanS)},
            {"cost_usd", orNull(r.costUsd)},
            {"sim_wall_s", orNull(r.simWallS)}};
}

namespace {

// A job's lifecycle and SLO fields (docs/simulator.md): a dropped job has dropped_s and no end or JCT.
void addLifecycle(nlohmann::json& out, const sim::JobRecord& j)
{
    out["dropped_s"] = j.dropped() ? nlohmann::json(j.droppedS) : nlohmann::json(nullptr);
    if (j.dropped())
        out["drop_reason"] = j.dropReason;
    out["suspensions"] = j.suspensions;
    out["paused_gpu_seconds"] = j.pausedGpuSeconds;
    if (!j.sloClass.empty())
        out["slo_class"] = j.sloClass;
    if (!j.deadlines.empty()) {
        nlohmann::json list = nlohmann::json::array();
        for (const auto& d : j.deadlines)
            list.push_back({{"at_s", d.atS}, {"reward", d.reward}, {"met", metrics::deadlineMet(j, d)}});
        out["deadlines"] = std::move(list);
    }
    if (!j.extras.empty()) {
        nlohmann::json extras = nlohmann::json::object();
        for (const auto& [key, text] : j.extras)
            extras[key] = nlohmann::json::parse(text, nullptr, false);
        out["extras"] = std::move(extras);
    }
}

// Job events, named series and rate segments, present only when the run has some.
void addRecords(nlohmann::json& out, const sim::RunResult& r)
{
    if (!r.jobEvents.empty()) {
        nlohmann::json events = nlohmann::json::array();
        for (const auto& e : r.jobEvents)
            events.push_back(
                {{"time_s", e.timeS}, {"job_index", e.job}, {"kind", sim::toString(e.kind)}, {"detail", e.detail}});
        out["job_events"] = std::move(events);
    }
    if (!r.series.empty()) {
        nlohmann::json series = nlohmann::json::object();
        for (const auto& s : r.series)
            series[s.name] = {{"time_s", s.timeS}, {"value", s.value}};
        out["series"] = std::move(series);
    }
    if (!r.rateSegments.empty())
        out["rate_segments"] = rateSegmentColumns(r.rateSegments);
}

} // namespace

nlohmann::json rateSegmentColumns(const std::vector<sim::RateSegment>& segments)
{
    std::vector<int> job;
    std::vector<double> start, end, rate, samples;
    for (const auto& seg : segments) {
        job.push_back(seg.job);
        start.push_back(seg.startS);
        end.push_back(seg.endS);
        rate.push_back(seg.rate);
        samples.push_back(seg.samplesPerS);
    }
    return {{"job_index", job}, {"start_s", start}, {"end_s", end}, {"rate_per_s", rate}, {"samples_per_s", samples}};
}

nlohmann::json storedRunToJson(const store::StoredRun& run)
{
    const auto& r = run.result;
    nlohmann::json gpus = nlohmann::json::array();
    for (int g = 0; g < run.layout.gpuCount(); ++g) {
        const auto node = static_cast<std::size_t>(run.layout.gpuNode[static_cast<std::size_t>(g)]);
        gpus.push_back({{"gpu", g},
                        {"node", run.layout.nodeNames[node]},
                        {"node_index", node},
                        {"gpu_type", run.layout.gpuTypes[static_cast<std::size_t>(g)]}});
    }
    nlohmann::json jobs = nlohmann::json::array();
    for (std::size_t i = 0; i < r.jobs.size(); ++i) {
        // Jobs an interrupted run never stored are left out, not shown as empty placeholders.
        if (i < run.jobStored.size() && !run.jobStored[i])
            continue;
        const auto& j = r.jobs[i];
        jobs.push_back({{"job_index", i},
                        {"job_id", j.id},
                        {"model", j.model},
                        {"user", j.user},
                        {"arrival_s", j.arrivalS},
                        {"start_s", timeOrNull(j.startS)},
                        {"end_s", timeOrNull(j.endS)},
                        {"queue_s", j.startS >= 0 ? nlohmann::json(j.queueS()) : nlohmann::json(nullptr)},
                        {"jct_s", j.finished() ? nlohmann::json(j.jctS()) : nlohmann::json(nullptr)},
                        {"gpus", j.gpus},
                        {"gpu_type", j.gpuType},
                        {"restarts", j.restarts},
                        {"gpu_seconds", j.gpuSeconds},
                        {"cost_usd", j.costUsd},
                        {"ideal_s", j.idealS}});
        if (!j.app.empty())
            jobs.back()["app"] = j.app;
        addLifecycle(jobs.back(), j);
    }
    nlohmann::json intervals = nlohmann::json::array();
    for (const auto& iv : r.intervals)
        intervals.push_back({{"job_index", iv.job}, {"gpu", iv.gpu}, {"start_s", iv.startS}, {"end_s", iv.endS}});
    nlohmann::json utilization = nlohmann::json::array();
    for (const auto& u : r.utilization)
        utilization.push_back({{"time_s", u.timeS}, {"busy_gpus", u.busyGpus}, {"busy_by_type", u.busyByType}});
    nlohmann::json decisions = nlohmann::json::array();
    for (const auto& d : r.decisions)
        decisions.push_back(
            {{"sim_time_s", d.simTimeS}, {"wall_s", d.wallS}, {"queued", d.queued}, {"running", d.running}});
    nlohmann::json out = {{"run", runRecordToJson(run.record)},
                          {"partial", run.partial},
                          {"gpus", gpus},
                          {"jobs", jobs},
                          {"intervals", intervals},
                          {"utilization", utilization},
                          {"decisions", decisions}};
    addRecords(out, r);
    return out;
}

} // namespace orrery::io
