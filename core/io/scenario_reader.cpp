#include "io/scenario.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "io/limits.h"
#include "io/scenario_options_reader.h"
#include "sched/registry.h"
#include "sim/estimate_error.h"
#include "sim/locality.h"
#include "sim/switch_cost.h"
#include "util/embedded.h"
#include "util/text.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <unordered_set>

namespace orrery::io {

using nlohmann::json;
using namespace orrery::hardware;
using namespace orrery::workload;

namespace {

using detail::readEstimateError;
using detail::readLocality;
using detail::readOptions;
using detail::readPolicy;
using detail::rethrowAt;

Link readLink(JsonObject& o, const std::string& bandwidthKey, double bandwidthScale)
{
    Link link;
    link.kind = linkKindFromString(
        o.choice("kind", {"pcie", "nvlink", "infinity-fabric", "ethernet", "infiniband"}, "ethernet"));
    link.bandwidthGBps = o.positiveNumber(bandwidthKey) * bandwidthScale;
    link.latencyUs = o.nonNegativeNumber("latency_us", 5.0);
    o.finish();
    return link;
}

// Topology (docs/simulator.md, "Locality"): "rack" is one name for the whole group or one per node.
std::vector<std::string> readRacks(JsonObject& n, int count)
{
    const json* r = n.member("rack");
    if (!r)
        return {};
    std::vector<std::string> racks;
    if (r->is_string())
        racks.push_back(r->get<std::string>());
    else if (r->is_array()) {
        if (r->size() != static_cast<std::size_t>(count))
            n.fail("rack", fmt::format("expected one rack name per node ({}), got {}", count, r->size()));
        racks = n.stringList("rack");
    } else
        n.fail("rack", "expected a rack name or an array of one name per node, got " + describeJson(*r));
    for (std::size_t i = 0; i < racks.size(); ++i)
        if (util::trim(racks[i]).empty())
            throw Error("", r->is_array() ? indexPath(n.childPath("rack"), i) : n.childPath("rack"),
                        "expected a non-empty rack name");
    return racks;
}

Cluster readCluster(JsonObject o, const GpuCatalog& catalog)
{
    const json& nodes = o.array("nodes");
    if (nodes.empty())
        o.fail("nodes", "expected at least one node group");
    std::vector<NodeGroup> groups;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        JsonObject n(nodes[i], indexPath(o.childPath("nodes"), i));
        NodeGroup g;
        g.gpuType = n.string("gpu");
        if (!catalog.find(g.gpuType)) {
            try {
                catalog.at(g.gpuType);
            } catch (const Error& e) {
                n.fail("gpu", e.message());
            }
        }
        g.name = n.string("name", catalog.at(g.gpuType).name);
        g.count = static_cast<int>(n.integer("count", 1, 1, limits::kMaxClusterNodes));
        g.gpusPerNode = static_cast<int>(n.integer("gpus_per_node", 1, limits::kMaxGpusPerNode));
        if (const json* l = n.member("link")) {
            JsonObject lo(*l, n.childPath("link"));
            g.intraLink = readLink(lo, "bandwidth_gb_s", 1.0);
        }
        g.racks = readRacks(n, g.count);
        n.finish();
        groups.push_back(std::move(g));
    }
    // Each node and GPU gets its own state: check the totals before the cluster allocates them.
    long long totalNodes = 0, totalGpus = 0;
    for (std::size_t i = 0; i < groups.size(); ++i) {
        totalNodes += groups[i].count;
        totalGpus += static_cast<long long>(groups[i].count) * groups[i].gpusPerNode;
        if (totalNodes > limits::kMaxClusterNodes)
            throw Error("", indexPath(o.childPath("nodes"), i) + ".count",
                        fmt::format("the cluster has {} nodes up to here, more than the {} a cluster may have",
                                    totalNodes, limits::kMaxClusterNodes));
        if (totalGpus > limits::kMaxClusterGpus)
            throw Error("", indexPath(o.childPath("nodes"), i) + ".count",
                        fmt::format("the cluster has {} GPUs up to here, more than the {} a cluster may have",
                                    totalGpus, limits::kMaxClusterGpus));
    }
    for (std::size_t i = 0; i < groups.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (groups[i].name == groups[j].name)
                throw Error("", indexPath(o.childPath("nodes"), i) + ".name",
                            "duplicate node group name \"" + groups[i].name + "\"");
    Link network{LinkKind::Ethernet, 25.0 / 8.0, 5.0};
    if (const json* net = o.member("network")) {
        JsonObject no(*net, o.childPath("network"));
        network = readLink(no, "bandwidth_gbit_s", 1.0 / 8.0);
    }
    o.finish();
    return Cluster(std::move(groups), network, catalog);
}

/**
 * A job's elastic range (docs/simulator.md, "Elastic jobs"): `min_gpus`, `max_gpus`, `allowed_gpus`. A bound
 * not given is the smallest / largest allowed count, else the request (`gpus`) of a fixed job, else 1 / no
 * limit for a serverless one. Nothing given leaves the job as it was: rigid, or free for a serverless job.
 */
void readElastic(JsonObject& o, Job& job)
{
    const bool given = o.has("min_gpus") || o.has("max_gpus") || o.has("allowed_gpus");
    if (!given)
        return;
    const bool fixed = job.kind == JobKind::Fixed;
    if (const json* a = o.member("allowed_gpus")) {
        if (!a->is_array() || a->empty())
            o.fail("allowed_gpus", "expected a non-empty array of GPU counts, got " + describeJson(*a));
        for (std::size_t i = 0; i < a->size(); ++i) {
            const json& x = (*a)[i];
            const bool ok =
                x.is_number_integer() && x.get<long long>() >= 1 && x.get<long long>() <= limits::kMaxJobGpus;
            if (!ok || (i > 0 && x.get<long long>() <= job.allowedGpus.back()))
                throw Error(
                    "", indexPath(o.childPath("allowed_gpus"), i),
                    ok ? "expected counts in increasing order, without repeats, got " + describeJson(x)
                       : fmt::format("expected a GPU count in [1, {}], got {}", limits::kMaxJobGpus, describeJson(x)));
            job.allowedGpus.push_back(x.get<int>());
        }
    }
    const int lowest = !job.allowedGpus.empty() ? job.allowedGpus.front() : fixed ? job.gpus : 1;
    const int highest = !job.allowedGpus.empty() ? job.allowedGpus.back() : fixed ? job.gpus : 0;
    job.minGpus = static_cast<int>(o.integer("min_gpus", lowest, 1, limits::kMaxJobGpus));
    job.maxGpus = static_cast<int>(o.integer("max_gpus", highest, 1, limits::kMaxJobGpus));
    if (job.maxGpus && job.minGpus > job.maxGpus)
        o.fail("max_gpus", fmt::format("max_gpus {} is below min_gpus {}", job.maxGpus, job.minGpus));
    for (std::size_t i = 0; i < job.allowedGpus.size(); ++i)
        if (job.allowedGpus[i] < job.minGpus || (job.maxGpus && job.allowedGpus[i] > job.maxGpus))
            throw Error("", indexPath(o.childPath("allowed_gpus"), i),
                        fmt::format("count {} is outside min_gpus..max_gpus ({}..{})", job.allowedGpus[i], job.minGpus,
                                    job.maxGpus));
    const bool listed =
        job.allowedGpus.empty() || std::binary_search(job.allowedGpus.begin(), job.allowedGpus.end(), job.gpus);
    if (fixed && (job.gpus < job.minGpus || job.gpus > job.maxGpus || !listed))
        o.fail("gpus", fmt::format("the request of {} GPUs is outside the job's own range ({}..{}{})", job.gpus,
                                   job.minGpus, job.maxGpus, listed ? "" : ", not an allowed count"));
}

// SLO class, deadlines with rewards and the user's stated maximum run time (docs/scenario-format.md).
void readSlo(JsonObject& o, Job& job)
{
    job.sloClass = o.string("slo_class", "");
    if (o.has("reward") && !job.deadlineS)
        o.fail("reward", "a reward belongs to \"deadline_s\" (give several deadlines as \"deadlines\")");
    job.reward = o.nonNegativeNumber("reward", 1.0);
    if (auto m = o.optionalNumber("max_runtime_s", 0)) {
        if (*m <= 0)
            o.fail("max_runtime_s", fmt::format("expected a positive number of seconds, got {}", *m));
        job.maxRuntimeS = *m;
    }
    const json* list = o.member("deadlines");
    if (!list)
        return;
    if (job.deadlineS)
        o.fail("deadlines", "a job has either \"deadline_s\" or \"deadlines\", not both");
    if (!list->is_array() || list->empty())
        o.fail("deadlines", "expected a non-empty array of {\"at_s\", \"reward\"}, got " + describeJson(*list));
    for (std::size_t i = 0; i < list->size(); ++i) {
        JsonObject d((*list)[i], indexPath(o.childPath("deadlines"), i));
        Deadline dl;
        dl.atS = d.number("at_s");
        if (!(dl.atS > job.arrivalS) || !std::isfinite(dl.atS))
            d.fail("at_s", fmt::format("deadline {} is not after the arrival {}", dl.atS, job.arrivalS));
        if (!job.deadlines.empty() && dl.atS <= job.deadlines.back().atS)
            d.fail("at_s", fmt::format("deadlines must be listed in increasing order ({} follows {})", dl.atS,
                                       job.deadlines.back().atS));
        dl.reward = d.nonNegativeNumber("reward", 1.0);
        d.finish();
        job.deadlines.push_back(dl);
    }
}

Job readJob(JsonObject o, std::size_t index, const ModelLibrary& models, const GpuCatalog& catalog)
{
    Job job;
    job.id = o.string("id", fmt::format("j{}", index));
    job.arrivalS = o.nonNegativeNumber("arrival_s", 0);
    job.user = o.string("user", "");
    job.app = o.string("app", "");
    job.priority = o.positiveNumber("priority", 1.0);
    if (auto d = o.optionalNumber("deadline_s", 0))
        job.deadlineS = *d;
    if (job.deadlineS && *job.deadlineS <= job.arrivalS)
        o.fail("deadline_s", fmt::format("deadline {} is not after the arrival {}", *job.deadlineS, job.arrivalS));
    readSlo(o, job);
    o.allow({"model",          "batch",        "micro_batch", "seq",        "precision",
             "optimizer",      "recompute",    "zero",        "flash_attn", "sequence_parallel",
             "autocast",       "fp32_grads",   "framework",   "pure_half",  "offload_optimizer",
             "virtual_stages", "gpus",         "gpu_type",    "duration_s", "reference_gpu",
             "job_type",       "scale_factor", "iterations",  "arch",       "fp8",
             "application"});

    const bool serverless = o.has("model");
    const bool fixed = o.has("gpus");
    if (serverless == fixed)
        o.failHere(serverless ? "a job has either \"model\" (serverless) or \"gpus\" (fixed request), not both"
                              : "expected \"model\" (serverless job) or \"gpus\" (fixed GPU request)");
    if (serverless) {
        job.kind = JobKind::Serverless;
        job.model = o.string("model");
        if (!models.find(job.model))
            rethrowAt(o, "model", [&] { return models.at(job.model).name; });
        job.model = models.at(job.model).name;
        TrainingConfig& c = job.config;
        c.globalBatch = static_cast<int>(o.integer("batch", 1, limits::kMaxInt));
        c.microBatch = static_cast<int>(o.integer("micro_batch", 0, 1, limits::kMaxInt));
        if (c.microBatch > c.globalBatch)
            o.fail("micro_batch",
                   fmt::format("micro batch {} exceeds the global batch {}", c.microBatch, c.globalBatch));
        c.seq = static_cast<int>(o.integer("seq", 0, 1, limits::kMaxInt));
        c.precision = precisionFromString(o.choice("precision", {"bf16", "fp16", "fp32"}, "bf16"));
        c.optimizer =
            optimizerFromString(o.choice("optimizer", {"adam", "adamw", "sgd", "adam8bit", "adafactor"}, "adam"));
        c.recompute = recomputeFromString(o.choice("recompute", {"none", "selective", "full", "selective_op"}, "none"));
        c.zeroStage = static_cast<int>(o.integer("zero", 0, 0, limits::kMaxInt));
        if (c.zeroStage > 3)
            o.fail("zero", fmt::format("expected a ZeRO stage 0..3, got {}", c.zeroStage));
        c.flashAttention = o.boolean("flash_attn", false);
        c.sequenceParallel = o.boolean("sequence_parallel", false);
        c.autocast = o.boolean("autocast", false);
        c.fp32Grads = o.boolean("fp32_grads", false);
        c.framework = frameworkFromString(
            o.choice("framework", {"megatron", "deepspeed", "fsdp", "hf", "litgpt", "pytorch"}, "megatron"));
        c.pureHalf = o.boolean("pure_half", false);
        c.offloadOptimizer = o.boolean("offload_optimizer", false);
        c.virtualStages = static_cast<int>(o.integer("virtual_stages", 1, 1, limits::kMaxInt));
        c.fp8 = o.boolean("fp8", false);
        // The contradictions between options are checked where the CLI and the GUI check them too.
        try {
            checkTrainingConfig(c);
        } catch (const Error& e) {
            o.fail(e.location(), e.message());
        }
        job.iterations = o.positiveNumber("iterations");
        for (const char* k :
             {"gpu_type", "duration_s", "reference_gpu", "job_type", "scale_factor", "arch", "application"})
            if (o.has(k))
                o.fail(k, "only fixed-request jobs (with \"gpus\") take this field");
    } else {
        job.kind = JobKind::Fixed;
        job.gpus = static_cast<int>(o.integer("gpus", 1, limits::kMaxJobGpus));
        for (const char* key : {"gpu_type", "reference_gpu"}) {
            const std::string t = o.string(key, "");
            if (!t.empty() && !catalog.find(t))
                rethrowAt(o, key, [&] { return catalog.at(t).name; });
            (std::string(key) == "gpu_type" ? job.gpuType : job.referenceGpu) = t.empty() ? t : catalog.at(t).name;
        }
        const bool hasDuration = o.has("duration_s");
        const bool hasType = o.has("job_type");
        const bool hasApp = o.has("application");
        if (int(hasDuration) + int(hasType) + int(hasApp) != 1)
            o.failHere("a fixed-request job needs exactly one of \"duration_s\" (measured run time), "
                       "\"job_type\" with \"iterations\" (throughput-table job) or \"application\" (goodput job)");
        if (hasApp) {
            job.application = o.string("application");
            if (job.application.empty())
                o.fail("application", "expected a goodput profile name (cifar10, bert, ...), got an empty string");
            job.batchSize = static_cast<int>(o.integer("batch", 0, 1, limits::kMaxInt));
            if (o.has("iterations"))
                o.fail("iterations", "a goodput job's work comes from its profiles: it takes no \"iterations\"");
        } else if (hasDuration) {
            job.durationS = o.positiveNumber("duration_s");
            if (o.has("iterations"))
                o.fail("iterations", "a job with \"duration_s\" takes no \"iterations\"");
        } else {
            job.jobType = o.string("job_type");
            job.scaleFactor = static_cast<int>(o.integer("scale_factor", job.gpus, 1, limits::kMaxJobGpus));
            job.iterations = o.positiveNumber("iterations");
        }
        job.arch = o.string("arch", "");
        if (!hasApp && o.has("batch"))
            o.fail("batch", "only serverless jobs (with \"model\") and goodput jobs (with \"application\") take this "
                            "field");
        for (const char* k :
             {"micro_batch", "seq", "precision", "optimizer", "recompute", "zero", "flash_attn", "sequence_parallel",
              "autocast", "fp32_grads", "framework", "pure_half", "offload_optimizer", "virtual_stages", "fp8"})
            if (o.has(k))
                o.fail(k, "only serverless jobs (with \"model\") take this field");
    }
    readElastic(o, job);
    o.finish();
    return job;
}

TraceRef readTrace(JsonObject o, const GpuCatalog& catalog)
{
    TraceRef t;
    t.format = o.choice("format", {"gavel", "openb", "pai", "helios", "philly"}, "");
    if (t.format.empty())
        o.fail("format", "missing required field");
    t.path = o.string("path");
    if (o.has("limit"))
        t.limit = static_cast<int>(o.integer("limit", 1, limits::kMaxJobs));
    t.referenceGpu = o.string("reference_gpu", "");
    if (!t.referenceGpu.empty() && !catalog.find(t.referenceGpu))
        rethrowAt(o, "reference_gpu", [&] { return catalog.at(t.referenceGpu).name; });
    o.finish();
    return t;
}

GeneratorSpec readGenerator(JsonObject o, const ModelLibrary& models)
{
    GeneratorSpec g;
    g.jobs = static_cast<int>(o.integer("jobs", 1, limits::kMaxJobs));
    g.ratePerHour = o.nonNegativeNumber("rate_per_hour", g.ratePerHour);
    if (o.has("seed"))
        g.seed = static_cast<int>(o.integer("seed", 0, limits::kMaxInt));
    g.durations = o.string("durations", g.durations);
    g.minDurationS = o.positiveNumber("min_duration_s", g.minDurationS);
    g.maxDurationS = o.positiveNumber("max_duration_s", g.maxDurationS);
    if (g.maxDurationS < g.minDurationS)
        o.fail("max_duration_s", "must be at least min_duration_s");
    const json& mix = o.array("mix");
    if (mix.empty())
        o.fail("mix", "expected at least one entry");
    for (std::size_t i = 0; i < mix.size(); ++i) {
        JsonObject m(mix[i], indexPath(o.childPath("mix"), i));
        MixEntry e;
        e.weight = m.positiveNumber("weight", 1.0);
        e.model = m.string("model", "");
        if (!e.model.empty() && !models.find(e.model))
            rethrowAt(m, "model", [&] { return models.at(e.model).name; });
        auto ints = [&](const char* key, long long maximum) {
            std::vector<int> out;
            if (const json* v = m.member(key)) {
                if (!v->is_array() || v->empty())
                    m.fail(key, "expected a non-empty array of positive integers, got " + describeJson(*v));
                for (std::size_t k = 0; k < v->size(); ++k) {
                    const json& x = (*v)[k];
                    // Unsigned first: 2^64 - 1 read as long long is -1, and 2^32 + 2 read as int is 2.
                    const bool inRange =
                        x.is_number_unsigned()
                            ? x.get<json::number_unsigned_t>() <= static_cast<json::number_unsigned_t>(maximum)
                            : x.is_number_integer() && x.get<long long>() <= maximum;
                    if (!x.is_number_integer() || (inRange && x.get<long long>() < 1))
                        throw Error("", indexPath(m.childPath(key), k),
                                    "expected a positive integer, got " + describeJson(x));
                    if (!inRange)
                        throw Error(
                            "", indexPath(m.childPath(key), k),
                            fmt::format("expected a positive integer up to {}, got {}", maximum, describeJson(x)));
                    out.push_back((*v)[k].get<int>());
                }
            }
            return out;
        };
        e.batches = ints("batches", limits::kMaxInt);
        e.gpus = ints("gpus", limits::kMaxJobGpus);
        if (e.model.empty() == e.gpus.empty())
            m.failHere("a mix entry has either \"model\" (with \"batches\") or \"gpus\"");
        if (!e.model.empty() && e.batches.empty())
            m.fail("batches", "missing required field");
        m.finish();
        g.mix.push_back(std::move(e));
    }
    o.finish();
    return g;
}

HyperbandSpec readHyperband(JsonObject o, const GpuCatalog& catalog)
{
    HyperbandSpec h;
    h.maxConfigs = static_cast<int>(o.integer("max_configs", h.maxConfigs, 2, 1024));
    if ((h.maxConfigs & (h.maxConfigs - 1)) != 0)
        o.fail("max_configs", fmt::format("expected a power of two (2, 4, ..., 1024), got {}", h.maxConfigs));
    // Every app may have max_configs jobs: the workload's cap on jobs bounds the apps.
    h.apps = static_cast<int>(o.integer("apps", 1, limits::kMaxJobs / h.maxConfigs));
    h.appsPerHour = o.nonNegativeNumber("apps_per_hour", h.appsPerHour);
    h.budgetGpuHours = o.positiveNumber("budget_gpu_h", h.budgetGpuHours);
    if (o.has("seed"))
        h.seed = static_cast<int>(o.integer("seed", 0, limits::kMaxInt));
    h.referenceGpu = o.string("reference_gpu", h.referenceGpu);
    if (!catalog.find(h.referenceGpu))
        rethrowAt(o, "reference_gpu", [&] { return catalog.at(h.referenceGpu).name; });
    h.prefix = o.string("prefix", h.prefix);
    if (h.prefix.empty())
        o.fail("prefix", "expected a non-empty string");
    if (o.has("network_share")) {
        h.networkShare = o.number("network_share");
        if (!(*h.networkShare >= 0 && *h.networkShare <= 1))
            o.fail("network_share", fmt::format("expected a fraction in [0, 1], got {}", *h.networkShare));
    }
    o.finish();
    return h;
}

Scenario parse(const json& doc)
{
    JsonObject o(doc, "");
    const std::string format = o.string("format");
    if (format != "orrery-scenario")
        o.fail("format", "expected \"orrery-scenario\", got \"" + format + "\"");
    const auto version = o.integer("version", 1, limits::kMaxInt);
    if (version > kScenarioVersion)
        o.fail("version",
               fmt::format("scenario version {} is newer than this Orrery reads ({})", version, kScenarioVersion));

    Scenario s;
    s.name = o.string("name", "untitled");
    s.description = o.string("description", "");

    GpuCatalog catalog = GpuCatalog::builtin();
    if (const json* gpus = o.member("gpus")) {
        if (!gpus->is_array())
            o.fail("gpus", "expected an array, got " + describeJson(*gpus));
        for (std::size_t i = 0; i < gpus->size(); ++i) {
            GpuType t = gpuTypeFromJson((*gpus)[i], indexPath("gpus", i));
            try {
                catalog.add(t);
            } catch (const Error& e) {
                throw Error("", indexPath("gpus", i) + ".aliases", e.message());
            }
            s.customGpus.push_back(std::move(t));
        }
    }

    ModelLibrary models = ModelLibrary::builtin();
    JsonObject wo = o.object("workload");
    if (const json* ms = wo.member("models")) {
        if (!ms->is_array())
            wo.fail("models", "expected an array, got " + describeJson(*ms));
        for (std::size_t i = 0; i < ms->size(); ++i) {
            ModelSpec m = modelSpecFromJson((*ms)[i], indexPath(wo.childPath("models"), i));
            models.add(m);
            s.workload.customModels.push_back(std::move(m));
        }
    }

    s.cluster = readCluster(o.object("cluster"), catalog);

    if (const json* jobs = wo.member("jobs")) {
        if (!jobs->is_array())
            wo.fail("jobs", "expected an array, got " + describeJson(*jobs));
        if (static_cast<long long>(jobs->size()) > limits::kMaxJobs)
            wo.fail("jobs",
                    fmt::format("{} jobs, more than the {} a workload may hold", jobs->size(), limits::kMaxJobs));
        s.workload.jobs.reserve(jobs->size());
        for (std::size_t i = 0; i < jobs->size(); ++i) {
            const std::string path = indexPath(wo.childPath("jobs"), i);
            s.workload.jobs.push_back(readJob(JsonObject((*jobs)[i], path), i, models, catalog));
        }
        // Imported traces put tens of thousands of jobs inline: a hash set, not a pairwise scan.
        std::unordered_set<std::string> ids;
        for (std::size_t i = 0; i < s.workload.jobs.size(); ++i)
            if (!ids.insert(s.workload.jobs[i].id).second)
                throw Error("", indexPath(wo.childPath("jobs"), i) + ".id",
                            "duplicate job id \"" + s.workload.jobs[i].id + "\"");
    }
    if (const json* t = wo.member("trace"))
        s.workload.trace = readTrace(JsonObject(*t, wo.childPath("trace")), catalog);
    if (const json* g = wo.member("generator"))
        s.workload.generator = readGenerator(JsonObject(*g, wo.childPath("generator")), models);
    if (const json* h = wo.member("hyperband"))
        s.workload.hyperband = readHyperband(JsonObject(*h, wo.childPath("hyperband")), catalog);
    if (s.workload.jobs.empty() && !s.workload.trace && !s.workload.generator && !s.workload.hyperband)
        wo.failHere("expected \"jobs\", \"trace\", \"generator\" or \"hyperband\"");
    wo.finish();

    if (const json* list = o.member("policies")) {
        if (!list->is_array())
            o.fail("policies",
                   "expected an array of policy names or {\"name\", \"params\"} objects, got " + describeJson(*list));
        for (std::size_t i = 0; i < list->size(); ++i)
            s.policies.push_back(readPolicy((*list)[i], indexPath("policies", i)));
    }

    if (const json* opt = o.member("options")) {
        JsonObject oo(*opt, "options");
        readOptions(oo, s.options, models, catalog);
    }
    o.finish();
    return s;
}

} // namespace

workload::ModelLibrary Scenario::models() const
{
    ModelLibrary lib = ModelLibrary::builtin();
    for (const auto& m : workload.customModels)
        lib.add(m);
    return lib;
}

std::string Scenario::resolvePath(const std::string& path) const
{
    if (path.empty() || path.front() == '/' || sourcePath.empty())
        return path;
    const auto slash = sourcePath.find_last_of('/');
    return slash == std::string::npos ? path : sourcePath.substr(0, slash + 1) + path;
}

Scenario parseScenario(const json& doc, const std::string& fileLabel)
{
    try {
        return parse(doc);
    } catch (const Error& e) {
        throw e.inFile(fileLabel);
    }
}

Scenario parseScenarioText(const std::string& text, const std::string& fileLabel)
{
    return parseScenario(parseJson(text, fileLabel), fileLabel);
}

Scenario loadScenario(const std::string& path)
{
    Scenario s = parseScenarioText(util::readFile(path), util::baseName(path));
    s.sourcePath = path;
    return s;
}

Scenario defaultScenario()
{
    return parseScenarioText(std::string(embedded::defaultScenarioJson), "default.json");
}

} // namespace orrery::io
