#include "provision/estimator_profile.h"

#include "estimate/plan.h"
#include "util/units.h"

namespace orrery::provision {

namespace {

PartProfile fromCost(const estimate::LayerCost& c, double gradientElementBytes, double timeScale)
{
    PartProfile p;
    p.forwardS = c.forwardS * timeScale;
    p.backwardS = c.backwardS * timeScale;
    p.staticBytes = c.stateBytes;
    p.activationBytes = c.activationBytes;
    p.gradientBytes = c.parameterCount * gradientElementBytes;
    p.flops = 3 * c.flopsForward; // model FLOPs: r_t is then the achieved model FLOP/s
    return p;
}

} // namespace

LayerProfile EstimatorProfileSource::profile(const hardware::GpuType& gpu, const ProvisionJob& job,
                                             int microBatchSize) const
{
    workload::TrainingConfig config = job.training;
    config.microBatch = microBatchSize;
    config.seq = job.seq();

    double timeScale = 1;
    if (auto it = m_efficiency.find(gpu.name); it != m_efficiency.end() && it->second > 0)
        timeScale = estimate::achievableEfficiency(gpu) / it->second;

    // Gradients are all-reduced in the compute precision.
    const double gradientBytes = config.precision == workload::Precision::FP32 ? 4 : 2;
    const estimate::LayerProfile est = estimate::profileLayers(job.model, config, gpu, 1);
    LayerProfile p;
    p.embedding = fromCost(est.layers.front(), gradientBytes, timeScale);
    p.layer = fromCost(est.layers.at(1), gradientBytes, timeScale);
    p.head = fromCost(est.layers.back(), gradientBytes, timeScale);
    p.boundaryBytes = est.layers.at(1).outputBytes;

    // With full recomputation one layer is re-run during backward and briefly holds all its activations.
    if (config.recompute == workload::Recompute::Full) {
        workload::TrainingConfig rerun = config;
        rerun.recompute = workload::Recompute::None;
        p.layer.workingBytes = estimate::profileLayers(job.model, rerun, gpu, 1).layers.at(1).activationBytes;
    }
    // A single-stage estimate isolates the context and the head's transient logits gradient.
    workload::TrainingConfig single = config;
    single.globalBatch = microBatchSize;
    const estimate::MemoryBreakdown whole = estimate::estimateMemory(job.model, single, {1, 1, 1});
    p.reservedBytes = whole.contextGiB * kGiB;
    p.head.workingBytes = whole.temporaryGiB() * kGiB;
    return p;
}

} // namespace orrery::provision
