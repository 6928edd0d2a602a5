#include "estimate/model_terms.h"
#include "estimate/operator_time.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace orrery::estimate {

using namespace detail;

double hardwareFlopsPerIteration(const workload::ModelSpec& model, const workload::TrainingConfig& config)
{
    // Narayanan et al. 2021, eq. (3): forward + backward = 3 forward passes; recomputation adds
    // the re-run part of a forward. For GPT shapes this is 72 B s l h^2 (1 + s/6h + V/12lh) without
    // recomputation and 96 B s l h^2 (1 + s/6h + V/16lh) with full recomputation.
    // An MoE layer counts its router and the top-k experts each token runs (docs/models/moe.md).
    const double s = config.seq > 0 ? config.seq : model.seq;
    const double tokens = double(config.globalBatch) * s;
    const auto layer = [&](bool moe) {
        return 3 * layerForwardFlopsPerToken(model, s, moe) +
               layerRecomputeFlopsPerToken(model, s, config.recompute, moe);
    };
    const int moeLayers = model.moeLayerCount();
    const double layers = (model.layers - moeLayers) * layer(false) + (moeLayers > 0 ? moeLayers * layer(true) : 0.0);
    return tokens * (layers + 3 * headForwardFlopsPerToken(model));
}

double modelFlopsPerIteration(const workload::ModelSpec& model, const workload::TrainingConfig& config)
{
    workload::TrainingConfig plain = config;
    plain.recompute = workload::Recompute::None;
    return hardwareFlopsPerIteration(model, plain);
}

