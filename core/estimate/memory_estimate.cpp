#include "estimate/model_terms.h"
#include "estimate/operator_time.h"
#include "hardware/gpu_curves.h"
#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace orrery::estimate {

namespace detail {

double contextBytes(const Parallelism& par)
{
    // CUDA context + kernels + cuBLAS workspace, and NCCL's buffers once there is a communicator.
    const double context = 0.5 * kGiB;
    const double nccl = par.gpus() > 1 ? 0.5 * kGiB : 0.0;
    return context + nccl;
}

double libraryWorkspaceBytes(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                             const hardware::GpuType* gpu)
{
    constexpr double kMiB = 1024.0 * 1024.0;
    // Without a GPU type the pre-Hopper sizes (the smaller ones) are counted.
    const int major = gpu ? hardware::computeCapabilityMajor(*gpu) : 8;
    // PyTorch's cuBLAS workspace, one per (handle, stream) that runs a matmul, allocated through the caching
    // allocator: CUBLAS_WORKSPACE_CONFIG's default, ":4096:8" (32 MiB) on sm90, ":4096:2:16:8" (8 MiB + 128 KiB)
    // otherwise (aten/src/ATen/cuda/CublasHandlePool.cpp). A training step has two: the forward thread's and the
    // autograd engine's (64 MiB of max_memory_allocated on our H100 and H200 rows, docs/models/memory.md).
    const double torchWorkspace = major == 9 ? 32 * kMiB : 8 * kMiB + 128 * 1024.0;
    double bytes = 2 * torchWorkspace;
    if (frameworkProfile(config.framework).transformerEngineGemms) {
        // Transformer Engine's own (get_cublas_workspace_size_bytes: 32 MiB from compute capability 9, else 4 MiB),
        // and for grouped GEMMs one per extra cuBLAS stream (get_multi_stream_cublas_workspace: 4 streams).
        constexpr int kTeGroupedGemmStreams = 4;
        const double teWorkspace = major >= 9 ? 32 * kMiB : 4 * kMiB;
        bytes += teWorkspace * (1 + (model.isMoe() ? kTeGroupedGemmStreams : 0));
    }
    return bytes;
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
                               const Parallelism& par, const BatchShape& shape, int stage, const hardware::GpuType* gpu)
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
    const FrameworkProfile& profile = frameworkProfile(config.framework);
    // Saved for backward when the forward pass ends: the layers' activations of the micro-batches in flight and the
    // embedding's dropout mask.
    double saved =
        inFlight * (layersOnStage(model.layers, p, stage) - moeLayers) * layerActivationBytes(model, config, s, b, t);
    if (moeLayers > 0)
        saved += inFlight * moeLayers * layerActivationBytes(model, config, s, b, t, true);
    if (stage == 0 && hasDropout(model))
        saved += inFlight * s * b * h / spDiv; // embedding dropout mask (Korthikanti sec. 4.3)
    // The final norm, the head and the loss (last stage): what they save, what lives only during the forward pass
    // and what the start of backward allocates. All of it is gone before backward reaches the layers.
    double lossSaved = 0, lossForward = 0, lossBackward = 0;
    if (stage == p - 1) {
        lossSaved = 2 * e * s * b * h / spDiv; // final norm input and head input (Korthikanti sec. 4.3)
        if (eagerRmsNorm(model, config))
            lossSaved += 4 * s * b * h / spDiv; // the final eager RMSNorm's fp32 tensor (layerActivationBytes)
        const double logits = s * b * V / t;
        if (profile.torchCrossEntropy) {
            // F.cross_entropy saves its log-softmax in the loss precision (fp32 under autocast, which reads the
            // half logits and writes fp32 in one kernel, or when the framework casts the logits first); the
            // head's half logits (and the fp32 copy) live until the forward returns. Backward allocates the
            // gradient of the log-softmax (loss precision) and of its input while the saved log-softmax is alive.
            const double lossBytes = amp || profile.upcastsLogits ? 4 : e;
            const double inputBytes = profile.upcastsLogits ? 4 : e;
            lossSaved += lossBytes * logits;
            lossForward = (e + (profile.upcastsLogits ? 4 : 0)) * logits;
            lossBackward = (lossBytes + inputBytes) * logits;
        } else {
            // Megatron's vocab-parallel cross entropy keeps the fp32 softmax (Korthikanti sec. 4.3: 4sbv/t) and
            // computes the loss's gradient in its place; the head's backward needs it cast to the compute
            // precision: e sbv/t on top. Under autocast the fp32 gradient is a new tensor.
            lossSaved += 4 * logits;
            lossBackward = (amp ? 4 : e) * logits;
        }
    }
    const bool full = config.recompute == workload::Recompute::Full;
    // Autocast caches the half copy of every weight it casts until the forward's autocast region ends, and the
    // linear layers save those copies for backward. Under full recomputation the checkpointed layers save
    // nothing: only the head's copy lives into backward, and each layer's copies are made again when it is re-run.
    const double headParams = stage == p - 1 ? V * h / t : 0.0;
    const double castsForward = amp ? 2 * params.total() : 0.0;
    const double castsBackward = amp && full ? 2 * headParams : castsForward;
    double transient = 0;
    if (config.fp8 && !profile.fusedFp8Casts) {
        // torchao casts a layer's weights (and their transposes) when it runs: two layers' worth at a time.
        const int layers = std::max(1, layersOnStage(model.layers, p, stage));
        transient += 2 * 2 * fp8Layers / layers;
    }
    if (config.zeroStage >= 3) {
        // ZeRO-3 gathers each layer's weights before use; the current layer and a prefetched one.
        const double largest = moeLayers > 0 ? moeLayerSharedParamsPerGpu(model, t) +
                                                   double(model.experts) / par.ep * expertParamsPerGpu(model, t)
                                             : layerParamsPerGpu(model, t);
        transient += 2 * std::max(largest, layerParamsPerGpu(model, t)) * bytes.weights;
    }
    // Gradients exist when backward starts if the framework keeps them between steps or if earlier micro-batches
    // of the step (gradient accumulation) have produced them; otherwise backward creates them as it frees the
    // activations, and they meet all of them only in the optimizer step.
    const double gradients = m.gradientsGiB * kGiB;
    const double gradientsAtBackward = profile.keepsGradients || shape.microBatches > 1 ? gradients : 0.0;
    // PyTorch's multi-tensor (foreach) Adam/AdamW takes the square root of the second moments into a new list of
    // tensors before dividing by it: one moment's worth beside the weights, gradients and states.
    const bool adam = config.optimizer == workload::Optimizer::Adam || config.optimizer == workload::Optimizer::AdamW;
    const double optimizerTemporary =
        profile.foreachAdam && adam && !config.offloadOptimizer ? sharded(pureHalfStates(config) ? e : 4.0, 1) : 0.0;

