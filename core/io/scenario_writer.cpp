#include "io/scenario.h"
#include "sched/registry.h"

#include "io/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <string_view>

namespace orrery::io {

using nlohmann::json;
using namespace orrery::hardware;
using namespace orrery::workload;

namespace {

// A bare name stays a string (files written before parameters existed read the same); a label with parameters
// becomes {"name", "params"} with typed values, the form a user would write.
json policyToJson(const std::string& spec)
{
    const sched::ResolvedPolicy r = sched::resolvePolicy(spec);
    if (r.given.empty())
        return r.info->name;
    json params = json::object();
    for (const auto& p : r.info->allParams()) {
        if (!r.params.given(p.name))
            continue;
        bool listed = false;
        for (const auto& [key, text] : r.given)
            listed = listed || key == p.name;
        if (!listed)
            continue; // set by the preset, which is written itself
        switch (p.type) {
        case sched::ParamType::Number:
            params[p.name] = r.params.number(p.name);
            break;
        case sched::ParamType::Integer:
            params[p.name] = r.params.integer(p.name);
            break;
        case sched::ParamType::Boolean:
            params[p.name] = r.params.boolean(p.name);
            break;
        case sched::ParamType::NumberList:
            params[p.name] = r.params.numbers(p.name);
            break;
        case sched::ParamType::Choice:
            params[p.name] = r.params.choice(p.name);
            break;
        }
    }
    return {{"name", r.info->name}, {"params", std::move(params)}};
}

json linkToJson(const Link& link, const char* bandwidthKey, double scale)
{
    return {{"kind", toString(link.kind)}, {bandwidthKey, link.bandwidthGBps * scale}, {"latency_us", link.latencyUs}};
}

json deadlinesToJson(const std::vector<Deadline>& deadlines)
{
    json out = json::array();
    for (const auto& d : deadlines)
        out.push_back({{"at_s", d.atS}, {"reward", d.reward}});
    return out;
}

/**
 * Calls member(key, value) for each of a job's JSON members, in key order: nlohmann's objects keep
 * their keys sorted, and the text writer below must produce exactly what dumping the tree gives.
 */
template <typename Member> void jobMembers(const Job& job, Member&& member)
{
    const bool serverless = job.kind == JobKind::Serverless;
    const TrainingConfig& c = job.config;
    const bool typed = !serverless && !job.jobType.empty();
    if (!job.allowedGpus.empty())
        member("allowed_gpus", job.allowedGpus);
    if (!job.app.empty())
        member("app", job.app);
    if (!job.application.empty())
        member("application", job.application);
    if (!job.arch.empty())
        member("arch", job.arch);
    member("arrival_s", job.arrivalS);
    if (serverless && c.autocast)
        member("autocast", true);
    if (serverless)
        member("batch", c.globalBatch);
    else if (!job.application.empty() && job.batchSize > 0)
        member("batch", job.batchSize);
    if (job.deadlineS)
        member("deadline_s", *job.deadlineS);
    if (!job.deadlines.empty())
        member("deadlines", deadlinesToJson(job.deadlines));
    if (!serverless && !typed && job.application.empty())
        member("duration_s", job.durationS);
    if (serverless && c.flashAttention)
        member("flash_attn", true);
    if (serverless && c.fp32Grads)
        member("fp32_grads", true);
    if (serverless && c.fp8)
        member("fp8", true);
    if (serverless && c.framework != workload::Framework::Megatron)
        member("framework", toString(c.framework));
    if (!serverless && !job.gpuType.empty())
        member("gpu_type", job.gpuType);
    if (!serverless)
        member("gpus", job.gpus);
    member("id", job.id);
    if (serverless || typed)
        member("iterations", job.iterations);
    if (typed)
        member("job_type", job.jobType);
    if (job.maxGpus)
        member("max_gpus", job.maxGpus);
    if (job.maxRuntimeS)
        member("max_runtime_s", *job.maxRuntimeS);
    if (serverless && c.microBatch > 0)
        member("micro_batch", c.microBatch);
    if (job.minGpus)
        member("min_gpus", job.minGpus);
    if (serverless)
        member("model", job.model);
    if (serverless && c.offloadOptimizer)
        member("offload_optimizer", true);
    if (serverless && c.optimizer != Optimizer::Adam)
        member("optimizer", toString(c.optimizer));
    if (serverless && c.precision != Precision::BF16)
        member("precision", toString(c.precision));
    if (job.priority != 1.0)
        member("priority", job.priority);
    if (serverless && c.pureHalf)
        member("pure_half", true);
    if (serverless && c.recompute != Recompute::None)
        member("recompute", toString(c.recompute));
    if (!serverless && !typed && job.application.empty() && !job.referenceGpu.empty())
        member("reference_gpu", job.referenceGpu);
    if (job.reward != 1.0)
        member("reward", job.reward);
    if (typed && job.scaleFactor != job.gpus)
        member("scale_factor", job.scaleFactor);
    if (serverless && c.seq > 0)
        member("seq", c.seq);
    if (serverless && c.sequenceParallel)
        member("sequence_parallel", true);
    if (!job.sloClass.empty())
        member("slo_class", job.sloClass);
    if (!job.user.empty())
        member("user", job.user);
    if (serverless && c.virtualStages > 1)
        member("virtual_stages", c.virtualStages);
    if (serverless && c.zeroStage)
        member("zero", c.zeroStage);
}

json jobToJson(const Job& job)
{
    json j = json::object();
    jobMembers(job, [&j](const char* key, const auto& value) { j[key] = value; });
    return j;
}

/**
 * Appends jobToJson(job).dump(indent) for a job object whose members sit `memberIndent` spaces in,
 * without building the tree: a 100,000-job trace spends most of its normalising there.
 */
void appendJobText(std::string& out, const Job& job, int indent, std::size_t memberIndent)
{
    const bool pretty = indent >= 0;
    bool first = true;
    out += '{';
    jobMembers(job, [&](const char* key, const auto& value) {
        if (!first)
            out += ',';
        first = false;
        if (pretty) {
            out += '\n';
            out.append(memberIndent, ' ');
        }
        out += '"';
        out += key; // keys are plain ASCII identifiers: nothing to escape
        out += pretty ? "\": " : "\":";
        out += json(value).dump();
    });
    if (pretty) {
        out += '\n';
        out.append(memberIndent - static_cast<std::size_t>(indent), ' ');
    }
    out += '}';
}

json scenarioDocument(const Scenario& s, bool withJobs)
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
        if (g.racks.size() == 1)
            n["rack"] = g.racks.front();
        else if (!g.racks.empty())
            n["rack"] = g.racks;
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
        if (withJobs) {
            for (const auto& job : s.workload.jobs)
                w["jobs"].push_back(jobToJson(job));
        }
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
    if (const auto& h = s.workload.hyperband) {
        json hj = {{"apps", h->apps},
                   {"apps_per_hour", h->appsPerHour},
                   {"budget_gpu_h", h->budgetGpuHours},
                   {"max_configs", h->maxConfigs},
                   {"reference_gpu", h->referenceGpu},
                   {"prefix", h->prefix}};
        if (h->seed)
            hj["seed"] = *h->seed;
        if (h->networkShare)
            hj["network_share"] = *h->networkShare;
        w["hyperband"] = hj;
    }
    doc["workload"] = w;
    if (!s.policies.empty()) {
        json list = json::array();
        for (const auto& spec : s.policies)
            list.push_back(policyToJson(spec));
        doc["policies"] = std::move(list);
    }
    doc["options"] = scenarioOptionsToJson(s.options);
    return doc;
}

} // namespace