namespace {

// ZeRO-Offload (Ren et al. 2021): PCIe 4.0 x16 sustains ~24 GB/s each way per GPU; the CPU Adam step
// streams its states at ~40 GB/s per GPU's share of the host's memory bandwidth (docs/models/throughput.md).
constexpr double kPcieBytesPerS = 24e9;
constexpr double kHostOptimizerBytesPerS = 40e9;
// PyTorch's multi-tensor AdamW (torch/optim/adamw.py, _multi_tensor_adamw) runs its update as a chain of
// foreach kernels: p *= 1 - lr wd; m.lerp_(g); v *= b2; v.addcmul_(g, g); d = sqrt(v); d /= c2; d += eps;
// p.addcdiv_(m, d). Counting each kernel's reads and writes, that is 4 passes over the weights, 2 over the
// gradients and 7 over each of m and v (d has their size): 4w + 2g + 14s bytes per parameter against the
// fused pass priced below, w + g + 2(m + v) = w + g + 4s: 40/12 with bf16 w, g, s and 80/24 with fp32 ones.
constexpr double kForeachAdamTraffic = 40.0 / 12.0;

// PyTorch's ring attention (torch/distributed/tensor/experimental/_attention.py, torch of 2024-12-23 as torchtitan's
// benchmark ran it), per ring step after the first, in bytes moved per element of the rank's attention output (T x h
// per GPU of the tp group), element size e. Forward: the step's output cast to fp32 (e + 4), the merge
// out - sigmoid(lse_b - lse) * (out - out_b) as three element-wise kernels on fp32 tensors (12 + 8 + 12), and the
// concatenation of the h-wide K and V sent to the next rank (read and write 2e each per element: 4e). Backward: dQ, dK
// and dV accumulated in fp32 from the step's half gradients (3 x (8 + e)), dK and dV concatenated in fp32 for the next
// rank (2 x 8) and copied again by the load-balanced layout's partial update (2 x 8; the slowest rank does it every
// step), and the K and V concatenation (4e).
constexpr double torchCpForwardStepBytes(double e)
{
    return (e + 4) + 12 + 8 + 12 + 4 * e;
}
constexpr double torchCpBackwardStepBytes(double e)
{
    return 3 * (8 + e) + 2 * 8 + 2 * 8 + 4 * e;
}

double peakFlops(const hardware::GpuType& gpu, workload::Precision precision)
{
    return (precision == workload::Precision::FP32 ? gpu.fp32TFlops : gpu.fp16TFlops) * 1e12;
}

/**
 * The link a data-parallel ring that spans nodes runs at. NCCL splits a collective over several rings
 * (channels), each crossing the node boundary on a different NIC, so a group with k ranks per node moves
 * data across the boundary at k times the per-GPU figure (the node's NICs shared by the t concurrent
 * groups of its tensor-parallel ranks), capped by the intra-node link its other hops use.
 */
hardware::Link dataParallelLink(const hardware::Link& interNode, const hardware::Link& intraNode, int t, int d,
                                int gpusPerNode)
{
    const int ranksPerNode = std::clamp(gpusPerNode / std::max(1, t), 1, d);
    hardware::Link link = interNode;
    link.bandwidthGBps =
        std::min(interNode.bandwidthGBps * ranksPerNode, std::max(interNode.bandwidthGBps, intraNode.bandwidthGBps));
    return link;
}

struct StageGpu
{
    const hardware::GpuType* gpu = nullptr;
    hardware::Link intraNode;
};

ThroughputEstimate estimate(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                            const Parallelism& par, const std::vector<StageGpu>& stages,
                            const hardware::Link& interNode, int gpusPerNode, bool stagesOnSeparateNodes)
{
    if (par.dp < 1 || par.tp < 1 || par.pp < 1 || par.pp > model.layers)
        throw Error("", "parallelism", fmt::format("invalid layout dp={} tp={} pp={}", par.dp, par.tp, par.pp));
    if (config.globalBatch < 1)
        throw Error("", "batch", fmt::format("the global batch must be >= 1 (got {})", config.globalBatch));
    if (config.virtualStages < 1)
        throw Error("", "virtual_stages", fmt::format("expected a positive integer, got {}", config.virtualStages));
    checkExpertParallelism(model, par);
    checkContextParallelism(model, config, par);
    // Options meaningless where set (fp32 gradients or pure half under fp32 training) the estimators ignore, as
    // TrainingConfig documents; what they cannot price (FP8 under fp32) they refuse, with the front ends' words.
    workload::TrainingConfig checked = config;
    checked.fp32Grads = checked.pureHalf = false;
    workload::checkTrainingConfig(checked);
    const int t = par.tp, d = par.dp, p = par.pp, ep = par.ep, cp = par.cp;
    // The ranks that hold the same weights and reduce their gradients: dp x cp (Megatron-Core's order tp, cp, dp).
    const int dr = d * cp;
    const BatchShape shape = batchShape(model, config, d);
    const int virtualStages = effectiveVirtualStages(model, config, p, shape.microBatches);
    // Per rank: its 1/cp of each sequence (context parallelism).
    const double s = double(shape.seq) / cp, b = shape.microBatch;
    const double tokens = s * b;
    const double e = elementBytes(config.precision);
    const bool full = config.recompute == workload::Recompute::Full;
    const FrameworkProfile& profile = frameworkProfile(config.framework);
    // Megatron's rank order: tp innermost, then dp, then pp.
    const bool tpCrossesNodes = t > gpusPerNode;
    const bool dpCrossesNodes = t * dr > gpusPerNode;
    const bool ppCrossesNodes = stagesOnSeparateNodes || t * dr >= gpusPerNode;
    const bool cpCrossesNodes = t * cp > gpusPerNode;
    const StateBytes bytes = stateBytes(config);

    double slowestMicroBatchS = 0, slowestDpS = 0, slowestStepS = 0, slowestBackwardS = 0, peakSum = 0;
    double slowestZero3ExposedS = 0; // per micro-batch
    for (int i = 0; i < p; ++i) {
        const hardware::GpuType& gpu = *stages[static_cast<std::size_t>(i)].gpu;
        const hardware::Link& intra = stages[static_cast<std::size_t>(i)].intraNode;
        const KernelRates rates = kernelRates(gpu, config.precision);
        checkGpuSupport(config, gpu);
        const int layers = layersOnStage(model.layers, p, i);
        const int moeLayers = moeLayersOnStage(model, p, i);
        const int denseLayers = layers - moeLayers;
        // Operator-level time of one micro-batch: every layer's GEMMs, attention and memory-bound kernels,
        // never faster than the host can issue them (docs/models/throughput.md); MoE layers with their router,
        // token permutation and local experts (docs/models/moe.md).
        const PassTimes layer = layerPassTimes(model, config, s, b, t, rates, profile, false, 1, cp);
        const PassTimes moeLayer =
            moeLayers > 0 ? layerPassTimes(model, config, s, b, t, rates, profile, true, ep, cp) : PassTimes{};
        double compute = denseLayers * layer.wallS() + moeLayers * moeLayer.wallS();
        double backward =
            denseLayers * (layer.backwardS + layer.recomputeS) + moeLayers * (moeLayer.backwardS + moeLayer.recomputeS);
        if (i == 0) {
            const PassTimes embedding = embeddingPassTimes(model, config, s, b, t, rates, profile);
            compute += embedding.wallS();
            backward += embedding.backwardS;
        }
        if (i == p - 1) {
            const PassTimes head = headPassTimes(model, config, s, b, t, rates, profile);
            compute += head.wallS();
            backward += head.backwardS;
        }
        // Megatron tensor parallelism: 2 all-reduces of the b s h activations forward, 2 backward, and 2
        // more when the forward is re-run (Shoeybi et al. 2019, fig. 4); sequence parallelism replaces each
        // by a reduce-scatter + all-gather of the same volume (Korthikanti sec. 4.2.2). A group larger than
        // a node runs its ring over the inter-node link, on one NIC per rank of the node.
        const hardware::Link tpLink = tpCrossesNodes ? dataParallelLink(interNode, intra, 1, t, gpusPerNode) : intra;
        const double tpCollectiveS = ringAllReduceS(e * tokens * model.hidden, t, tpLink);
        double tpS = denseLayers * (full ? 6 : 4) * tpCollectiveS;
        double expertExchangeS = 0;
        if (moeLayers > 0) {
            // An MoE layer's experts gather the k routed copies of the tokens over the tp group and
            // reduce-scatter their outputs (Megatron-Core's all-to-all dispatcher with tp > 1 requires sequence
            // parallelism): the MLP's collective carries k times the volume, the attention's is unchanged.
            const double routed = routedTokenFactor(model);
            tpS += moeLayers * (full ? 3 : 2) * (1 + routed) * tpCollectiveS;
            // Dispatch and combine: each rank sends the k copies of its T / t tokens to the ranks holding their
            // experts and gets them back, forward and backward (and once more in a recomputed forward). The ep
            // group is ep consecutive data-parallel ranks, t apart: gpusPerNode / t of them share a node and
            // exchange over NVLink, the rest cross the network, each rank on its own NIC.
            const int epPerNode = std::max(1, gpusPerNode / (t * cp));
            expertExchangeS = moeLayers * (full ? 6 : 4) *
                              allToAllS(e * routed * tokens * model.hidden / t, ep, epPerNode, intra, interNode);
        }
        // Pipeline: activation forward, its gradient backward; split t ways by the scatter/gather optimisation.
        // Interleaving sends each micro-batch across every rank v times (Narayanan et al. 2021, sec. 2.2.2).
        const double p2pS =
            p > 1 ? 2 * virtualStages * transferS(e * tokens * model.hidden / t, ppCrossesNodes ? interNode : intra)
                  : 0.0;
        // Context parallelism (ring attention, Liu et al. 2023; Megatron-Core through Transformer Engine): in each
        // of cp - 1 steps a rank passes the K and V of one chunk (its tokens' kv heads, split by tp) to the next
        // rank of the ring while it computes attention on the chunk it holds; backward passes K, V and their
        // gradients (twice the bytes). Only a transfer longer than its step's attention is exposed.
        // PyTorch's 2024 ring (FrameworkProfile::torchContextParallel) passes the K and V that torchtitan's model has
        // already repeated to every query head (h wide, not kv wide) and, backward, dK and dV in fp32; each step's
        // bookkeeping is memory-bound work on the rank's attention output (below).
        double contextExchangeS = 0;
        if (cp > 1) {
            const bool torchCp = profile.torchContextParallel;
            const double width = torchCp ? double(model.hidden) : double(model.kvHeads) * model.headDim();
            const hardware::Link& cpLink = cpCrossesNodes ? interNode : intra;
            const double stepS = transferS(2 * e * tokens * width / t, cpLink);
            const double backStepS = torchCp ? transferS(2 * (e + 4) * tokens * width / t, cpLink) : 2 * stepS;
            const double forwardExposed = (cp - 1) * std::max(0.0, stepS - layer.attentionForwardS / cp);
            const double backwardExposed = (cp - 1) * std::max(0.0, backStepS - layer.attentionBackwardS / cp);
            contextExchangeS = layers * ((full ? 2 : 1) * forwardExposed + backwardExposed);
            if (torchCp) {
                const double outputElements = tokens * model.hidden / t;
                const double bytes = (full ? 2 : 1) * torchCpForwardStepBytes(e) + torchCpBackwardStepBytes(e);
                contextExchangeS += layers * (cp - 1) * bytes * outputElements / rates.bytesPerS;
            }
        }
        slowestMicroBatchS = std::max(slowestMicroBatchS, compute + tpS + expertExchangeS + contextExchangeS + p2pS);
        slowestBackwardS = std::max(slowestBackwardS, backward);

        const StageParams params = stageParams(model, t, p, i, ep);
        const hardware::Link dpLink = dpCrossesNodes ? dataParallelLink(interNode, intra, t, dr, gpusPerNode) : intra;
        // The experts' gradients are reduced over the dp / ep ranks that hold the same experts, t x ep apart.
        const hardware::Link edpLink =
            dpCrossesNodes ? dataParallelLink(interNode, intra, t * ep, dr / ep, gpusPerNode) : intra;
        if (config.zeroStage >= 3 && dr > 1) {
            // ZeRO-3 / FSDP per layer and micro-batch: an all-gather of the layer's weights before its forward,
            // another before its backward, and a reduce-scatter of its gradients after it; each prefetched
            // under the neighbouring layer's compute, so only what the compute cannot cover is exposed
            // (a ring all-gather or reduce-scatter moves half an all-reduce's volume). An MoE layer gathers its
            // shared part over dp and its local experts over dp / ep.
            const auto exposedPerLayer = [&](const PassTimes& pass, double sharedParams, double expertParams) {
                const double gatherS = 0.5 * ringAllReduceS(sharedParams * bytes.weights, dr, dpLink) +
                                       0.5 * ringAllReduceS(expertParams * bytes.weights, dr / ep, edpLink);
                const double scatterS = 0.5 * ringAllReduceS(sharedParams * bytes.gradients, dr, dpLink) +
                                        0.5 * ringAllReduceS(expertParams * bytes.gradients, dr / ep, edpLink);
                const double forward = pass.wallS() * pass.forwardS / std::max(1e-30, pass.gpuS());
                const double backward = pass.wallS() - forward;
                return std::pair{std::max(0.0, gatherS - forward) + std::max(0.0, gatherS + scatterS - backward),
                                 gatherS};
            };
            const auto [denseExposed, denseGather] = exposedPerLayer(layer, layerParamsPerGpu(model, t), 0.0);
            double exposed = denseLayers * denseExposed + 2 * denseGather; // the first layer's gathers are bare
            if (moeLayers > 0)
                exposed += moeLayers * exposedPerLayer(moeLayer, moeLayerSharedParamsPerGpu(model, t),
                                                       double(model.experts) / ep * expertParamsPerGpu(model, t))
                                           .first;
            slowestZero3ExposedS = std::max(slowestZero3ExposedS, exposed);
        }
        // Data parallel: ring all-reduce of the gradients (ZeRO-1/2: reduce-scatter + all-gather, the same
        // volume; ZeRO-3 gathers the weights once more: 1.5x, Rajbhandari et al. sec. 7); the experts' over
        // their own group, after the dense part's.
        const double zero3 = config.zeroStage >= 3 ? 1.5 : 1.0;
        slowestDpS =
            std::max(slowestDpS, ringAllReduceS(params.dense * bytes.gradients * zero3, dr, dpLink) +
                                     ringAllReduceS(params.experts * bytes.gradients * zero3, dr / ep, edpLink));
        // Optimizer step: memory-bound pass over weights, gradients and (read + write) optimizer states.
        const double shard = config.zeroStage >= 1 ? params.dense / dr + params.experts / (dr / ep) : params.total();
        double stepS = shard * (bytes.weights + bytes.gradients + 2 * bytes.optimizer) / rates.bytesPerS;
        if (profile.foreachAdam &&
            (config.optimizer == workload::Optimizer::Adam || config.optimizer == workload::Optimizer::AdamW))
            stepS *= kForeachAdamTraffic;
        if (config.fp8 && profile.fusedFp8Casts) {
            // Transformer Engine casts the updated weights to FP8 (and transposes them) once per iteration:
            // read 2 bytes, write 1 + 1, per parameter of the layers.
            stepS += 4 * stageLayerParamsPerGpu(model, t, p, i, ep) / rates.bytesPerS;
        }
        if (config.offloadOptimizer) {
            // ZeRO-Offload: gradients down and updated weights up over PCIe, the step on the CPU.
            stepS = shard * (bytes.gradients + bytes.weights) / kPcieBytesPerS +
                    shard * (bytes.gradients + 2 * bytes.optimizer) / kHostOptimizerBytesPerS;
        }
        slowestStepS = std::max(slowestStepS, stepS);
        peakSum += peakFlops(gpu, config.precision);
    }
    // 1F1B: (m + p - 1) micro-batch slots at the pace of the slowest stage; the bubble is (p-1)/(m+p-1).
    // With p = 1 this is gradient accumulation: m micro-batches one after the other. Interleaved 1F1B with v
    // chunks per rank shrinks the bubble to (p - 1) / v slots (Narayanan et al. 2021, sec. 2.2.2).
    const double bubbleSlots = double(p - 1) / virtualStages;
    const double pipelineS = (shape.microBatches + bubbleSlots) * (slowestMicroBatchS + slowestZero3ExposedS);

    ThroughputEstimate out;
    // ZeRO-3 / FSDP gathers each layer's weights ahead of use and reduce-scatters its gradients during
    // backward (Rajbhandari et al. 2020 sec. 7; PyTorch FSDP prefetching): the data-parallel traffic runs
    // under the compute, and only what exceeds it is exposed. Frameworks that bucket the gradient
    // reduction into the backward pass (DDP, DeepSpeed overlap_comm) hide it under the last
    // micro-batch's backward. Megatron's default (2021) all-reduces after the backward pass.
    double dataParallelS = slowestDpS;
    if (config.zeroStage >= 3)
        dataParallelS = std::max(0.0, slowestDpS - pipelineS);
    else if (profile.overlapGradReduce)
        dataParallelS = std::max(0.0, slowestDpS - slowestBackwardS);
    out.iterationS = pipelineS + dataParallelS + slowestStepS + profile.iterationHostMs * 1e-3;
    const double samples = double(shape.microBatch) * shape.microBatches * d;
    const double n = par.gpus();
    out.samplesPerS = samples / out.iterationS;
    out.tokensPerS = out.samplesPerS * shape.seq;
    workload::TrainingConfig ran = config;
    ran.globalBatch = static_cast<int>(samples);
    ran.seq = shape.seq;
    out.tflopsPerGpu = hardwareFlopsPerIteration(model, ran) / out.iterationS / n / 1e12;
    out.mfu = modelFlopsPerIteration(model, ran) / out.iterationS / n / (peakSum / p);
    return out;
}

} // namespace

