#include "estimate/model_terms.h"
#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace orrery::estimate {

namespace detail {

double contextBytes(const Parallelism& par)
{
    // CUDA context + kernels + cuBLAS workspace, and NCCL's buffers once there is a communicator.
    const double context = 0.5 * kGiB;
    const double nccl = par.gpus() > 1 ? 0.5 * kGiB : 0.0;
    return context + nccl;
}

} // namespace detail

namespace {

using namespace detail;

constexpr double kAllocatorSlack = 0.10;

void validate(const workload::ModelSpec& model, const workload::TrainingConfig& config, const Parallelism& par)
{
    const auto bad = [](const std::string& field, const std::string& what) { throw Error("", field, what); };
    if (par.dp < 1 || par.tp < 1 || par.pp < 1)
        bad("parallelism", fmt::format("dp, tp and pp must be >= 1 (got {}, {}, {})", par.dp, par.tp, par.pp));
    if (config.globalBatch < 1)
        bad("batch", fmt::format("the global batch must be >= 1 (got {})", config.globalBatch));
    if (config.microBatch < 0)
        bad("micro_batch", fmt::format("the micro-batch must be >= 0 (got {})", config.microBatch));
    if (config.zeroStage < 0 || config.zeroStage > 3)
        bad("zero", fmt::format("ZeRO stage must be 0..3 (got {})", config.zeroStage));
    if (model.hidden < 1 || model.layers < 1 || model.heads < 1 || model.vocab < 1 || model.kvHeads < 1)
        bad("model", fmt::format("model '{}' has a non-positive dimension", model.name));
    if (par.pp > model.layers)
        bad("pp", fmt::format("pp ({}) exceeds the model's {} layers", par.pp, model.layers));
    if (config.virtualStages < 1)
        bad("virtual_stages", fmt::format("expected a positive integer, got {}", config.virtualStages));
}

MemoryBreakdown stageBreakdown(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                               const Parallelism& par, const BatchShape& shape, int stage)
{
    const int t = par.tp, p = par.pp, d = par.dp;
    const bool amp = config.autocast && config.precision != workload::Precision::FP32;
    const StateBytes bytes = stateBytes(config);
    const double params = stageParamsPerGpu(model, t, p, stage);

    MemoryBreakdown m;
    // ZeRO (Rajbhandari et al. 2020, sec. 5): stage 1 shards optimizer states, 2 adds gradients, 3 weights.
    m.weightsGiB = params * bytes.weights / (config.zeroStage >= 3 ? d : 1) / kGiB;
    m.gradientsGiB = params * bytes.gradients / (config.zeroStage >= 2 ? d : 1) / kGiB;
    // ZeRO-Offload keeps the fp32 master and the moments in host memory (Ren et al. 2021).
    m.optimizerGiB = config.offloadOptimizer ? 0.0 : params * bytes.optimizer / (config.zeroStage >= 1 ? d : 1) / kGiB;

    const double s = shape.seq, b = shape.microBatch, h = model.hidden, V = model.vocab;
    const double e = elementBytes(config.precision);
    const bool sp = config.sequenceParallel && t > 1;
    const double spDiv = sp ? t : 1;

    // 1F1B (Narayanan et al. 2021, sec. 2.2.1): stage i keeps p - i micro-batches in flight. The interleaved
    // schedule's warm-up runs further ahead: the first stage holds (1 + (p - 1) / (p v)) times the
    // activations of plain 1F1B (Korthikanti et al. 2022, sec. 4.2.3); later stages scale alike.
    const int v = effectiveVirtualStages(model, config, p, shape.microBatches);
    const double interleave = v > 1 ? 1 + double(p - 1) / (double(p) * v) : 1.0;
    const double inFlight = std::min(double(p - stage), double(shape.microBatches)) * interleave;
    double activations =
        inFlight * layersOnStage(model.layers, p, stage) * layerActivationBytes(model, config, s, b, t);
    if (config.recompute == workload::Recompute::Full) {
        // During backward one layer is re-run and holds its full activations (Korthikanti sec. 5).
        workload::TrainingConfig rerun = config;
        rerun.recompute = workload::Recompute::None;
        activations += layerActivationBytes(model, rerun, s, b, t);
    }
    double temporary = 0;
    if (stage == 0 && hasDropout(model))
        activations += inFlight * s * b * h / spDiv; // embedding dropout mask (Korthikanti sec. 4.3)
    if (stage == p - 1) {
        // Final norm input and head input, then the logits the loss keeps in fp32 (Korthikanti sec. 4.3:
        // 4sbv/t). At the start of backward the loss's gradient replaces the saved fp32 softmax in place
        // (Megatron's vocab-parallel cross entropy) and is cast to the compute precision for the head's
        // backward: e sbv/t on top of everything else. Under autocast the fp32 gradient is a new tensor.
        activations += 2 * e * s * b * h / spDiv + 4 * s * b * V / t;
        temporary += (amp ? 4 : e) * s * b * V / t;
    }
    if (amp) {
        // Autocast caches the half copy of every weight it casts, for the whole forward and backward.
        temporary += params * 2;
    }
    if (config.zeroStage >= 3) {
        // ZeRO-3 gathers each layer's weights before use; the current layer and a prefetched one.
        temporary += 2 * layerParamsPerGpu(model, t) * bytes.weights;
    }
    // The caching allocator keeps freed blocks of the per-step allocations (activations and transient
    // buffers churn every step, the states do not) and rounds requests up; measured peaks exceed the sum
    // of live tensors by roughly a tenth of that churn (docs/models/memory.md, "Allocator slack").
    const double slack = kAllocatorSlack * (activations + temporary);
    m.activationsGiB = activations / kGiB;
    m.contextGiB = contextBytes(par) / kGiB;
    m.slackGiB = slack / kGiB;
    m.overheadGiB = m.contextGiB + (temporary + slack) / kGiB;
    return m;
}

} // namespace

MemoryBreakdown estimateMemory(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                               const Parallelism& par, MemoryMode mode)
{
    validate(model, config, par);
    if (mode != MemoryMode::Full)
        return frenzyBreakdown(model, config, par, mode);
    const BatchShape shape = batchShape(model, config, par.dp);
    MemoryBreakdown worst;
    for (int stage = 0; stage < par.pp; ++stage) {
        // Stages in the middle hold fewer micro-batches than the first and no embedding or head:
        // only the first and the last can be the largest.
        if (stage != 0 && stage != par.pp - 1)
            continue;
        const MemoryBreakdown m = stageBreakdown(model, config, par, shape, stage);
        if (stage == 0 || m.totalGiB() > worst.totalGiB())
            worst = m;
    }
    return worst;
}

void checkInterleaving(const workload::ModelSpec& model, const workload::TrainingConfig& config, const Parallelism& par)
{
    detail::checkVirtualStages(model, config, par.pp, detail::batchShape(model, config, par.dp).microBatches);
}

MemoryBreakdown estimateStageMemory(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                    const Parallelism& par, int stage)
{
    validate(model, config, par);
    if (stage < 0 || stage >= par.pp)
        throw Error("", "stage", fmt::format("stage {} is outside 0..{} (pp = {})", stage, par.pp - 1, par.pp));
    return stageBreakdown(model, config, par, batchShape(model, config, par.dp), stage);
}

} // namespace orrery::estimate
