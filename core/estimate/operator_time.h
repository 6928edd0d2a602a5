#pragma once

// Internal to core/estimate: the operator-level time of one transformer layer, the head and the
// embedding for one micro-batch on one GPU (docs/models/throughput.md, "Operator-level time").

#include "estimate/plan.h"
#include "hardware/gpu_curves.h"

#include <string_view>

namespace orrery::estimate::detail {

/** What a training framework changes in the time and the memory of a step (docs/models/throughput.md, "Framework
 * profiles"; the memory fields: docs/models/memory.md, "Where the peak is"). */
struct FrameworkProfile
{
    std::string_view name;
    /** Fused layer-norm, bias-dropout-add, bias-activation and scale-mask-softmax kernels (Megatron, TE). */
    bool fusedKernels = true;
    /** Host time to issue one operator: Python, the dispatcher, autograd (µs). */
    double hostOpUs = 20;
    /** Host time per iteration outside the layers: optimizer launch, logging, data loading (ms). */
    double iterationHostMs = 0;
    /** Whether the data-parallel gradient reduction runs under the backward pass (DDP buckets, overlap_comm). */
    bool overlapGradReduce = false;
    /** Adam/AdamW run as PyTorch's default multi-tensor ("foreach") step, a chain of element-wise passes,
     *  instead of one fused kernel (apex/DeepSpeed FusedAdam, Megatron, `fused=True`). */
    bool foreachAdam = false;
    /** The vocabulary is padded to a multiple of 128 (Megatron's make-vocab-size-divisible-by, litgpt's
     *  padded_vocab_size, llm-foundry's configs); eager Hugging Face and plain PyTorch models keep the
     *  tokenizer's size (GPT-2: 50,257, off the tensor cores' alignment). */
    bool padsVocab = true;
    /** LLaMA's RMSNorm and rotary embedding as separate eager kernels (Hugging Face's LlamaRMSNorm and
     *  rotate-half, torchtitan's 2024 models, a plain PyTorch model) rather than fused ones (litgpt's
     *  published runs use flash-attn's fused RMSNorm and rotary). */
    bool eagerLlamaOps = false;
    /** FP8 through Transformer Engine: the casts to FP8 fused into the norm and activation kernels, FP8 weight
     *  copies (and their transposes) cast once per iteration and kept; otherwise torchao-style dynamic scaling,
     *  an amax and a cast kernel per GEMM input and the weights re-cast every forward (docs/models/fp8.md). */
    bool fusedFp8Casts = false;
    /** Gradients stay allocated between steps, so they are there when the next backward pass starts: Megatron's
     *  and DeepSpeed's contiguous gradient buffers, and `zero_grad()` before PyTorch 2.0, which set gradients to
     *  zero (the Hugging Face Trainer rows). Otherwise `zero_grad(set_to_none=True)` frees them after the step and
     *  backward allocates them layer by layer as it frees the activations. */
    bool keepsGradients = true;
    /** The loss is `F.cross_entropy` on the head's output (log-softmax saved in the loss precision, its gradient
     *  and the logits' gradient allocated at the start of backward) rather than Megatron's vocab-parallel cross
     *  entropy, which works in place of its fp32 softmax. */
    bool torchCrossEntropy = false;
    /** With torchCrossEntropy: the logits are cast to fp32 before the loss (torchtitan's `pred.float()`), so the
     *  log-softmax, its gradient and the logits' gradient are all fp32. */
    bool upcastsLogits = false;
    /** Transformer Engine runs the linear layers' GEMMs (Megatron-Core's default `--transformer-impl`): it allocates
     *  its own cuBLAS workspace, and one more per extra stream for grouped GEMMs (an MoE layer's experts), through
     *  PyTorch's caching allocator (docs/models/memory.md, "Library workspaces"). */
    bool transformerEngineGemms = false;
    /** Attention runs FlashAttention-2 kernels (PyTorch SDPA's flash backend, the flash-attn 2 package) rather than
     *  Transformer Engine's cuDNN fused attention; on Hopper they reach GpuCurves::flash2Efficiency of the GEMM rate.
     */
    bool flash2Attention = false;
    /** Context parallelism is PyTorch's experimental ring attention as torchtitan ran it in 2024: key and value heads
     *  repeated to the query heads before attention (so the ring passes h-wide K and V), each step's output merged
     *  into an fp32 accumulator, dK and dV accumulated and passed in fp32 (docs/models/context-parallel.md). */
    bool torchContextParallel = false;
};

const FrameworkProfile& frameworkProfile(workload::Framework framework);

/** The rates one GPU type runs kernels at, in the compute precision. */
struct KernelRates
{
    double gemmFlops = 0;    ///< large-GEMM rate, FLOP/s (peak x library efficiency)
    double bytesPerS = 0;    ///< streaming bandwidth, B/s
    double waveTiles = 0;    ///< output tiles one wave of a GEMM covers (SMs)
    double tile = 128;       ///< tile edge
    double halfK = 48;       ///< reduction depth of half efficiency
    double launchGapS = 0;   ///< GPU-side gap per kernel
    double elementBytes = 2; ///< activation element
    double misaligned = 0.5; ///< rate factor of a GEMM with a dimension off the 16-byte alignment
    double fp8Speedup = 0;   ///< FP8 GEMM rate over gemmFlops; 0: no FP8 tensor cores
    double flash2 = 0;       ///< FlashAttention-2's rate over gemmFlops; 0: the GEMM curve of its tiles
};

KernelRates kernelRates(const hardware::GpuType& gpu, workload::Precision precision);

/**
 * Whether a GEMM runs on the fast tensor-core kernels: every dimension a multiple of 16 bytes of elements
 * (they load 16-byte vectors; otherwise the library falls back to slower kernels). fp32 SGEMM runs on the
 * CUDA cores, which have no such requirement.
 */
bool tensorCoreAligned(double m, double n, double k, double elementBytes);

/**
 * Seconds of `batch` GEMMs of shape (m x k) . (k x n): saturating efficiency, roofline with a memory floor,
 * slower fallback kernels when a dimension is off the 16-byte alignment unless the kernel pads its tiles
 * (`padsShapes`: attention kernels round the head dimension up, e.g. LLaMA-3B's 100 to 128).
 */
double gemmS(const KernelRates& r, double m, double n, double k, double batch = 1, bool padsShapes = false);

/** One micro-batch on one GPU of a tp group: GPU time of each pass and the host time of all of them. */
struct PassTimes
{
    double forwardS = 0;
    double backwardS = 0;          ///< gradient pass only
    double recomputeS = 0;         ///< forward work re-run during backward
    double hostS = 0;              ///< CPU time to issue forward + backward + recomputation
    int kernels = 0;               ///< GPU kernels of forward + backward + recomputation
    double attentionForwardS = 0;  ///< part of forwardS: the attention kernels (what ring attention overlaps)
    double attentionBackwardS = 0; ///< part of backwardS: the attention kernels
    double gpuS() const { return forwardS + backwardS + recomputeS; }
    /** The pass cannot run faster than the host issues it. */
    double wallS() const { return gpuS() > hostS ? gpuS() : hostS; }
};

/**
 * One transformer layer. `moe`: an MoE layer of an MoE model, its experts split over `ep` ranks: the router, the
 * token permutation and the grouped expert GEMMs replace the MLP (docs/models/moe.md); the all-to-all exchange
 * is the caller's (it depends on the links). `seq` is the rank's share of the sequence; with context parallelism
 * `cp` > 1 its queries attend to the keys of all cp chunks (ring attention: cp flash blocks of seq x seq); the key
 * and value exchange is the caller's.
 */
PassTimes layerPassTimes(const workload::ModelSpec& model, const workload::TrainingConfig& config, double seq,
                         double microBatch, int tp, const KernelRates& rates, const FrameworkProfile& profile,
                         bool moe = false, int ep = 1, int cp = 1);
PassTimes headPassTimes(const workload::ModelSpec& model, const workload::TrainingConfig& config, double seq,
                        double microBatch, int tp, const KernelRates& rates, const FrameworkProfile& profile);
PassTimes embeddingPassTimes(const workload::ModelSpec& model, const workload::TrainingConfig& config, double seq,
                             double microBatch, int tp, const KernelRates& rates, const FrameworkProfile& profile);

} // namespace orrery::estimate::detail
