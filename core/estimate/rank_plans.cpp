#include "estimate/frenzy_memory.h"
#include "estimate/model_terms.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace orrery::estimate {

std::vector<PlanTarget> targetsFromTypes(const std::vector<hardware::GpuType>& types, int maxGpus,
                                         const hardware::Link& network, int gpusPerNode)
{
    std::vector<PlanTarget> targets;
    targets.reserve(types.size());
    for (const auto& type : types) {
        PlanTarget t;
        t.gpu = &type;
        t.maxGpus = maxGpus;
        t.gpusPerNode = gpusPerNode;
        t.intraNode = type.intraLink;
        t.interNode = network;
        targets.push_back(t);
    }
    return targets;
}

double usableCapacityBytes(const PlanTarget& target, MemoryMode mode)
{
    if (target.capacityBytes > 0)
        return target.capacityBytes;
    // Frenzy's worked example (8 x A100 for GPT2-7B at B = 2) holds only with decimal gigabytes (spec A.3.3).
    return mode == MemoryMode::Full ? target.gpu->memoryBytes() : target.gpu->memoryGiB * 1e9;
}

namespace {

bool better(const Plan& x, const Plan& y, PlanRank rank)
{
    switch (rank) {
    case PlanRank::Frenzy:
        // Fewer GPUs, then less tensor parallelism (fewer per-layer all-reduces), then less pipelining,
        // then the higher-utilisation (smaller) memory figure; a faster GPU type breaks the remaining tie.
        return std::make_tuple(x.count, x.par.tp, x.par.pp, x.memoryGiB, -x.samplesPerS, x.gpu, x.par.ep, x.par.cp) <
               std::make_tuple(y.count, y.par.tp, y.par.pp, y.memoryGiB, -y.samplesPerS, y.gpu, y.par.ep, y.par.cp);
    case PlanRank::Throughput:
        return std::make_tuple(-x.samplesPerS, x.count, x.usdPerHour, x.gpu, x.par.ep, x.par.cp) <
               std::make_tuple(-y.samplesPerS, y.count, y.usdPerHour, y.gpu, y.par.ep, y.par.cp);
    case PlanRank::Cost:
        return std::make_tuple(x.usdPerHour / x.samplesPerS, x.count, x.gpu, x.par.ep, x.par.cp) <
               std::make_tuple(y.usdPerHour / y.samplesPerS, y.count, y.gpu, y.par.ep, y.par.cp);
    }
    return false;
}

} // namespace

std::vector<Plan> rankPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                            const std::vector<PlanTarget>& targets, const PlanOptions& options)
{
    if (config.globalBatch < 1)
        throw Error("", "batch", fmt::format("the global batch must be >= 1 (got {})", config.globalBatch));
    int maxGpus = 0, maxPerNode = 1;
    for (std::size_t i = 0; i < targets.size(); ++i) {
        if (!targets[i].gpu)
            throw Error("", fmt::format("targets[{}].gpu", i), "no GPU type given");
        maxGpus = std::max(maxGpus, targets[i].maxGpus);
        maxPerNode = std::max(maxPerNode, targets[i].gpusPerNode);
    }
    maxGpus = std::min(maxGpus, options.maxGpus);

    std::vector<int> tps; // powers of two within a node, dividing the heads, KV heads and hidden size
    for (int t = 1; t <= maxPerNode; t *= 2)
        if (model.heads % t == 0 && model.kvHeads % t == 0 && model.hidden % t == 0)
            tps.push_back(t);
    std::vector<int> pps{1};
    if (options.allowPipeline)
        for (int p = 2; p <= model.layers; ++p)
            if (model.layers % p == 0)
                pps.push_back(p);

    // Context parallelism (opt-in): powers of two up to 16 that split the sequence into 2 cp chunks, on flash
    // attention (docs/models/context-parallel.md).
    std::vector<int> cps{1};
    if (options.allowContextParallel && config.flashAttention) {
        const int seq = config.seq > 0 ? config.seq : model.seq;
        for (int cp = 2; cp <= 16; cp *= 2)
            if (seq % (2 * cp) == 0)
                cps.push_back(cp);
    }

    std::vector<Plan> plans;
    const int B = config.globalBatch;
    workload::TrainingConfig cfg = config;
    const auto addPlans = [&](const Parallelism& par) {
        const int n = par.gpus();
        const double bytes = options.mode == MemoryMode::Full
                                 ? estimateMemory(model, cfg, par, options.mode).totalGiB() * kGiB
                                 : frenzyRequiredBytes(model, cfg, par, options.mode);
        for (const auto& target : targets) {
            if (n > target.maxGpus || par.tp > target.gpusPerNode || bytes >= usableCapacityBytes(target, options.mode))
                continue;
            if (cfg.fp8 &&
                (cfg.precision == workload::Precision::FP32 || hardware::curvesFor(*target.gpu).fp8GemmSpeedup <= 0))
                continue; // FP8 training needs FP8 tensor cores
            const ThroughputEstimate speed = estimateThroughput(model, cfg, par, target);
            Plan plan;
            plan.gpu = target.gpu->name;
            plan.count = n;
            plan.par = par;
            plan.microBatch = cfg.microBatch > 0 ? cfg.microBatch : B / par.dp;
            plan.memoryGiB = bytes / kGiB;
            plan.samplesPerS = speed.samplesPerS;
            plan.iterationS = speed.iterationS;
            plan.usdPerHour = n * target.gpu->priceUsdPerHour;
            plans.push_back(std::move(plan));
        }
    };
    for (int d = 1; d <= std::min(B, maxGpus); ++d) {
        if (B % d != 0)
            continue; // every replica gets a whole number of samples (spec A.4, d | B)
        for (int p : pps) {
            cfg = config;
            // A pipeline needs micro-batches to fill it: with no micro-batch given, use 1.
            if (p > 1 && cfg.microBatch == 0)
                cfg.microBatch = 1;
            if (cfg.microBatch > 0 && (B / d) % cfg.microBatch != 0)
                continue;
            for (int t : tps) {
                if (d * t * p > maxGpus)
                    break;
                // Expert parallelism (MoE models): every ep dividing both the experts and dp (Megatron-Core's
                // constraint; docs/models/plans.md). Dense models have ep = 1 only.
                for (int cp : cps) {
                    if (d * t * p * cp > maxGpus)
                        break;
                    for (int ep = 1; ep <= (model.isMoe() ? d : 1); ++ep) {
                        if (d % ep != 0 || model.experts % ep != 0)
                            continue;
                        addPlans(Parallelism{d, t, p, ep, cp});
                    }
                }
            }
        }
    }

    std::sort(plans.begin(), plans.end(), [&](const Plan& x, const Plan& y) { return better(x, y, options.rank); });
    return plans;
}

} // namespace orrery::estimate