json scenarioOptionsToJson(const ScenarioOptions& o)
{
    json opt = {{"seed", o.seed},
                {"round_s", o.roundS},
                {"restart_penalty_s", o.restartPenaltyS},
                {"cross_node_slowdown", o.crossNodeSlowdown},
                {"gavel_compat", o.gavelCompat},
                {"reference_gpu", o.referenceGpu}};
    if (!o.throughputs.empty())
        opt["throughputs"] = o.throughputs;
    if (!o.goodputProfiles.empty())
        opt["goodput_profiles"] = o.goodputProfiles;
    // Written only when set, so a scenario without them keeps its text, and its content hash in run stores.
    if (o.restartModel != "constant")
        opt["restart_model"] = o.restartModel;
    if (!o.restartSByModel.empty())
        opt["restart_s_by_model"] = o.restartSByModel;
    if (o.loadTimeS != 0)
        opt["load_time_s"] = o.loadTimeS;
    if (o.locality != LocalityOptions{}) {
        json l = {{"model", o.locality.model}};
        for (const auto& [name, s] : o.locality.classes)
            l["classes"][name] = {{"node", s[0]}, {"rack", s[1]}, {"cluster", s[2]}};
        if (!o.locality.modelClasses.empty())
            l["model_classes"] = o.locality.modelClasses;
        if (!o.locality.defaultClass.empty())
            l["default_class"] = o.locality.defaultClass;
        if (!o.locality.table.empty())
            l["table"] = o.locality.table;
        opt["locality"] = std::move(l);
    }
    if (o.estimateError != "none") {
        opt["estimate_error"] = o.estimateError;
        opt["estimate_error_scale"] = o.estimateErrorScale;
    }
    return opt;
}

