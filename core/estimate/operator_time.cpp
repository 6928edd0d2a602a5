#include "estimate/operator_time.h"

#include "estimate/model_terms.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace orrery::estimate::detail {

using workload::Framework;
using workload::Precision;
using workload::Recompute;

namespace {

// Host cost per operator and per iteration, and which kernels are fused: docs/models/throughput.md,
// "Framework profiles", gives each constant's source. Megatron's figures are fitted to the Megatron-Core
// functional tests of data/validation (single-node, small models: host-bound), the eager ones to the
// Hugging Face Trainer rows.
constexpr std::array kProfiles{
    FrameworkProfile{.name = "megatron",
                     .fusedKernels = true,
                     .hostOpUs = 130,
                     .iterationHostMs = 20,
                     .fusedFp8Casts = true,
                     .transformerEngineGemms = true},
    FrameworkProfile{.name = "deepspeed",
                     .fusedKernels = true,
                     .hostOpUs = 30,
                     .iterationHostMs = 20,
                     .overlapGradReduce = true,
                     .fusedFp8Casts = true},
    FrameworkProfile{.name = "fsdp",
                     .fusedKernels = false,
                     .hostOpUs = 25,
                     .iterationHostMs = 10,
                     .overlapGradReduce = true,
                     .eagerLlamaOps = true,
                     .keepsGradients = false,
                     .torchCrossEntropy = true,
                     .upcastsLogits = true,
                     .flash2Attention = true,
                     .torchContextParallel = true},
    FrameworkProfile{.name = "hf",
                     .fusedKernels = false,
                     .hostOpUs = 30,
                     .iterationHostMs = 40,
                     .overlapGradReduce = true,
                     .padsVocab = false,
                     .eagerLlamaOps = true,
                     .torchCrossEntropy = true,
                     .flash2Attention = true},
    FrameworkProfile{.name = "litgpt",
                     .fusedKernels = false,
                     .hostOpUs = 25,
                     .iterationHostMs = 10,
                     .overlapGradReduce = true,
                     .keepsGradients = false,
                     .flash2Attention = true},
    FrameworkProfile{.name = "pytorch",
                     .fusedKernels = false,
                     .hostOpUs = 22,
                     .iterationHostMs = 3,
                     .overlapGradReduce = true,
                     .foreachAdam = true,
                     .padsVocab = false,
                     .eagerLlamaOps = true,
                     .keepsGradients = false,
                     .torchCrossEntropy = true,
                     .flash2Attention = true},
};

bool causal(const workload::ModelSpec& model)
{
    return model.family != "bert" && model.family != "vit";
}

/** Memory-bound kernels: bytes moved and kernel count of one pass. */
struct Stream
{
    double bytes = 0;
    int kernels = 0;
    void add(double b, int k = 1)
    {
        bytes += b;
        kernels += k;
    }
};

double streamS(const KernelRates& r, const Stream& s)
{
    return s.bytes / r.bytesPerS + s.kernels * r.launchGapS;
}

} // namespace

const FrameworkProfile& frameworkProfile(Framework framework)
{
    return kProfiles[static_cast<std::size_t>(framework)];
}

KernelRates kernelRates(const hardware::GpuType& gpu, Precision precision)
{
    const hardware::GpuCurves& c = hardware::curvesFor(gpu);
    KernelRates r;
    // fp32 training runs SGEMM on the CUDA cores (PyTorch leaves TF32 matmuls off by default since 1.12).
    r.gemmFlops = precision == Precision::FP32 ? gpu.fp32TFlops * 1e12 * c.fp32GemmEfficiency
                                               : gpu.fp16TFlops * 1e12 * c.gemmEfficiency;
    r.bytesPerS = gpu.memoryBandwidthGBps * 1e9 * c.memoryEfficiency;
    r.waveTiles = c.sms;
    r.tile = c.tile;
    r.halfK = c.halfK;
    r.launchGapS = c.kernelFloorUs * 1e-6;
    r.elementBytes = elementBytes(precision);
    r.misaligned = c.misalignedGemmEfficiency;
    r.fp8Speedup = precision == Precision::FP32 ? 0.0 : c.fp8GemmSpeedup;
    r.flash2 = c.flash2Efficiency;
    return r;
}

