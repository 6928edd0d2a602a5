#pragma once

#include "workload/job.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
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

    // Lifecycle and SLOs (docs/simulator.md, "Job lifecycle" and "Deadlines and SLOs").
    double droppedS = -1; ///< when a policy dropped it, -1 if never; a dropped job never finishes (endS stays -1)
    std::string dropReason{};
    int suspensions = 0; ///< times it lost all its GPUs while running (preemptions to the queue)
    /** GPU-seconds held without progress (switch pauses, profiling): billed like the rest, not used. */
    double pausedGpuSeconds = 0;
    std::string sloClass{};
    std::vector<workload::Deadline> deadlines{}; ///< earliest first
    /** Per-job data a policy attached (Decision::annotate), name -> JSON text; stored as job extras. */
    std::vector<std::pair<std::string, std::string>> extras{};
    std::string app{}; ///< its app (workload::Job::app, docs/simulator.md "Apps"); empty: its own app

    bool dropped() const { return droppedS >= 0; }
    double usedGpuSeconds() const { return gpuSeconds - pausedGpuSeconds; }
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

/** A change in a job's life worth a record: what later systems (and the store's job_events) look at. */
/** Auction: a policy's note of a market step the job's app took part in (Themis: its bid, PF bundle, payment). */
enum class JobEventKind : std::uint8_t { Suspend, Resume, Drop, Profile, Plan, Reason, Auction };
const char* toString(JobEventKind kind);
/** The kind a name from toString() stands for; nullopt for anything else. */
std::optional<JobEventKind> jobEventKindFromString(std::string_view name);

struct JobEvent
{
    double timeS = 0;
    int job = 0;
    JobEventKind kind = JobEventKind::Suspend;
    /** drop: the reason; profile: the seconds asked for; plan: the plan (sim::toString); reason: the policy's
     *  reason for the job's state from then on (Decision::explain) */
    std::string detail;
};

/**
 * A stretch of time over which a job progressed at one rate (docs/simulator.md, "Plans and progress-dependent
 * rates"): from the end of a switch pause to the next change of its rate (a new allocation or plan, a refresh
 * of a progress-dependent rate, preemption, completion). Summed rate x duration over a job's segments is the
 * work it did.
 */
struct RateSegment
{
    int job = 0; ///< index into RunResult::jobs
    double startS = 0;
    double endS = 0;
    double rate = 0;        ///< work units per second (the locality factor included)
    double samplesPerS = 0; ///< training samples per second; 0 when the source does not say
};

/** A named series of values over time that a policy records (Decision::record), e.g. an LP objective. */
struct MetricSeries
{
    std::string name;
    std::vector<double> timeS;
    std::vector<double> value;
};

/** Names the lifecycle fields take in a job's stored extras object; a policy annotation may not use them. */
const std::vector<std::string>& reservedJobExtraKeys();

/** One policy invocation. */
struct DecisionTiming
{
    double simTimeS = 0;
    double wallS = 0;
    int queued = 0;
    int running = 0;
    /** Of wallS, the seconds inside LP/MILP solves (core/opt). Wall time like wallS: reported, never compared,
     *  never stored as part of what makes a run (only the store's decision chunks keep wall times). */
    double solverS = 0;
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
    std::vector<JobEvent> jobEvents;       ///< in time order
    std::vector<MetricSeries> series;      ///< in order of first record
    std::vector<RateSegment> rateSegments; ///< in the order they ended
    double makespanS = 0;                  ///< the last job to leave (finish or drop)
    double wallS = 0;
    std::uint64_t events = 0; ///< events processed (arrivals, completions, ticks, wake-ups)
    bool cancelled = false;
};

} // namespace orrery::sim
