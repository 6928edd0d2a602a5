#pragma once

// Internal to core/estimate: the per-layer and per-stage quantities that the
// memory model, the throughput model and the layer profile share, so the three
// stay consistent. Units: parameters, FLOPs and bytes as doubles.

#include "estimate/plan.h"
#include "util/units.h"

namespace orrery::estimate::detail {

/** Bytes per parameter for each kind of model state (before ZeRO sharding). */
struct StateBytes
{
    double weights = 2;
    double gradients = 2;
    double optimizer = 12;
};
/** fp32Grads: half-precision training with an fp32 gradient buffer (TrainingConfig::fp32Grads). */
StateBytes stateBytes(workload::Precision precision, workload::Optimizer optimizer, bool fp32Grads = false);
/** Whether the configuration trains without fp32 master weights (pureHalf, or litgpt's bf16-true default). */
bool pureHalfStates(const workload::TrainingConfig& config);
/** The states of a training configuration: autocast trains fp32 parameters; fp32Grads widens half gradients;
 * pure-half training keeps everything in the compute precision. */
StateBytes stateBytes(const workload::TrainingConfig& config);
/** Bytes of one activation element in the compute precision. */
double elementBytes(workload::Precision precision);

/** The job's batch geometry for one layout. */
struct BatchShape
{
    int seq = 0;          ///< s
    int microBatch = 1;   ///< b
    int microBatches = 1; ///< m: micro-batches per pipeline per iteration (gradient accumulation steps)
};
/** seq: config.seq or the model's; microBatch: config.microBatch or ceil(B / dp); m = ceil(B / (dp * b)). */
BatchShape batchShape(const workload::ModelSpec& model, const workload::TrainingConfig& config, int dp);

/** Parameters of one transformer layer on one GPU of a tp group (matrices and column biases split, norms and row biases
 * replicated). */
double layerParamsPerGpu(const workload::ModelSpec& model, int tp);
/** Whether a model family trains with dropout (GPT-2/BERT/GPT-3/ViT style; LLaMA style and MPT have none). */
bool hasDropout(const workload::ModelSpec& model);

/**
 * Interleaved 1F1B's preconditions (Megatron's): a pipeline (pp >= 2), layers that split evenly into
 * pp x v chunks, and a number of micro-batches that is a multiple of pp. Throws orrery::Error naming
 * `virtual_stages` otherwise; v = 1 always passes.
 */
void checkVirtualStages(const workload::ModelSpec& model, const workload::TrainingConfig& config, int pp,
                        int microBatches);
/** Whether checkVirtualStages() would pass. */
bool canInterleave(const workload::ModelSpec& model, const workload::TrainingConfig& config, int pp, int microBatches);
/**
 * The virtual stages a layout runs: the config's when it can interleave, else 1. A job that asks for
 * interleaving keeps every layout open to the planners (one without a pipeline, or whose layers or
 * micro-batches do not divide, runs plain 1F1B); the CLI, given one explicit layout, refuses instead.
 */
int effectiveVirtualStages(const workload::ModelSpec& model, const workload::TrainingConfig& config, int pp,
                           int microBatches);

/**
 * Expert parallelism's preconditions (Megatron-Core's): ep >= 1; ep > 1 only for an MoE model, dividing its
 * number of experts and the data-parallel size. Throws orrery::Error naming `ep` otherwise.
 */
void checkExpertParallelism(const workload::ModelSpec& model, const Parallelism& par);

/** Context parallelism's preconditions (see estimate::checkContextLayout); throws orrery::Error naming `cp`. */
void checkContextParallelism(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                             const Parallelism& par);

/** Whether a LLaMA-style model's RMSNorm runs as eager PyTorch ops (FrameworkProfile::eagerLlamaOps), which keep an
 * fp32 copy of each norm's input for backward. */
bool eagerRmsNorm(const workload::ModelSpec& model, const workload::TrainingConfig& config);

/** Layers on pipeline stage `stage` of `pp` (the first l mod p stages get one more). */
int layersOnStage(int layers, int pp, int stage);

/** The first layer of pipeline stage `stage` of `pp`. */
int firstLayerOfStage(int layers, int pp, int stage);
/** MoE layers on pipeline stage `stage` of `pp` (0 for a dense model). */
int moeLayersOnStage(const workload::ModelSpec& model, int pp, int stage);

/** Parameters of one MoE layer on one GPU of a tp group that every data-parallel rank holds: attention, norms
 * and the router (replicated over tp). */
double moeLayerSharedParamsPerGpu(const workload::ModelSpec& model, int tp);
/** Parameters of one expert on one GPU of a tp group (experts are tensor-parallel like the dense MLP). */
double expertParamsPerGpu(const workload::ModelSpec& model, int tp);
/**
 * Tokens an expert's GEMMs run per token of the micro-batch, summed over the experts: top-k when dropless,
 * k x capacity factor when experts are padded to their capacity (docs/models/moe.md).
 */
double routedTokenFactor(const workload::ModelSpec& model);

/** Per-GPU parameters of a pipeline stage: those every data-parallel rank holds, and the experts (split ep ways). */
struct StageParams
{
    double dense = 0;   ///< replicated over the data-parallel group (embedding, attention, norms, dense MLPs, routers)
    double experts = 0; ///< this rank's experts: E / ep of each MoE layer; replicated over dp / ep ranks
    double total() const { return dense + experts; }
};
StageParams stageParams(const workload::ModelSpec& model, int tp, int pp, int stage, int ep);
/** Per-GPU parameters of a stage's transformer layers only (what FP8 training casts: no embedding, no head). */
double stageLayerParamsPerGpu(const workload::ModelSpec& model, int tp, int pp, int stage, int ep);
/** Per-GPU parameter count of a pipeline stage, embedding on the first, final norm and head on the last (ep = 1). */
double stageParamsPerGpu(const workload::ModelSpec& model, int tp, int pp, int stage);

/** Activation bytes one transformer layer (an MoE layer when `moe`) stores for backward, one micro-batch, one GPU. */
double layerActivationBytes(const workload::ModelSpec& model, const workload::TrainingConfig& config, double seq,
                            double microBatch, int tp, bool moe = false);
/** Forward FLOPs of one transformer layer for one token (whole layer, not per GPU); an MoE layer runs its router and
 * top-k experts. */
double layerForwardFlopsPerToken(const workload::ModelSpec& model, double seq, bool moe = false);
/** Extra forward FLOPs per token per layer that the recomputation policy re-executes in backward. */
double layerRecomputeFlopsPerToken(const workload::ModelSpec& model, double seq, workload::Recompute recompute,
                                   bool moe = false);
/** Forward FLOPs of the output head for one token. */
double headForwardFlopsPerToken(const workload::ModelSpec& model);

/** Seconds of a ring all-reduce of `bytes` over `n` ranks on `link`: 2(n-1)/n * bytes / bw + 2(n-1) latencies. */
double ringAllReduceS(double bytes, int n, const hardware::Link& link);
/**
 * Seconds of an all-to-all in which each of `n` ranks sends `bytes` in all, an equal share to every rank
 * (itself included), `ranksPerNode` of the group sharing a node: the shares to the node's other ranks go over
 * `intraNode`, those to other nodes over the rank's own NIC (`interNode`), both at once; one latency per peer.
 */
double allToAllS(double bytes, int n, int ranksPerNode, const hardware::Link& intraNode,
                 const hardware::Link& interNode);
/** Seconds of a point-to-point transfer. */
double transferS(double bytes, const hardware::Link& link);

/** Frenzy mode's breakdown (frenzy_memory.cpp). */
MemoryBreakdown frenzyBreakdown(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                const Parallelism& par, MemoryMode mode);

/** cuBLAS workspaces that PyTorch and Transformer Engine allocate through the caching allocator, sized by the GPU's
 * compute capability (docs/models/memory.md, "Library workspaces"); the pre-Hopper sizes without a GPU type. */
double libraryWorkspaceBytes(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                             const hardware::GpuType* gpu);

/** CUDA context, framework and communicator memory per GPU (docs/models/memory.md, "Overhead"). */
double contextBytes(const Parallelism& par);

} // namespace orrery::estimate::detail
