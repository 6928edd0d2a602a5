#pragma once

// AlpaServe's inter-op pass for inference (§4.1): split a chain of layers into contiguous stages so
// that the slowest stage is as fast as possible, from the layers' individual latencies only.

#include <vector>

namespace orrery::serve {

struct StagePartition
{
    /** firstLayer[s]: index of the first layer of stage s; stage s ends where stage s + 1 begins. */
    std::vector<int> firstLayer;
    std::vector<double> stageLatency; ///< sum of the stage's layer latencies
    double maxStageLatency = 0;       ///< F(S, K)
};

/**
 * F(s, k) = min_{1 <= i <= k} max{F(s - 1, i - 1), latency(i, k)}, latency(i, k) = sum of layers i..k:
 * the minimum over partitions of layers 1..k into s non-empty contiguous stages of the largest stage sum.
 * Ties go to the partition whose last stage starts latest (fewer layers late in the pipeline).
 * Throws orrery::Error when stages < 1 or there are fewer layers than stages, or a latency is negative.
 */
StagePartition partitionStages(const std::vector<double>& layerLatency, int stages);

/** The equal-layer split (the first K mod S stages one layer more): the manual baseline of §6.6. */
StagePartition equalLayerStages(const std::vector<double>& layerLatency, int stages);

} // namespace orrery::serve
