#include "io/run_csv.h"

#include "io/csv_writer.h"

namespace orrery::io {

void writeJobsCsv(std::ostream& out, const sim::RunResult& run, const std::vector<char>* stored)
{
    CsvWriter csv(out);
    for (const char* h :
         {"job_index", "job_id", "model", "user", "arrival_s", "start_s", "end_s", "queue_s", "jct_s", "gpus",
          "gpu_type", "restarts", "gpu_seconds", "cost_usd", "ideal_s", "dropped_s", "drop_reason", "suspensions"})
        csv.field(h);
    csv.endRow();
    for (std::size_t i = 0; i < run.jobs.size(); ++i) {
        if (stored && (i >= stored->size() || !(*stored)[i]))
            continue;
        const auto& j = run.jobs[i];
        const bool started = j.startS >= 0;
        csv.field(static_cast<long long>(i)).field(j.id).field(j.model).field(j.user).field(j.arrivalS);
        started ? csv.field(j.startS) : csv.empty();
        j.finished() ? csv.field(j.endS) : csv.empty();
        started ? csv.field(j.queueS()) : csv.empty();
        j.finished() ? csv.field(j.jctS()) : csv.empty();
        csv.field(j.gpus).field(j.gpuType).field(j.restarts).field(j.gpuSeconds).field(j.costUsd).field(j.idealS);
        // A dropped job has no end and no JCT: it never finished.
        j.dropped() ? csv.field(j.droppedS) : csv.empty();
        csv.field(j.dropReason).field(j.suspensions);
        csv.endRow();
    }
}

void writeIntervalsCsv(std::ostream& out, const sim::RunResult& run, const hardware::GpuLayout& layout)
{
    CsvWriter csv(out);
    for (const char* h : {"job_index", "job_id", "model", "gpu", "node", "gpu_type", "start_s", "end_s", "duration_s"})
        csv.field(h);
    csv.endRow();
    for (const auto& iv : run.intervals) {
        const auto job = static_cast<std::size_t>(iv.job);
        const bool knownJob = iv.job >= 0 && job < run.jobs.size();
        const bool knownGpu = iv.gpu >= 0 && iv.gpu < layout.gpuCount();
        const auto gpu = static_cast<std::size_t>(iv.gpu);
        csv.field(iv.job)
            .field(knownJob ? run.jobs[job].id : std::string())
            .field(knownJob ? run.jobs[job].model : std::string())
            .field(iv.gpu)
            .field(knownGpu ? layout.nodeNames[static_cast<std::size_t>(layout.gpuNode[gpu])] : std::string())
            .field(knownGpu ? layout.gpuTypes[gpu] : std::string())
            .field(iv.startS)
            .field(iv.endS)
            .field(iv.endS - iv.startS);
        csv.endRow();
    }
}

void writeUtilizationCsv(std::ostream& out, const sim::RunResult& run)
{
    CsvWriter csv(out);
    csv.field("time_s").field("busy_gpus").field("total_gpus").field("busy_frac");
    for (const auto& t : run.gpuTypes)
        csv.field("busy_gpus_" + t);
    csv.endRow();
    for (const auto& u : run.utilization) {
        csv.field(u.timeS).field(u.busyGpus).field(run.totalGpus);
        run.totalGpus > 0 ? csv.field(static_cast<double>(u.busyGpus) / run.totalGpus) : csv.empty();
        for (std::size_t t = 0; t < run.gpuTypes.size(); ++t)
            t < u.busyByType.size() ? csv.field(u.busyByType[t]) : csv.empty();
        csv.endRow();
    }
}

void writeComparisonCsv(std::ostream& out, const store::RunComparison& c)
{
    CsvWriter csv(out);
    csv.field("run_id").field("scenario").field("policy").field("status").field("seed");
    for (const auto& m : c.metrics)
        csv.field(m);
    csv.endRow();
    for (std::size_t r = 0; r < c.runs.size(); ++r) {
        const auto& run = c.runs[r];
        csv.field(static_cast<long long>(run.id)).field(run.scenarioName).field(run.policy);
        csv.field(store::toString(run.status)).field(std::to_string(run.seed));
        for (const auto& v : c.values[r])
            v ? csv.field(*v) : csv.empty();
        csv.endRow();
    }
}

} // namespace orrery::io