json scenarioToJson(const Scenario& s)
{
    return scenarioDocument(s, true);
}

namespace {

/** scenarioDocument(s).dump(indent) with the jobs array left empty, and where its "[]" is. */
std::string textWithoutJobs(const Scenario& s, int indent, std::size_t& arrayAt)
{
    std::string text = scenarioDocument(s, false).dump(indent);
    // The jobs array was left empty; it is the only member "jobs" with an array value, and an
    // unescaped quote never occurs inside a dumped string, so this finds exactly that member.
    const std::string empty = indent >= 0 ? "\"jobs\": []" : "\"jobs\":[]";
    const std::size_t at = text.find(empty);
    if (at == std::string::npos || text.find(empty, at + 1) != std::string::npos)
        throw std::logic_error("scenarioToJsonText: the workload's jobs array is not where it was expected");
    arrayAt = at + empty.size() - 2;
    return text;
}

} // namespace

std::string scenarioToJsonText(const Scenario& s, int indent)
{
    if (s.workload.jobs.empty())
        return scenarioDocument(s, false).dump(indent);
    std::size_t arrayAt = 0;
    std::string text = textWithoutJobs(s, indent, arrayAt);
    // Pretty-printed, the array's elements sit one indent deeper than the line that opens it.
    const std::size_t lineStart = text.rfind('\n', arrayAt) + 1; // npos + 1 == 0 on the first line
    const std::size_t arrayIndent = arrayAt - (sizeof("\"jobs\": ") - 1) - lineStart;
    const auto step = static_cast<std::size_t>(std::max(indent, 0));
    std::string jobs;
    jobs.reserve(s.workload.jobs.size() * (indent >= 0 ? 160 : 96));
    for (std::size_t i = 0; i < s.workload.jobs.size(); ++i) {
        if (i)
            jobs += ',';
        if (indent >= 0) {
            jobs += '\n';
            jobs.append(arrayIndent + step, ' ');
        }
        appendJobText(jobs, s.workload.jobs[i], indent, arrayIndent + 2 * step);
    }
    if (indent >= 0) {
        jobs += '\n';
        jobs.append(arrayIndent, ' ');
    }
    text.insert(arrayAt + 1, jobs);
    return text;
}

std::string compactJobsText(const Scenario& s)
{
    std::string jobs;
    jobs.reserve(s.workload.jobs.size() * 96);
    for (std::size_t i = 0; i < s.workload.jobs.size(); ++i) {
        if (i)
            jobs += ',';
        appendJobText(jobs, s.workload.jobs[i], -1, 0);
    }
    return jobs;
}

std::string scenarioToJsonTextWithJobs(const Scenario& s, std::string_view jobsText)
{
    if (s.workload.jobs.empty())
        return scenarioDocument(s, false).dump();
    std::size_t arrayAt = 0;
    std::string text = textWithoutJobs(s, -1, arrayAt);
    text.insert(arrayAt + 1, jobsText);
    return text;
}

void saveScenario(const Scenario& s, const std::string& path)
{
    const std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out)
            throw Error(path, "", std::string("cannot write: ") + std::strerror(errno));
        out << scenarioToJsonText(s, 2) << '\n';
        if (!out.flush())
            throw Error(path, "", "write failed");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw Error(path, "", std::string("cannot replace file: ") + std::strerror(errno));
    }
}

} // namespace orrery::io
