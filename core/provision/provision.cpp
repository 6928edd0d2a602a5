#include "provision/provision.h"

#include "io/error.h"
#include "provision/allocator.h"
#include "provision/baseline_placers.h"
#include "provision/cmr_placer.h"
#include "provision/strategies.h"

#include <fmt/format.h>

namespace orrery::provision {

void validate(const ProvisionJob& job, const std::vector<PoolGpu>& pool)
{
    if (pool.empty())
        throw Error("", "gpus", "no GPU types to provision from");
    for (std::size_t i = 0; i < pool.size(); ++i) {
        const auto& g = pool[i];
        const std::string where = fmt::format("gpus[{}]", i);
        if (g.quota < 0)
            throw Error("", where + ".quota", fmt::format("{}: quota must be >= 0, got {}", g.gpu.name, g.quota));
        if (!(g.pricePerHour >= 0))
            throw Error("", where + ".price",
                        fmt::format("{}: price must be >= 0, got {}", g.gpu.name, g.pricePerHour));
        if (!(g.gpu.memoryGiB > 0) || !(g.gpu.fp16TFlops > 0))
            throw Error("", where, g.gpu.name + ": memory and fp16 TFLOP/s must be positive");
        for (std::size_t j = 0; j < i; ++j)
            if (pool[j].gpu.name == g.gpu.name)
                throw Error("", where, "GPU type '" + g.gpu.name + "' is listed twice");
    }
    if (job.model.layers < 1)
        throw Error("", "model.layers", "the model needs at least one layer");
    if (job.training.globalBatch < 1)
        throw Error("", "batch", fmt::format("global batch must be >= 1, got {}", job.training.globalBatch));
    if (job.microBatches < 1 || job.microBatches > job.training.globalBatch)
        throw Error("", "micro_batches",
                    fmt::format("micro-batches must be in 1..{} (the global batch), got {}", job.training.globalBatch,
                                job.microBatches));
    if (job.iterations < 1)
        throw Error("", "iterations", fmt::format("iterations must be >= 1, got {}", job.iterations));
    if (!(job.interBandwidthGbitS > 0))
        throw Error("", "bandwidth", fmt::format("bandwidth must be positive, got {}", job.interBandwidthGbitS));
    if (job.sloS < 0)
        throw Error("", "slo", fmt::format("the SLO must be >= 0 seconds (0: none), got {}", job.sloS));
}

ProvisionResult provisionGpus(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                              const ProvisionOptions& options, const std::atomic<bool>* cancel)
{
    validate(job, pool);
    switch (options.strategy) {
    case Strategy::SiaPlus:
        return provisionSiaPlus(job, pool, source, options, cancel);
    case Strategy::Optimal:
        return provisionOptimal(job, pool, source, options, cancel);
    case Strategy::WhalePlus:
        return allocate(
            job, pool, source, options,
            [](const PipelineModel& m, const std::vector<int>& t, double cut) { return whalePlace(m, t, cut); },
            cancel);
    case Strategy::HphPlus:
        return allocate(
            job, pool, source, options,
            [](const PipelineModel& m, const std::vector<int>& t, double cut) { return hphPlace(m, t, cut); }, cancel);
    case Strategy::Espresso:
        break;
    }
    return allocate(
        job, pool, source, options,
        [](const PipelineModel& m, const std::vector<int>& types, double cut) {
            return cmrPlace(m, types, nullptr, cut);
        },
        cancel);
}

} // namespace orrery::provision
