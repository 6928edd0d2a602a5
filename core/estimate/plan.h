#pragma once

#include "hardware/gpu_type.h"
#include "hardware/link.h"
#include "workload/model_spec.h"
#include "workload/training_config.h"

#include <string>
#include <vector>

namespace orrery::estimate {

/** Degrees of parallelism; N = dp * tp * pp * cp GPUs. */
struct Parallelism
{
    int dp = 1;
    int tp = 1;
    int pp = 1;
    /**
     * Expert parallelism (Megatron-Core's expert-model-parallel size): an MoE layer's experts are split over
     * ep ranks of the data-parallel group (ep divides dp and the number of experts), which exchange tokens by
     * all-to-all; it adds no GPUs. 1 for dense models (docs/models/moe.md).
     */
    int ep = 1;
    /**
     * Context parallelism (Megatron-Core's cp, ring attention): each sequence is split over cp ranks, which pass
     * the keys and values around a ring during attention. Ranks are laid out tp, cp, dp, pp (innermost first);
     * N = dp * tp * pp * cp (docs/models/context-parallel.md).
     */
    int cp = 1;
    int gpus() const { return dp * tp * pp * cp; }
    bool operator==(const Parallelism&) const = default;
};

/** Per-GPU memory in GiB, itemised. For pp > 1: the largest stage. */
struct MemoryBreakdown
{
    double weightsGiB = 0;
    double gradientsGiB = 0;
    double optimizerGiB = 0;
    double activationsGiB = 0;
    double overheadGiB = 0; ///< temporary buffers + framework/CUDA context
    double totalGiB() const { return weightsGiB + gradientsGiB + optimizerGiB + activationsGiB + overheadGiB; }