bool tensorCoreAligned(double m, double n, double k, double elementBytes)
{
    const double align = 16 / elementBytes;
    return elementBytes >= 4 || (std::fmod(m, align) == 0 && std::fmod(n, align) == 0 && std::fmod(k, align) == 0);
}

double gemmS(const KernelRates& r, double m, double n, double k, double batch, bool padsShapes)
{
    if (m <= 0 || n <= 0 || k <= 0 || batch <= 0)
        return 0;
    // Output tiles fill the SMs in waves: a GEMM with few tiles leaves SMs idle for part of its run
    // (smoothed wave quantisation); a short reduction pays the main loop's prologue and epilogue.
    const double tiles = std::max(1.0, m / r.tile) * std::max(1.0, n / r.tile) * batch;
    const double fill = tiles / (tiles + 0.25 * r.waveTiles);
    const double depth = k / (k + r.halfK);
    const bool aligned = padsShapes || tensorCoreAligned(m, n, k, r.elementBytes);
    const double compute = 2 * m * n * k * batch / (r.gemmFlops * fill * depth * (aligned ? 1.0 : r.misaligned));
    const double memory = r.elementBytes * (m * k + k * n + m * n) * batch / r.bytesPerS;
    return std::max(compute, memory) + r.launchGapS;
}

