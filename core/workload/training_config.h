#pragma once

#include <string>
#include <tuple>

namespace orrery::workload {

enum class Precision { BF16, FP16, FP32 };
enum class Optimizer { Adam, AdamW, SGD, Adam8bit, Adafactor };
/** selective: Megatron's attention-core recomputation; selective_op: torchtitan's op-level policy (every second
 * matmul output and the attention output saved, the rest re-run); full: only each layer's input kept. */
enum class Recompute { None, Selective, Full, SelectiveOp };
/** The training framework: sets kernel fusion, host overheads and communication overlap (docs/models/throughput.md). */
enum class Framework { Megatron, DeepSpeed, Fsdp, HF, LitGpt, PyTorch };

std::string toString(Precision p);
std::string toString(Optimizer o);
std::string toString(Recompute r);
std::string toString(Framework f);
/** Parsers throw orrery::Error listing the accepted values. */
Precision precisionFromString(const std::string& s);
Optimizer optimizerFromString(const std::string& s);
Recompute recomputeFromString(const std::string& s);
Framework frameworkFromString(const std::string& s);

/** How one job trains: batch, sequence, numerics and memory-saving options. */
struct TrainingConfig
{
    int globalBatch = 8; ///< B, samples per iteration
    int microBatch = 0;  ///< b; 0 = B / dp (no gradient accumulation)
    int seq = 0;         ///< s; 0 = the model's default
    Precision precision = Precision::BF16;
    Optimizer optimizer = Optimizer::Adam;
    Recompute recompute = Recompute::None;
    int zeroStage = 0; ///< 0..3, over the data-parallel group
    bool flashAttention = false;
    bool sequenceParallel = false;
    /**
     * PyTorch AMP (autocast) rather than Megatron/DeepSpeed-style half precision: fp32 weights and
     * gradients, half copies of the weights cached during the step, norm and softmax outputs in fp32.
     * Only meaningful with bf16/fp16.
     */
    bool autocast = false;
    /**
     * Half-precision training that keeps its gradient buffer in fp32 (4 B per parameter instead of 2):
     * Megatron-Core's default for bf16 (`accumulate_allreduce_grads_in_fp32` / `grad_reduce_in_fp32`).
     * Default false: the DeepSpeed / Megatron-fp16 convention of half gradients. Ignored for fp32 and
     * autocast training, whose gradients are fp32 anyway.
     */
    bool fp32Grads = false;
    /** Who runs the step: megatron (default), deepspeed, fsdp (torchtitan style), hf (Trainer/Lightning), litgpt. */
    Framework framework = Framework::Megatron;
    /**
     * "bf16-true" / pure half training: weights, gradients and optimizer states all in the compute precision,
     * no fp32 master copy (litgpt's `--precision bf16-true`). Only meaningful with bf16/fp16 and no autocast.
     */
    bool pureHalf = false;
    /** Optimizer states (and the fp32 master weights) live in host memory and step on the CPU (ZeRO-Offload). */
    bool offloadOptimizer = false;
    /**
     * Interleaved 1F1B (Narayanan et al. 2021, sec. 2.2.2): each pipeline rank holds this many chunks of
     * layers (Megatron's virtual pipeline size); 1 is the plain 1F1B schedule.
     */
    int virtualStages = 1;
    /**
     * FP8 training (Transformer Engine's recipe; torchao Float8 for the eager frameworks): the transformer
     * layers' linear GEMMs run in FP8 at the GPU's fp8 curve, with FP8 copies of their weights; attention, the
     * head, the embedding and the element-wise kernels stay in the compute precision (bf16/fp16), as do the
     * master weights and optimizer states. Needs FP8 tensor cores (docs/models/fp8.md).
     */
    bool fp8 = false;

    bool operator==(const TrainingConfig&) const = default;
    /** Every field, for ordering and keying caches by the whole configuration: add new fields here too. */
    auto fields() const
    {
        return std::tie(globalBatch, microBatch, seq, precision, optimizer, recompute, zeroStage, flashAttention,
                        sequenceParallel, autocast, fp32Grads, framework, pureHalf, offloadOptimizer, virtualStages,
                        fp8);
    }
    bool operator<(const TrainingConfig& o) const { return fields() < o.fields(); }
};

/**
 * Throws orrery::Error when options contradict each other (fp32 gradients, pure half or FP8 with fp32 training;
 * pure half with autocast). The error's location is the option's scenario key (`fp32_grads`, `pure_half`,
 * `fp8`), which each front end renders its own way (the CLI as `--fp32-grads`, a scenario as its JSON path), so
 * the scenario reader, the CLI and the GUI's planner refuse the same combinations with the same words.
 */
void checkTrainingConfig(const TrainingConfig& config);

} // namespace orrery::workload