void checkGpuSupport(const workload::TrainingConfig& config, const hardware::GpuType& gpu)
{
    if (config.fp8 && hardware::curvesFor(gpu).fp8GemmSpeedup <= 0)
        throw Error("", "fp8", fmt::format("{} has no FP8 tensor cores", gpu.name));
}

ThroughputEstimate estimateThroughput(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                      const Parallelism& par, const PlanTarget& target)
{
    if (!target.gpu)
        throw Error("", "gpu", "no GPU type given");
    const std::vector<StageGpu> stages(static_cast<std::size_t>(std::max(1, par.pp)),
                                       StageGpu{target.gpu, target.intraNode});
    return estimate(model, config, par, stages, target.interNode, std::max(1, target.gpusPerNode), false);
}

ThroughputEstimate estimateThroughput(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                      const Parallelism& par, const hardware::GpuType& gpu,
                                      const hardware::Link& intraNode, const hardware::Link& interNode)
{
    PlanTarget target;
    target.gpu = &gpu;
    target.intraNode = intraNode;
    target.interNode = interNode;
    target.gpusPerNode = 8;
    return estimateThroughput(model, config, par, target);
}

ThroughputEstimate estimatePipelineThroughput(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                              const Parallelism& par,
                                              const std::vector<const hardware::GpuType*>& stageGpus,
                                              const hardware::Link& interNode, int gpusPerNode)
{
    if (static_cast<int>(stageGpus.size()) != par.pp)
        throw Error("", "stages", fmt::format("{} stage GPU types given for pp = {}", stageGpus.size(), par.pp));
    std::vector<StageGpu> stages;
    for (std::size_t i = 0; i < stageGpus.size(); ++i) {
        if (!stageGpus[i])
            throw Error("", fmt::format("stages[{}]", i), "no GPU type given");
        stages.push_back({stageGpus[i], stageGpus[i]->intraLink});
    }
    // Stages of different types sit on different nodes; keep that for every boundary, for comparability.
    return estimate(model, config, par, stages, interNode, std::max(1, gpusPerNode), true);
}

} // namespace orrery::estimate