    /** Part of overheadGiB: CUDA context + framework, which PyTorch's max_memory_allocated() does not see. */
    double contextGiB = 0;
    /**
     * Part of overheadGiB: what the caching allocator holds beyond the live tensors (freed blocks of the
     * per-step allocations, rounding). Counted by reserved and nvidia-smi figures, not by
     * torch.cuda.max_memory_allocated().
     */
    double slackGiB = 0;
    /** Part of overheadGiB: transient buffers (logits, loss, communication buckets) at the peak, and the slack. */
    double temporaryGiB() const { return overheadGiB - contextGiB; }
    /** What the caching allocator has reserved at the peak (totalGiB without the CUDA/framework context). */
    double reservedGiB() const { return totalGiB() - contextGiB; }
    /** What torch.cuda.max_memory_allocated() reports: the live tensors at the peak (no context, no slack). */
    double allocatedGiB() const { return totalGiB() - contextGiB - slackGiB; }
};

/**
 * Full: itemised, every option of TrainingConfig honoured (docs/models/memory.md).
 * Frenzy: the MARP formula exactly as the paper, d dividing the batch once (b = B/d).
 * FrenzyLiteral: the paper's printed feasibility condition, which divides the
 * activations by d a second time; kept so the printed formula can be reproduced.
 */
enum class MemoryMode { Full, Frenzy, FrenzyLiteral };

/** One iteration's speed on a GPU type. */
struct ThroughputEstimate
{
    double iterationS = 0;
    double samplesPerS = 0;
    double tokensPerS = 0;
    double tflopsPerGpu = 0; ///< achieved model TFLOP/s per GPU
    double mfu = 0;          ///< tflopsPerGpu / peak
};

/** Where a plan may run: a GPU type, how many of it are available, and the links. */
struct PlanTarget
{
    const hardware::GpuType* gpu = nullptr;
    int maxGpus = 0;     ///< GPUs of this type available (cluster) or a cap (catalog)
    int gpusPerNode = 8; ///< tp stays within one node
    hardware::Link intraNode;
    hardware::Link interNode;
    /**
     * Usable bytes per GPU. 0 = derived from the GPU type: its full memory
     * (GiB) in Full mode; nominal "GB" x 1e9 in the Frenzy modes, the unit the
     * paper's worked example needs (spec A.3.3, A.11 #2).
     */
    double capacityBytes = 0;
};

/** The per-GPU capacity a plan must stay below: target.capacityBytes, or derived from the type as documented there. */
double usableCapacityBytes(const PlanTarget& target, MemoryMode mode);

/** A PlanTarget for every type of a catalog (maxGpus each), links from the type and `network`. */
std::vector<PlanTarget> targetsFromTypes(const std::vector<hardware::GpuType>& types, int maxGpus,
                                         const hardware::Link& network, int gpusPerNode = 8);
/** The targets point into `types`: a temporary would leave them dangling. */
std::vector<PlanTarget> targetsFromTypes(std::vector<hardware::GpuType>&& types, int maxGpus,
                                         const hardware::Link& network, int gpusPerNode = 8) = delete;

/** A feasible way to run a job: type, count and layout, with its estimates. */
struct Plan
{
    std::string gpu; ///< catalog name
    int count = 0;   ///< N = dp * tp * pp
    Parallelism par;
    /** The micro-batch its estimates assume: the config's, or with none given B / dp, or 1 for a pipeline
     *  (it needs micro-batches to fill it). Estimating the plan's memory again needs this one. */
    int microBatch = 0;
    double memoryGiB = 0; ///< per GPU
    double samplesPerS = 0;
    double iterationS = 0;
    double usdPerHour = 0; ///< count * price
};

/**
 * Frenzy: fewer GPUs first, then smaller tp, then smaller pp, then smaller
 * per-GPU memory, then faster (spec A.4; docs/models/plans.md).
 * Throughput: samples/s descending, fewer GPUs on ties. Cost: $ per sample ascending.
 */
enum class PlanRank { Frenzy, Throughput, Cost };

struct PlanOptions
{
    MemoryMode mode = MemoryMode::Full;
    bool allowPipeline = false; ///< enumerate pp > 1 too
    /** Enumerate cp = 2, 4, 8, 16 too (with flash attention, sequences divisible by 2 cp). */
    bool allowContextParallel = false;
    int maxGpus = 1024;
    PlanRank rank = PlanRank::Frenzy;
};

MemoryBreakdown estimateMemory(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                               const Parallelism& par, MemoryMode mode = MemoryMode::Full);
/** On a known GPU type: the libraries' cuBLAS workspaces take its compute capability's sizes (Hopper's are 4-8x the
 * older parts'); without one (above, or nullptr) the pre-Hopper sizes. */
MemoryBreakdown estimateMemory(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                               const Parallelism& par, const hardware::GpuType* gpu,
                               MemoryMode mode = MemoryMode::Full);

/**
 * Full mode, one pipeline stage (0 <= stage < pp): what the ranks of that stage hold. Measurements
 * logged by one rank (Megatron logs the last rank, i.e. the last stage) compare with this.
 */
MemoryBreakdown estimateStageMemory(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                    const Parallelism& par, int stage, const hardware::GpuType* gpu = nullptr);

/**
 * Throws orrery::Error (field `virtual_stages`) when the config's interleaved schedule cannot run on `par`:
 * Megatron's preconditions (pp >= 2, layers divisible by pp x v, micro-batches divisible by pp). The
 * estimators themselves fall back to plain 1F1B on such a layout (docs/models/throughput.md); a front end
 * given one explicit layout calls this to refuse it instead.
 */
void checkInterleaving(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                       const Parallelism& par);

/**
 * Throws orrery::Error (field `ep`) when `par.ep` cannot split the model's experts: ep > 1 needs an MoE model
 * whose number of experts and data-parallel size ep divides (Megatron-Core's constraints). The estimators
 * check this too.
 */
void checkExpertLayout(const workload::ModelSpec& model, const Parallelism& par);

/**
 * Throws orrery::Error (field `cp`) when the config cannot run context parallelism `par.cp`: cp > 1 needs flash
 * attention (ring attention is Transformer Engine's fused attention) and a sequence divisible by 2 cp
 * (Megatron-Core's load-balanced split). The estimators check this too.
 */
void checkContextLayout(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                        const Parallelism& par);

/**
 * Everything a front end given one explicit layout refuses, in this order: the config's own contradictions
 * (workload::checkTrainingConfig), then checkInterleaving, checkExpertLayout and checkContextLayout. The error's
 * location is the field at fault (`pure_half`, `virtual_stages`, `ep`, `cp`...), for the CLI to name its option
 * and the GUI its control, with the same message.
 */
void checkLayout(const workload::ModelSpec& model, const workload::TrainingConfig& config, const Parallelism& par);

/**
 * Throws orrery::Error (field `fp8`) when the config needs what `gpu` lacks: FP8 training on a GPU without FP8
 * tensor cores. rankPlans skips such types; estimateThroughput refuses them.
 */
void checkGpuSupport(const workload::TrainingConfig& config, const hardware::GpuType& gpu);

/** As below, with 8 GPUs per node (the data-parallel group crosses nodes when dp * tp > 8). */
ThroughputEstimate estimateThroughput(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                      const Parallelism& par, const hardware::GpuType& gpu,
                                      const hardware::Link& intraNode, const hardware::Link& interNode);

/**
 * The throughput model (docs/models/throughput.md): per micro-batch, every layer's
 * GEMMs, attention and memory-bound kernels on the GPU's curves, bounded below by
 * the framework's host time; tensor-parallel all-reduces over the intra-node link
 * (the inter-node link when the group spans nodes); the data-parallel ring
 * all-reduce over the slowest link of its group; pipeline bubble (p - 1) / (m + p - 1). Ranks are laid out tp
 * innermost, then dp, then pp (Megatron's order), target.gpusPerNode per node.
 */
ThroughputEstimate estimateThroughput(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                      const Parallelism& par, const PlanTarget& target);

/**
 * A pipeline whose stages run on different GPU types (stageGpus.size() == par.pp;
 * layers split evenly, embedding on the first stage, head on the last). The
 * slowest stage sets the pace of every micro-batch; the data-parallel
 * all-reduce of the slowest stage ends the iteration. Stage boundaries use the
 * inter-node link. MFU is relative to the mean peak of the stages' GPUs.
 */
ThroughputEstimate estimatePipelineThroughput(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                              const Parallelism& par,
                                              const std::vector<const hardware::GpuType*>& stageGpus,
                                              const hardware::Link& interNode, int gpusPerNode = 8);

/**
 * Fraction of the dense fp16/bf16 peak that the GPU's BLAS library sustains on large GEMMs (its curves,
 * hardware::defaultCurves). The operator-level time model lowers it for small shapes and adds the
 * memory-bound kernels, host overheads and collectives around it (docs/models/throughput.md).
 */
double achievableEfficiency(const hardware::GpuType& gpu);

/** Training FLOPs of one iteration: the work the hardware does (recomputation included). */
double hardwareFlopsPerIteration(const workload::ModelSpec& model, const workload::TrainingConfig& config);
/** Model FLOPs of one iteration (3 passes, no recomputation): what MFU is measured against. */
double modelFlopsPerIteration(const workload::ModelSpec& model, const workload::TrainingConfig& config);

/** One layer of the model on one GPU type for one micro-batch, sharded tp ways (for Espresso's stage placer). */
struct LayerCost
{
    std::string name;           ///< `embedding`, `layer0`..., `head`
    double forwardS = 0;        ///< one micro-batch
    double backwardS = 0;       ///< one micro-batch, recomputation included
    double flopsForward = 0;    ///< per GPU of the tp group
    double parameterCount = 0;  ///< per GPU of the tp group
    double stateBytes = 0;      ///< weights + gradients + optimizer states per GPU (no ZeRO)
    double activationBytes = 0; ///< stored for backward, one micro-batch, per GPU
    double outputBytes = 0;     ///< what is sent to the next stage, one micro-batch
};

struct LayerProfile
{
    std::vector<LayerCost> layers; ///< embedding, then every transformer layer, then head
    int microBatch = 1;
    int seq = 0;
};

/**
 * Per-layer time and memory for one micro-batch (config.microBatch, or 1 when
 * it is 0) on `gpu` with tensor parallelism `tp`, consistent with
 * estimateMemory (Full mode) and estimateThroughput's compute term.
 */
LayerProfile profileLayers(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                           const hardware::GpuType& gpu, int tp = 1);

/**
 * MARP: every feasible (type, dp, tp[, pp]) over the targets, ranked best
 * first (Frenzy's order: higher training efficiency first).
 */
std::vector<Plan> rankPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                            const std::vector<PlanTarget>& targets, const PlanOptions& options = {});

} // namespace orrery::estimate
