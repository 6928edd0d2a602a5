#pragma once

// Forward-only latency and memory of a serving model under a parallel configuration on one GPU type
// (docs/serving.md, "Latency and memory"): per-layer times from core/estimate's operator terms, stages
// from the inference DP (stage_partition.h), communication between stages over the links.

#include "hardware/gpu_type.h"
#include "hardware/link.h"
#include "serve/parallel_config.h"
#include "serve/serving_model.h"

#include <vector>

namespace orrery::serve {

struct LatencyOptions
{
    /** Scale each model's layer times so its one-GPU latency on the calibration GPU is Table 1's. */
    bool calibrate = true;
    /** Where the paper measured (Table 1: V100 16 GB); nullptr = the library's calibration GPU. */
    const hardware::GpuType* calibrationGpu = nullptr;
    int gpusPerNode = 8; ///< stages of a group fill nodes in order; intra-op stays within a node
    /** Between nodes (p3.16xlarge: 25 Gb/s Ethernet). */
    hardware::Link interNode{hardware::LinkKind::Ethernet, 3.125, 20.0};
    /** Usable bytes per GPU; 0 = the GPU's memory. The paper's effective V100 budget is 13 GB (13e9). */
    double memoryBudgetBytes = 0;
    /** false: the equal-layer manual split instead of the DP (the §6.6 ablation). */
    bool autoPartition = true;
};

/** One model on one group configuration. */
struct ModelProfile
{
    ParallelConfig config;
    std::vector<double> stageS; ///< compute of each stage, one query
    std::vector<double> commS;  ///< between stage s and s + 1 (stages - 1 entries)
    std::vector<int> firstLayer;
    double latencyS = 0;          ///< D_s: one query through every stage and transfer
    double maxStageS = 0;         ///< D_m: the pipeline's bottleneck
    double weightBytesPerGpu = 0; ///< the largest stage's weights on one of its GPUs
    double workspaceBytes = 0;    ///< transient activations of one query on one GPU
    /**
     * A batch of b queries holds each stage (1 + batchSlope x (b - 1)) times as long as one [PAPER, §6.5: latency
     * grows linearly with the batch]; the slope is the estimator's extra time of a second query over the first
     * (1: the GPU is already saturated by one query, no gain from batching).
     */
    double batchSlope = 1;
    double memoryPerGpuBytes() const { return weightBytesPerGpu + workspaceBytes; }
};

/** Per-layer forward seconds (embedding, each transformer layer, head) with intra-op degree `intra`, calibrated. */
std::vector<double> layerLatencies(const ServingModel& model, const hardware::GpuType& gpu, int intra,
                                   const LatencyOptions& options = {});

/**
 * The factor applied to the operator-level estimate: Table 1's latency over the estimate of one query on one
 * calibration GPU (1 when not calibrating or the model has no paper latency).
 */
double calibrationFactor(const ServingModel& model, const LatencyOptions& options = {});

/** Throws orrery::Error when the configuration has more stages than the model has layers, or intra < 1. */
ModelProfile profileModel(const ServingModel& model, const hardware::GpuType& gpu, const ParallelConfig& config,
                          const LatencyOptions& options = {});

/** options.memoryBudgetBytes, or the GPU's memory. */
double memoryBudget(const hardware::GpuType& gpu, const LatencyOptions& options);

/** The fewest GPUs (inter-op stages, intra 1) on which the model's weights fit the budget; 0 if none <= maxGpus. */
int minimalStages(const ServingModel& model, const hardware::GpuType& gpu, const LatencyOptions& options,
                  int maxGpus = 64);

} // namespace orrery::serve
