#pragma once

#include "workload/job.h"

#include <optional>
#include <vector>

namespace orrery::workload {

/**
 * How much of a cluster a job list asks for while it arrives: the GPU-seconds of the jobs whose run time is
 * known (fixed jobs with a duration, at the reference GPU's speed) over the cluster's GPU-seconds between the
 * first and the last arrival. Near or above 1 queues form; far below, every job starts on arrival and most
 * policies give the same schedule.
 */
struct OfferedLoad
{
    double demandGpuS = 0;   ///< sum of gpus x durationS over the jobs counted
    double arrivalSpanS = 0; ///< last arrival - first arrival (all jobs)
    int jobsCounted = 0;     ///< jobs with a known duration
    int jobsWithoutDuration = 0;
    /** demandGpuS / (GPUs x arrivalSpanS); empty when no job has a duration or all arrive at once. */
    std::optional<double> factor;
};

OfferedLoad offeredLoad(const std::vector<Job>& jobs, int clusterGpus);

/** Below this factor `orrery-cli import` warns. With thousands of GPUs, a job stream at under a third of the
 * capacity waits only in rare bursts (Erlang C: with c servers at load rho the chance of waiting falls fast in
 * c): the whole Philly trace on its default 2,816 GPUs offers 0.13 (its first 2,000 jobs 0.09), and FIFO and
 * Tiresias give identical schedules there with no queueing at all. */
inline constexpr double kLowOfferedLoad = 0.3;

} // namespace orrery::workload