PassTimes layerPassTimes(const workload::ModelSpec& model, const workload::TrainingConfig& config, double seq,
                         double microBatch, int tp, const KernelRates& r, const FrameworkProfile& profile, bool moe,
                         int ep, int cp)
{
    moe = moe && model.isMoe();
    const double s = seq, b = microBatch, t = tp, T = s * b;
    const double h = model.hidden, a = model.heads, d = model.headDim();
    const double kv = double(model.kvHeads) * d, f = model.ffnHidden;
    const double e = r.elementBytes;
    const bool sp = config.sequenceParallel && tp > 1;
    const double hs = h / (sp ? t : 1); // replicated activations, split by sequence parallelism
    const bool amp = config.autocast && config.precision != Precision::FP32;
    const double eRes = amp ? 4 : e; // the residual stream under autocast is fp32
    const bool dropout = hasDropout(model);
    const bool flash = config.flashAttention;
    const bool fused = profile.fusedKernels;

    // GEMMs of the forward pass (per GPU of the tp group); backward runs each twice (data and weight
    // gradients) with the roles of the dimensions exchanged.
    struct Shape
    {
        double m, n, k, batch;
    };
    const double up = (model.gatedMlp ? 2 : 1) * f / t;
    std::array<Shape, 5> dense{{{T, (h + 2 * kv) / t, h, 1}, {T, h, h / t, 1}, {T, up, h, 1}, {T, h, f / t, 1}}};
    // MoE layer: the router's (T x E x h) GEMM on the rank's tokens (split by sequence parallelism), then each of
    // the E / ep local experts runs its share of the k T tokens the rank receives (k T ep / E on average, as the
    // load-balancing loss keeps the experts even; padded to the capacity when there is one) through its MLP,
    // gathered over the tp group: a grouped GEMM (Megatron-Core's TE GroupedLinear, one GEMM per local expert).
    const double localExperts = moe ? double(model.experts) / ep : 0.0;
    const double fT = moe ? routedTokenFactor(model) * model.expertFfn() : f; // MLP width x tokens, per token
    if (moe) {
        const double fe = model.expertFfn();
        const double tokensPerExpert = routedTokenFactor(model) * T / localExperts;
        const double upE = (model.gatedMlp ? 2 : 1) * fe / t;
        dense[2] = {tokensPerExpert, upE, h, localExperts};
        dense[3] = {tokensPerExpert, h, fe / t, localExperts};
        dense[4] = {T / (sp ? t : 1), double(model.experts), h, 1};
    }
    // FP8 training: the four linear GEMMs (and their backward) at the GPU's fp8 rate on 1-byte operands; the
    // router stays in the compute precision (docs/models/fp8.md).
    const bool fp8 = config.fp8 && r.fp8Speedup > 0;
    KernelRates r8 = r;
    if (fp8) {
        r8.gemmFlops = r.gemmFlops * r.fp8Speedup;
        r8.elementBytes = 1;
    }
    double gemmFwd = 0, gemmBwd = 0;
    for (std::size_t i = 0; i < dense.size(); ++i) {
        const Shape& g = dense[i];
        if (g.m <= 0)
            continue;
        const KernelRates& rg = i < 4 ? r8 : r;
        gemmFwd += gemmS(rg, g.m, g.n, g.k, g.batch);
        gemmBwd += gemmS(rg, g.m, g.k, g.n, g.batch) + gemmS(rg, g.k, g.n, g.m, g.batch);
    }
    double attnFwd = 0, attnBwd = 0;
    const double heads = b * a / t;
    if (flash) {
        // Flash attention: one kernel each way; the forward does Q K^T and P V (4 s^2 d per head), the
        // backward re-forms P and runs 5 products (2.5x the forward, Dao 2023); causal masking skips
        // the upper half of the blocks. Its tiles run at the large-GEMM rate over (s x s x d) shapes.
        // Ring attention (context parallelism) runs cp such blocks per pass, one per chunk of keys; Megatron-Core
        // splits the sequence into 2 cp chunks so that every rank has the same causal share.
        const double work = causal(model) ? 0.5 : 1.0;
        attnFwd = work * 2 * gemmS(r, s, s, d, heads * cp, true);
        // FlashAttention-2 on a part it was not written for (Hopper) runs at a fixed share of the GEMM rate
        // whatever the sequence (GpuCurves::flash2Efficiency), not at the GEMM curve of its tiles.
        if (profile.flash2Attention && r.flash2 > 0)
            attnFwd = work * 2 * (2 * s * s * d * heads * cp / (r.gemmFlops * r.flash2) + r.launchGapS);
        attnBwd = 2.5 * attnFwd;
    } else {
        attnFwd = gemmS(r, s, s, d, heads, true) + gemmS(r, s, d, s, heads, true);
        attnBwd = 2 * attnFwd;
    }

    // Memory-bound kernels of the forward pass: bytes and kernel counts. The backward reads the saved
    // input and the incoming gradient and writes the outgoing gradient: twice the forward's traffic.
    Stream fwd;
    const double dropMask = dropout ? 1.0 : 0.0;
    if (fused) {
        fwd.add(2 * 2 * eRes * hs * T, 2);                     // 2 layer norms (read, write)
        fwd.add(2 * (3 * eRes + dropMask) * hs * T, 2);        // 2 bias-dropout-add (x, residual -> out, mask)
        fwd.add((model.gatedMlp ? 3 : 2) * e * fT / t * T, 1); // bias-activation (or SwiGLU)
    } else {
        if (model.family == "llama" && profile.eagerLlamaOps) {
            // Eager RMSNorm (Hugging Face's LlamaRMSNorm, litgpt's): upcast to fp32, square, mean, scale by
            // the reciprocal root, cast back, multiply by the weight. In fp32 (autocast's residual) the two
            // casts are no-ops: 4 kernels and 28 bytes per element; from bf16, 6 kernels and 28 + 4e.
            const bool wide = eRes == 4;
            fwd.add(2 * (wide ? 28 : 28 + 4 * eRes) * hs * T, 2 * (wide ? 4 : 6));
        } else {
            fwd.add(2 * 2 * eRes * hs * T, 2); // 2 layer norms (one native kernel each)
        }
        fwd.add(2 * ((dropout ? 2 * e + 1 : 0) + 3 * eRes) * hs * T, dropout ? 4 : 2); // dropout, residual add
        fwd.add((model.gatedMlp ? 5 : 2) * e * fT / t * T, model.gatedMlp ? 2 : 1);    // activation (and gate product)
        fwd.add(2 * e * (h + 2 * kv) / t * T + 2 * e * h / t * T, 4);                  // head split/merge copies
    }
    // Rotary embedding of q and k: one fused kernel, or eager rotate-half (x cos, the negated half, the
    // concatenation, x sin, the sum: 10 bytes per element of each kind, 5 kernels each).
    const bool eagerRope = !fused && profile.eagerLlamaOps;
    // MPT has no position embedding at all (ALiBi biases the scores inside its attention kernel).
    if (model.positions == 0 && model.family != "mpt")
        fwd.add((eagerRope ? 10 : 2) * e * (h + kv) / t * T, fused ? 1 : eagerRope ? 10 : 6);
    if (!flash) {
        // s^2 scores per head: scale + mask + softmax (fused: one kernel; eager: three, softmax in fp32
        // under autocast), then attention dropout.
        const double scores = a / t * s * T;
        if (fused)
            fwd.add(2 * e * scores, 1);
        else
            fwd.add((2 * e + 2 * e + (amp ? e + 4 : 2 * e)) * scores, 3);
        if (dropout)
            fwd.add((2 * e + 1) * scores, 1);
    }
    if (amp) {
        // Autocast casts each weight to half once per forward (and the cast is re-run in a recomputed pass).
        const double weights =
            moe ? moeLayerSharedParamsPerGpu(model, tp) + localExperts * expertParamsPerGpu(model, tp)
                : layerParamsPerGpu(model, tp);
        fwd.add(6 * weights, 6);
    }
    if (fp8) {
        // Each linear GEMM's input is cast to FP8 (read in the compute precision, write 1 byte): the norm outputs
        // (h wide), the attention output (h / t) and the activation output (f / t). Transformer Engine fuses the
        // casts into the norm and activation kernels (one separate cast, the attention output's); torchao runs an
        // amax and a cast kernel per input and re-casts the layer's weights (read 2 + amax 2, write 1 bytes per
        // parameter) every forward. The backward's gradient casts come with the doubled backward traffic.
        const double castBytes = (e + 1) * T * (2 * h + h / t + fT / t);
        if (profile.fusedFp8Casts) {
            fwd.add(castBytes, 1);
        } else {
            const double weights =
                moe ? moeLayerSharedParamsPerGpu(model, tp) + localExperts * expertParamsPerGpu(model, tp)
                    : layerParamsPerGpu(model, tp);
            fwd.add(castBytes, 8);
            fwd.add(5 * weights, 8);
        }
    }
    // Ring attention issues one attention kernel and one send/receive per step.
    int gemmKernels = 4 + (flash ? 1 : 2) * cp + (cp > 1 ? cp - 1 : 0) + (tp > 1 ? 2 : 0);
    if (moe) {
        // Router: softmax, top-k and the load-balancing loss over the fp32 logits (T x E). Dispatch: permute the
        // k copies of each token by expert and unpermute them after the experts, each reading and writing
        // k T h elements (one fused kernel each with Megatron-Core's permute fusion, several in eager code).
        const double rankTokens = T / (sp ? t : 1);
        fwd.add(3 * 4 * rankTokens * model.experts, fused ? 3 : 6);
        fwd.add(2 * 2 * e * routedTokenFactor(model) * T * h, fused ? 2 : 6);
        // GEMMs: the two MLP GEMMs become one per local expert, plus the router's; the dispatch and combine
        // all-to-alls (and their gather/scatter over the tp group) are operators the host issues too.
        gemmKernels += 2 * (int(localExperts) - 1) + 1 + (ep > 1 ? 2 : 0) + (tp > 1 ? 2 : 0);
    }

    PassTimes out;
    out.attentionForwardS = attnFwd;
    out.attentionBackwardS = attnBwd;
    out.forwardS = gemmFwd + attnFwd + streamS(r, fwd);
    Stream bwd{2 * fwd.bytes, 2 * fwd.kernels};
    out.backwardS = gemmBwd + attnBwd + streamS(r, bwd);
    const int fwdKernels = fwd.kernels + gemmKernels;
    const int bwdKernels = bwd.kernels + 2 * gemmKernels;
    out.kernels = fwdKernels + bwdKernels;
    double hostOps = fwdKernels + bwdKernels;
    switch (config.recompute) {
    case Recompute::None:
        break;
    case Recompute::Selective: {
        // The attention core is re-run: its products and, without flash, the score kernels.
        Stream core;
        if (!flash) {
            const double scores = a / t * s * T;
            core.add((fused ? 2 * e : 6 * e) * scores, fused ? 1 : 3);
            if (dropout)
                core.add((2 * e + 1) * scores, 1);
        }
        out.recomputeS = attnFwd + streamS(r, core);
        out.kernels += core.kernels + (flash ? 1 : 2);
        hostOps += core.kernels + (flash ? 1 : 2);
        break;
    }
    case Recompute::Full:
        out.recomputeS = out.forwardS;
        out.kernels += fwdKernels;
        hostOps += fwdKernels;
        break;
    case Recompute::SelectiveOp:
        // Every second matmul and all the memory-bound kernels are re-run; the attention output is saved.
        out.recomputeS = 0.5 * gemmFwd + streamS(r, fwd);
        out.kernels += fwd.kernels + 2;
        hostOps += fwd.kernels + 2;
        break;
    }
    out.hostS = hostOps * profile.hostOpUs * 1e-6;
    return out;
}