    // The step's candidate peaks above the weights and optimizer states (docs/models/memory.md, "Where the
    // peak is"): the end of the forward pass, the start of backward, the re-run of a layer under full
    // recomputation and the optimizer step. The breakdown is the one of the largest.
    struct Phase
    {
        double activations = 0, temporary = 0, gradients = 0;
        double total() const { return activations + temporary + gradients; }
    };
    std::array<Phase, 4> phases{{
        {saved + lossSaved, lossForward + castsForward + transient, gradientsAtBackward},
        {saved + lossSaved, lossBackward + castsBackward + transient, gradientsAtBackward},
        {0, 0, 0},
        {0, optimizerTemporary, gradients},
    }};
    if (full) {
        // During backward one layer is re-run and holds its full activations (Korthikanti sec. 5), after the
        // loss's tensors are gone, with its weights cast again under autocast.
        workload::TrainingConfig rerun = config;
        rerun.recompute = workload::Recompute::None;
        const double layer = moeLayers > 0 ? moeLayerSharedParamsPerGpu(model, t) +
                                                 double(model.experts) / par.ep * expertParamsPerGpu(model, t)
                                           : layerParamsPerGpu(model, t);
        phases[2] = {saved + layerActivationBytes(model, rerun, s, b, t, moeLayers > 0),
                     (amp ? 2 * layer : 0.0) + transient, gradientsAtBackward};
    }
    const Phase peak = *std::max_element(phases.begin(), phases.end(),
                                         [](const Phase& x, const Phase& y) { return x.total() < y.total(); });
    // The caching allocator keeps freed blocks of the per-step allocations (activations and transient buffers
    // churn every step, the states do not) and rounds requests up; measured peaks exceed the sum of live tensors
    // by roughly a tenth of the largest churn (docs/models/memory.md, "Allocator slack").
    double churn = 0;
    for (const Phase& phase : phases)
        churn = std::max(churn, phase.activations + phase.temporary);
    const double slack = kAllocatorSlack * churn;
    m.gradientsGiB = peak.gradients / kGiB;
    m.activationsGiB = peak.activations / kGiB;
    m.contextGiB = contextBytes(par) / kGiB;
    m.slackGiB = slack / kGiB;
    // The libraries' workspaces live from the first GEMM on and do not churn: no slack on them.
    m.overheadGiB = m.contextGiB + (peak.temporary + slack + libraryWorkspaceBytes(model, config, gpu)) / kGiB;
    return m;
}

} // namespace

MemoryBreakdown estimateMemory(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                               const Parallelism& par, MemoryMode mode)
{
    return estimateMemory(model, config, par, nullptr, mode);
}

MemoryBreakdown estimateMemory(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                               const Parallelism& par, const hardware::GpuType* gpu, MemoryMode mode)
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
        const MemoryBreakdown m = stageBreakdown(model, config, par, shape, stage, gpu);
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
                                    const Parallelism& par, int stage, const hardware::GpuType* gpu)
{
    validate(model, config, par);
    if (stage < 0 || stage >= par.pp)
        throw Error("", "stage", fmt::format("stage {} is outside 0..{} (pp = {})", stage, par.pp - 1, par.pp));
    return stageBreakdown(model, config, par, batchShape(model, config, par.dp), stage, gpu);
}

} // namespace orrery::estimate
