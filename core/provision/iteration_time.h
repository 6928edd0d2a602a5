#pragma once

#include "provision/pipeline_model.h"

#include <cmath>
#include <vector>

namespace orrery::provision {

/** The 1F1B timeline of one iteration: when each stage ends its last backward and the iteration time. */
struct IterationTimeline
{
    std::vector<double> lastBackwardEndS; ///< E_s: T^comp of stage s, from the iteration start
    double iterationS = 0;                ///< Eq. (8): max_s (E_s + allReduce_s)
};

/**
 * Eq. (8) by a deterministic event simulation of non-interleaved 1F1B
 * (PipeDream-flush): stage s runs min(k - s - 1, m) warm-up forwards, then
 * alternates one forward and one backward, then drains its backwards. Each
 * micro-batch crosses a stage boundary in `p2pS`. A stage's gradient
 * all-reduce starts after its last backward, so it overlaps with the earlier
 * stages' remaining backward passes (Eq. 9 when nothing stalls).
 */
IterationTimeline simulateIteration(const std::vector<StageTimes>& stages, int microBatches, double p2pS);

/** simulateIteration(...).iterationS without allocating the timeline. */
double iterationTimeS(const std::vector<StageTimes>& stages, int microBatches, double p2pS);

/**
 * A valid lower bound on simulateIteration: stage j cannot start before the
 * earlier stages' first forwards, runs 2m passes, and then either syncs or
 * waits for its last backward to flow back to stage 0.
 */
double iterationLowerBoundS(const std::vector<StageTimes>& stages, int microBatches);

/**
 * Builds the stage times of a placement from the model and simulates it.
 * Returns +inf without simulating when the lower bound is already >= cutoffS.
 */
double iterationTimeS(const PipelineModel& model, const std::vector<Stage>& stages, double cutoffS = INFINITY);

} // namespace orrery::provision
