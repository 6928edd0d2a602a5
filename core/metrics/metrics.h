#pragma once

#include "sim/run_result.h"

#include <string>
#include <utility>
#include <vector>

namespace orrery::metrics {

/** The headline figures of one run (what `orrery-cli simulate` prints). */
struct Summary
{
    int jobs = 0;
    int jobsCompleted = 0;
    double avgJctS = 0; ///< over finished jobs, without those excludedFromAverage
    double p50JctS = 0;
    double p95JctS = 0;
    double p99JctS = 0;
    double avgQueueS = 0; ///< first start minus arrival, over started jobs
    /** Frenzy's "samples per job per second": samples / (end - first start), averaged over finished
     *  serverless jobs; 0 when there are none. */
    double avgJobSamplesPerS = 0;
    /** The other reading of that metric: samples / (end - arrival), queueing included. */
    double avgJobSamplesPerJctS = 0;
    double makespanS = 0;
    double utilization = 0; ///< busy GPU-seconds / (GPUs x makespan)
    double gpuHours = 0;
    double costUsd = 0;
    int decisions = 0;
    double decisionWallSTotal = 0;
    double decisionSolverSTotal = 0; ///< of decisionWallSTotal, inside LP/MILP solves (core/opt); wall time
    double wallS = 0;
    /** Mean slowdown JCT / idealS over finished jobs with an ideal run time (Gavel-compat exclusions
     *  included: they are excluded from the JCT average only); not finish-time fairness. */
    double avgSlowdown = 0;
    double avgFtfRho = 0; ///< mean finish-time fairness (see finishTimeFairness)
    double maxFtfRho = 0;
    double jainFtf = 0; ///< Jain's index over the rho values

    // Lifecycle and SLOs (docs/simulator.md, "Metrics"); filled under both scopes.
    int jobsDropped = 0;
    int suspensions = 0;       ///< over all jobs: times a running job lost all its GPUs
    double gpuHoursUsed = 0;   ///< held while making progress
    double gpuHoursBilled = 0; ///< held, switch pauses and profiling included (= gpuHours)
    int sloJobs = 0;           ///< jobs with at least one deadline
    int sloJobsMet = 0;        ///< of those, finished by their earliest deadline
    int deadlines = 0;
    int deadlinesMet = 0;
    double reward = 0; ///< sum of the rewards of the deadlines met
    double sloAttainment() const { return sloJobs > 0 ? static_cast<double>(sloJobsMet) / sloJobs : 0; }
    double deadlineMetRatio() const { return deadlines > 0 ? static_cast<double>(deadlinesMet) / deadlines : 0; }
};

/** Adds the lifecycle and SLO figures of `run` to `s` (summarize() calls it). */
void addLifecycle(Summary& s, const sim::RunResult& run);

/** Whether job j met deadline d: it finished by then (a dropped or unfinished job meets none). */
inline bool deadlineMet(const sim::JobRecord& j, const workload::Deadline& d)
{
    return j.finished() && j.endS <= d.atS;
}

/** SLO attainment of one SLO class: jobs of the class with deadlines, and those that met their earliest. */
struct SloClassAttainment
{
    std::string sloClass;
    int jobs = 0;
    int jobsMet = 0;
    double reward = 0;
};
/** Per SLO class (jobs with a class and at least one deadline), in order of first appearance. */
std::vector<SloClassAttainment> sloAttainmentByClass(const sim::RunResult& run);

/** What summarize() computes: everything, or only the headline figures a run list shows (no sorting, no fairness). */
enum class SummaryScope { Full, Headline };

/** With SummaryScope::Headline only jobs, jobsCompleted, avgJctS, avgQueueS, makespanS, gpuHours, costUsd,
 *  decisions, decisionWallSTotal, decisionSolverSTotal and wallS are filled; the rest stay 0. */
Summary summarize(const sim::RunResult& run, SummaryScope scope = SummaryScope::Full);

/** The p-th percentile (0..100) by linear interpolation between order statistics; 0 for no values. */
double percentile(std::vector<double> values, double p);
double mean(const std::vector<double>& values);
/** Jain's fairness index (sum x)^2 / (n sum x^2), in (0, 1]; 1 for no values. */
double jainIndex(const std::vector<double>& values);

/** Per-job metrics, over finished jobs, in job order. */
enum class JobMetric { Jct, Queue, Slowdown, FinishTimeFairness };
std::vector<double> perJob(const sim::RunResult& run, JobMetric metric);
/** Empirical CDF: sorted values with the fraction of values <= each. */
std::vector<std::pair<double, double>> cdf(std::vector<double> values);

/**
 * Themis' finish-time fairness rho = T_shared / T_id per finished job
 * (Mahajan et al., NSDI'20). T_id is the JCT the job would have alone on a
 * 1/N share of the cluster, N being the number of jobs contending with it:
 * here the time-average of the active (arrived, unfinished) job count over
 * the job's own lifetime in the run. With a share of G/N GPUs it runs at
 * min(1, G / (N * demand)) of its ideal speed, so T_id = idealS * max(1, N *
 * demand / G). rho > 1: the job did worse than its fair share.
 */
std::vector<double> finishTimeFairness(const sim::RunResult& run);

/** GPU usage of one type over the run. */
struct TypeUsage
{
    std::string type;
    int gpus = 0;
    double gpuHours = 0;
    double costUsd = 0;
    double utilization = 0; ///< busy / (gpus x makespan)
};
std::vector<TypeUsage> usageByType(const sim::RunResult& run);

/** Busy fraction over time (step function), total and per type, from the run's utilisation samples. */
struct UtilizationPoint
{
    double timeS = 0;
    double total = 0;
    std::vector<double> byType;
};
std::vector<UtilizationPoint> utilizationOverTime(const sim::RunResult& run);

/**
 * Cluster-wide throughput over time from the run's rate segments (docs/simulator.md, "Metrics"): a step
 * function, each point holding until the next. `samplesPerS` sums the segments that say how many samples
 * they train (0 where none does); `workPerS` sums work units per second, meaningful across jobs only when
 * they share a unit; `jobsPerS` sums rate / W_j, the jobs' worth of work done per second, comparable across
 * units, W_j being the work job j's segments add up to (its work when it finished). One point per instant at
 * which a sum changes, from the first segment's start; the last point is all zeros. Empty without segments.
 */
struct ThroughputPoint
{
    double timeS = 0;
    double samplesPerS = 0;
    double workPerS = 0;
    double jobsPerS = 0;
};
std::vector<ThroughputPoint> throughputOverTime(const sim::RunResult& run);

} // namespace orrery::metrics
