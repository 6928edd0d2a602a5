#pragma once

#include "sim/run_result.h"
#include "sweep/sweep_plan.h"
#include "sweep/workload_cache.h"

#include <cstddef>
#include <stop_token>
#include <string>
#include <vector>

namespace orrery::sweep {

/** A point simulated to measure it: a real result, which `sweep run` stores rather than simulating it again. */
struct SampledPoint
{
    std::size_t index = 0;
    sim::RunResult result;
    double cpuS = 0; ///< CPU seconds of the simulation alone
};

struct CpuEstimate
{
    double cpuS = 0;        ///< estimated CPU seconds of every point asked about (simulations and preparations)
    std::size_t points = 0; ///< points estimated
    std::size_t baseJobs = 0;
    std::vector<SampledPoint> samples;
    std::string method; ///< one line: how the figure was made
};

/**
 * Estimates the CPU time of simulating `toRun` (indices into plan.points) from a measured sample (docs/sweeps.md,
 * "Estimates"): the first point of each policy, in order, at most `maxSamples`, until `budgetS` CPU seconds have
 * been spent (at least one point is always simulated). Each sample gives its policy's CPU seconds per job; a point
 * is estimated as its job count (the base workload's, or its job_limit when smaller) times its policy's per-job cost
 * (the mean over the sampled policies for one not sampled), plus the measured cost of preparing a workload for each
 * distinct workload. Cluster size and arrival rate change a simulation's cost too; the sample does not see that,
 * so the figure is a first-order estimate, not a bound.
 */
CpuEstimate estimateCpu(const SweepPlan& plan, const std::vector<std::size_t>& toRun, WorkloadCache& cache,
                        double budgetS = 2.0, std::size_t maxSamples = 8, std::stop_token stop = {});

} // namespace orrery::sweep
