#pragma once

#include "hardware/gpu_type.h"
#include "hardware/link.h"
#include "workload/model_spec.h"
#include "workload/training_config.h"

#include <string>
#include <vector>

namespace orrery::estimate {

/** Degrees of parallelism; N = dp * tp * pp GPUs. */
struct Parallelism
{
    int dp = 1;
    int tp = 1;
    int pp = 1;
    int gpus() const { return dp * tp * pp; }
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
};

enum class MemoryMode { Full, Frenzy };

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
    int maxGpus = 0;        ///< GPUs of this type available (cluster) or a cap (catalog)
    int gpusPerNode = 8;    ///< tp stays within one node
    hardware::Link intraNode;
    hardware::Link interNode;
};

/** A feasible way to run a job: type, count and layout, with its estimates. */
struct Plan
{
    std::string gpu;  ///< catalog name
    int count = 0;    ///< N = dp * tp * pp
    Parallelism par;
    double memoryGiB = 0;   ///< per GPU
    double samplesPerS = 0;
    double iterationS = 0;
    double usdPerHour = 0;  ///< count * price
};

struct PlanOptions
{
    MemoryMode mode = MemoryMode::Full;
    bool allowPipeline = false; ///< enumerate pp > 1 too
    int maxGpus = 1024;
};

MemoryBreakdown estimateMemory(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                               const Parallelism& par, MemoryMode mode = MemoryMode::Full);

ThroughputEstimate estimateThroughput(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                      const Parallelism& par, const hardware::GpuType& gpu,
                                      const hardware::Link& intraNode, const hardware::Link& interNode);

/**
 * MARP: every feasible (type, dp, tp[, pp]) over the targets, ranked best
 * first (Frenzy's order: higher training efficiency first).
 */
std::vector<Plan> rankPlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                            const std::vector<PlanTarget>& targets, const PlanOptions& options = {});

} // namespace orrery::estimate