PassTimes headPassTimes(const workload::ModelSpec& model, const workload::TrainingConfig& config, double seq,
                        double microBatch, int tp, const KernelRates& r, const FrameworkProfile& profile)
{
    const double vocab = profile.padsVocab ? std::ceil(model.vocab / 128.0) * 128 : model.vocab;
    const double T = seq * microBatch, h = model.hidden, V = vocab / tp;
    const double e = r.elementBytes;
    PassTimes out;
    // Final norm, the logits GEMM, then cross-entropy: the logits are read and an fp32 softmax written
    // (fused in Megatron's vocab-parallel cross entropy, several kernels in eager code); the backward
    // turns the softmax into the logits' gradient in place.
    Stream fwd;
    fwd.add(2 * e * h * T, 1);
    fwd.add((profile.fusedKernels ? e + 4 : 2 * e + 3 * 4) * V * T, profile.fusedKernels ? 2 : 5);
    Stream bwd;
    bwd.add(2 * 2 * e * h * T, 1);
    bwd.add((4 + e) * V * T, profile.fusedKernels ? 1 : 3);
    out.forwardS = gemmS(r, T, V, h) + streamS(r, fwd);
    out.backwardS = gemmS(r, T, h, V) + gemmS(r, h, V, T) + streamS(r, bwd);
    out.kernels = fwd.kernels + bwd.kernels + 3;
    out.hostS = out.kernels * profile.hostOpUs * 1e-6;
    (void)config;
    return out;
}

PassTimes embeddingPassTimes(const workload::ModelSpec& model, const workload::TrainingConfig& config, double seq,
                             double microBatch, int tp, const KernelRates& r, const FrameworkProfile& profile)
{
    const double T = seq * microBatch, h = model.hidden;
    const double e = r.elementBytes;
    PassTimes out;
    // Gather rows (plus positions and dropout); the backward scatters the rows' gradients into the table.
    Stream fwd;
    fwd.add(3 * e * h * T, (model.positions > 0 ? 2 : 1) + (hasDropout(model) ? 1 : 0));
    Stream bwd;
    bwd.add(4 * e * h * T, 2);
    out.forwardS = streamS(r, fwd);
    out.backwardS = streamS(r, bwd);
    out.kernels = fwd.kernels + bwd.kernels;
    out.hostS = out.kernels * profile.hostOpUs * 1e-6;
    (void)config;
    (void)tp;
    return out;
}

} // namespace orrery::estimate::detail
