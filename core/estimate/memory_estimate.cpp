#include "estimate/model_terms.h"
#include "estimate/operator_time.h"
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
    checkExpertParallelism(model, par);
    checkContextParallelism(model, config, par);
    // Options meaningless where set (fp32 gradients or pure half under fp32 training) the estimators ignore, as
    // TrainingConfig documents; what they cannot price (FP8 under fp32) they refuse, with the front ends' words.
    workload::TrainingConfig checked = config;
    checked.fp32Grads = checked.pureHalf = false;
    workload::checkTrainingConfig(checked);
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
    // Context parallelism keeps a copy of the weights on each of its cp ranks: ZeRO (Megatron-Core's distributed
    // optimizer) shards over the dp x cp ranks, and every rank holds 1/cp of each sequence's activations.
    const int t = par.tp, p = par.pp, d = par.dp * par.cp;
    const bool amp = config.autocast && config.precision != workload::Precision::FP32;
    const StateBytes bytes = stateBytes(config);
    const StageParams params = stageParams(model, t, p, stage, par.ep);
    // What ZeRO shards a state over: the data-parallel group for the dense parameters; for the experts, the
    // dp / ep ranks that hold the same experts (Megatron-Core's expert-data-parallel group).
    const auto sharded = [&](double perParam, int fromStage) {
        const bool zero = config.zeroStage >= fromStage;
        return params.dense * perParam / (zero ? d : 1) + params.experts * perParam / (zero ? d / par.ep : 1);
    };

    MemoryBreakdown m;
    // ZeRO (Rajbhandari et al. 2020, sec. 5): stage 1 shards optimizer states, 2 adds gradients, 3 weights.
    m.weightsGiB = sharded(bytes.weights, 3) / kGiB;
    m.gradientsGiB = sharded(bytes.gradients, 2) / kGiB;
    // ZeRO-Offload keeps the fp32 master and the moments in host memory (Ren et al. 2021).
    m.optimizerGiB = config.offloadOptimizer ? 0.0 : sharded(bytes.optimizer, 1) / kGiB;
    const double fp8Layers = config.fp8 ? stageLayerParamsPerGpu(model, t, p, stage, par.ep) : 0.0;
    if (config.fp8 && detail::frameworkProfile(config.framework).fusedFp8Casts) {
        // Transformer Engine keeps an FP8 copy of each linear weight and of its transpose (Hopper's FP8 GEMMs
        // take only the "TN" layout): 2 B per parameter of the layers, beside the bf16 weights; ZeRO-3 shards them.
        m.weightsGiB += 2 * fp8Layers / (config.zeroStage >= 3 ? d : 1) / kGiB;
    }

    const double s = double(shape.seq) / par.cp, b = shape.microBatch, h = model.hidden, V = model.vocab;
    const double e = elementBytes(config.precision);
    const bool sp = config.sequenceParallel && t > 1;
    const double spDiv = sp ? t : 1;

    // 1F1B (Narayanan et al. 2021, sec. 2.2.1): stage i keeps p - i micro-batches in flight. The interleaved
    // schedule's warm-up runs further ahead: the first stage holds (1 + (p - 1) / (p v)) times the
    // activations of plain 1F1B (Korthikanti et al. 2022, sec. 4.2.3); later stages scale alike.
    const int v = effectiveVirtualStages(model, config, p, shape.microBatches);
    const double interleave = v > 1 ? 1 + double(p - 1) / (double(p) * v) : 1.0;
    const double inFlight = std::min(double(p - stage), double(shape.microBatches)) * interleave;
    const int moeLayers = moeLayersOnStage(model, p, stage);
    double activations =
        inFlight * (layersOnStage(model.layers, p, stage) - moeLayers) * layerActivationBytes(model, config, s, b, t);
    if (moeLayers > 0)
        activations += inFlight * moeLayers * layerActivationBytes(model, config, s, b, t, true);
    if (config.recompute == workload::Recompute::Full) {
        // During backward one layer is re-run and holds its full activations (Korthikanti sec. 5).
        workload::TrainingConfig rerun = config;
        rerun.recompute = workload::Recompute::None;
        activations += layerActivationBytes(model, rerun, s, b, t, moeLayers > 0);
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
        temporary += params.total() * 2;
    }
    if (config.fp8 && !detail::frameworkProfile(config.framework).fusedFp8Casts) {
        // torchao casts a layer's weights (and their transposes) when it runs: two layers' worth at a time.
        const int layers = std::max(1, layersOnStage(model.layers, p, stage));
        temporary += 2 * 2 * fp8Layers / layers;
    }
    if (config.zeroStage >= 3) {
        // ZeRO-3 gathers each layer's weights before use; the current layer and a prefetched one.
        const double largest = moeLayers > 0 ? moeLayerSharedParamsPerGpu(model, t) +
                                                   double(model.experts) / par.ep * expertParamsPerGpu(model, t)
                                             : layerParamsPerGpu(model, t);
        temporary += 2 * std::max(largest, layerParamsPerGpu(model, t)) * bytes.weights;
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

void checkExpertLayout(const workload::ModelSpec& model, const Parallelism& par)
{
    detail::checkExpertParallelism(model, par);
}

void checkContextLayout(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                        const Parallelism& par)
{
    detail::checkContextParallelism(model, config, par);
}

void checkInterleaving(const workload::ModelSpec& model, const workload::TrainingConfig& config, const Parallelism& par)
{
    detail::checkVirtualStages(model, config, par.pp, detail::batchShape(model, config, par.dp).microBatches);
}

void checkLayout(const workload::ModelSpec& model, const workload::TrainingConfig& config, const Parallelism& par)
{
    workload::checkTrainingConfig(config);
    checkInterleaving(model, config, par);
    checkExpertLayout(model, par);
    checkContextLayout(model, config, par);
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
