#pragma once

#include "sim/run_result.h"

#include <vector>

namespace orrery::metrics {

/** Jobs waiting from `timeS` on (a step function: holds until the next point). */
struct QueuePoint
{
    double timeS = 0;
    int queued = 0;
};

/**
 * How many jobs wait over time: a job waits from its arrival until it ends (finish or drop) whenever it holds
 * no GPU, so a preempted job waits again until it resumes. One point per instant the count changes, in time
 * order, starting with (0, 0) for a run with jobs. Read from the run's jobs and allocation intervals alone,
 * so a stored run gives the same series.
 */
std::vector<QueuePoint> queueLengthOverTime(const sim::RunResult& run);

} // namespace orrery::metrics
