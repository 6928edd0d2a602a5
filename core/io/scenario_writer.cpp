#include "io/scenario.h"

#include "io/error.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

namespace orrery::io {

using nlohmann::json;
using namespace orrery::hardware;
using namespace orrery::workload;

namespace {

json linkToJson(const Link& link, const char* bandwidthKey, double scale)
{
    return {{"kind", toString(link.kind)}, {bandwidthKey, link.bandwidthGBps * scale}, {"latency_us", link.latencyUs}};
}

json jobToJson(const Job& job)
{
    json j = {{"id", job.id}, {"arrival_s", job.arrivalS}};
    if (!job.user.empty())
        j["user"] = job.user;
    if (job.priority != 1.0)
        j["priority"] = job.priority;
    if (job.deadlineS)
        j["deadline_s"] = *job.deadlineS;
    if (job.kind == JobKind::Serverless) {
        const TrainingConfig& c = job.config;
        j["model"] = job.model;
        j["batch"] = c.globalBatch;
        if (c.microBatch > 0)
            j["micro_batch"] = c.microBatch;
        if (c.seq > 0)
            j["seq"] = c.seq;
        if (c.precision != Precision::BF16)
            j["precision"] = toString(c.precision);
        if (c.optimizer != Optimizer::Adam)
            j["optimizer"] = toString(c.optimizer);
        if (c.recompute != Recompute::None)
            j["recompute"] = toString(c.recompute);
        if (c.zeroStage)
            j["zero"] = c.zeroStage;
        if (c.flashAttention)
            j["flash_attn"] = true;
        if (c.sequenceParallel)
            j["sequence_parallel"] = true;
        if (c.autocast)
            j["autocast"] = true;
        if (c.fp32Grads)
            j["fp32_grads"] = true;
        j["iterations"] = job.iterations;
    } else {
        j["gpus"] = job.gpus;
        if (!job.gpuType.empty())
            j["gpu_type"] = job.gpuType;
        if (!job.jobType.empty()) {
            j["job_type"] = job.jobType;
            if (job.scaleFactor != job.gpus)
                j["scale_factor"] = job.scaleFactor;
            j["iterations"] = job.iterations;
        } else {
            j["duration_s"] = job.durationS;
            if (!job.referenceGpu.empty())
                j["reference_gpu"] = job.referenceGpu;
        }
    }
    return j;
}

} // namespace

json scenarioToJson(const Scenario& s)
{
    json doc = {{"format", "orrery-scenario"}, {"version", kScenarioVersion}, {"name", s.name}};
    if (!s.description.empty())
        doc["description"] = s.description;
    if (!s.customGpus.empty()) {
        doc["gpus"] = json::array();
        for (const auto& g : s.customGpus)
            doc["gpus"].push_back(gpuTypeToJson(g));
    }
    json nodes = json::array();
    for (const auto& g : s.cluster.groups()) {
        json n = {{"name", g.name}, {"gpu", g.gpuType}, {"count", g.count}, {"gpus_per_node", g.gpusPerNode}};
        if (g.intraLink)
            n["link"] = linkToJson(*g.intraLink, "bandwidth_gb_s", 1.0);
        nodes.push_back(std::move(n));
    }
    doc["cluster"] = {{"nodes", nodes}, {"network", linkToJson(s.cluster.network(), "bandwidth_gbit_s", 8.0)}};

    json w = json::object();
    if (!s.workload.customModels.empty()) {
        w["models"] = json::array();
        for (const auto& m : s.workload.customModels)
            w["models"].push_back(modelSpecToJson(m));
    }
    if (!s.workload.jobs.empty()) {
        w["jobs"] = json::array();
        for (const auto& job : s.workload.jobs)
            w["jobs"].push_back(jobToJson(job));
    }
    if (const auto& t = s.workload.trace) {
        json tj = {{"format", t->format}, {"path", t->path}};
        if (t->limit)
            tj["limit"] = *t->limit;
        if (!t->referenceGpu.empty())
            tj["reference_gpu"] = t->referenceGpu;
        w["trace"] = tj;
    }
    if (const auto& g = s.workload.generator) {
        json gj = {{"jobs", g->jobs},
                   {"rate_per_hour", g->ratePerHour},
                   {"durations", g->durations},
                   {"min_duration_s", g->minDurationS},
                   {"max_duration_s", g->maxDurationS}};
        if (g->seed)
            gj["seed"] = *g->seed;
        gj["mix"] = json::array();
        for (const auto& e : g->mix) {
            json ej = {{"weight", e.weight}};
            if (!e.model.empty()) {
                ej["model"] = e.model;
                ej["batches"] = e.batches;
            } else {
                ej["gpus"] = e.gpus;
            }
            gj["mix"].push_back(ej);
        }
        w["generator"] = gj;
    }
    doc["workload"] = w;
    if (!s.policies.empty())
        doc["policies"] = s.policies;
    const ScenarioOptions& o = s.options;
    json opt = {{"seed", o.seed},
                {"round_s", o.roundS},
                {"restart_penalty_s", o.restartPenaltyS},
                {"cross_node_slowdown", o.crossNodeSlowdown},
                {"gavel_compat", o.gavelCompat},
                {"reference_gpu", o.referenceGpu}};
    if (!o.throughputs.empty())
        opt["throughputs"] = o.throughputs;
    doc["options"] = opt;
    return doc;
}

void saveScenario(const Scenario& s, const std::string& path)
{
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out)
            throw Error(path, "", std::string("cannot write: ") + std::strerror(errno));
        out << scenarioToJson(s).dump(2) << '\n';
        if (!out.flush())
            throw Error(path, "", "write failed");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw Error(path, "", std::string("cannot replace file: ") + std::strerror(errno));
    }
}

} // namespace orrery::io
