#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace orrery::sim {

/** One contiguous stretch of a job on a set of GPUs (what the Gantt draws, one row per GPU). */
struct AllocationInterval
{
    int job = 0; ///< index into RunResult::jobs
    int gpu = 0; ///< global GPU index in the cluster
    double startS = 0;
    double endS = 0;
};

/** Per-job outcome. Times in seconds from the scenario start. */
struct JobRecord
{
    std::string id;
    std::string model; ///< model name or job type, for labels
    std::string user;
    double arrivalS = 0;
    double startS = -1;  ///< first time it ran; -1 if never
    double endS = -1;    ///< completion; -1 if unfinished
    int gpus = 0;        ///< GPUs of its first allocation
    std::string gpuType; ///< type of its first allocation ("mixed" when several)
    int restarts = 0;    ///< allocation changes after the first start
    double gpuSeconds = 0;
    double costUsd = 0;
    double idealS = 0;  ///< run time alone on its best allocation (for fairness and sanity)
    double samples = 0; ///< serverless jobs: samples trained (global batch x iterations); 0 for others
    int nodes = 0;      ///< nodes spanned by its first allocation
    int demand = 0;     ///< GPUs it asked for
    /** Gavel compatibility: a multi-GPU job whose last round had fewer steps left than GPUs, which Gavel drops from
     *  its average JCT (see docs/validation.md). */
    bool excludedFromAverage = false;
    bool finished() const { return endS >= 0; }
    double jctS() const { return endS - arrivalS; }
    double queueS() const { return startS - arrivalS; }
};

/** Busy GPUs at a point in time, total and per GPU type (step function: holds until the next sample). */
struct UtilizationSample
{
    double timeS = 0;
    int busyGpus = 0;
    std::vector<int> busyByType; ///< in the order of RunResult::gpuTypes
};

/** One policy invocation. */
struct DecisionTiming
{
    double simTimeS = 0;
    double wallS = 0;
    int queued = 0;
    int running = 0;
};

/**
 * A simulated run, as columns the store writes in batches, exporters stream
 * and views read without copying.
 */
struct RunResult
{
    std::string policy;
    std::uint64_t seed = 0;
    std::vector<std::string> gpuTypes;         ///< names, for busyByType
    std::vector<int> gpusByType;               ///< cluster size per type, in the order of gpuTypes
    std::vector<double> priceUsdPerHourByType; ///< per GPU, in the order of gpuTypes
    std::vector<int> gpuType;                  ///< per global GPU: index into gpuTypes
    int totalGpus = 0;
    std::vector<JobRecord> jobs;
    std::vector<AllocationInterval> intervals;
    std::vector<UtilizationSample> utilization;
    std::vector<DecisionTiming> decisions;
    double makespanS = 0;
    double wallS = 0;
    std::uint64_t events = 0; ///< events processed (arrivals, completions, ticks, wake-ups)
    bool cancelled = false;
};

} // namespace orrery::sim
