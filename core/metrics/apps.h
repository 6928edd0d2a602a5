#pragma once

#include "sim/run_result.h"

#include <string>
#include <vector>

namespace orrery::sim {
class PreparedWorkload;
}

namespace orrery::metrics {

/**
 * One app of a run (Themis: a job, or a hyper-parameter search of many jobs; docs/simulator.md "Apps"). Jobs
 * without an app are each their own app, named by their job id.
 */
struct AppRecord
{
    std::string app;
    int jobs = 0;
    double arrivalS = 0; ///< its first job's arrival
    double endS = -1;    ///< its last job's end; -1 while a job of it is unfinished (or every job was dropped)
    double gpuSeconds = 0;
    double tClusterS = 0; ///< T_cluster: its serial work on min(R_C, app demand) GPUs, no slowdown
    double nAvg = 0;      ///< time-average number of active apps over its lifetime (itself included)
    double rho = -1;      ///< finish-time fairness (end - arrival) / (T_cluster x N_avg); -1 when unfinished
    bool finished() const { return endS >= 0; }
};

/**
 * The run's apps in order of first appearance, with Themis' finish-time fairness rho = T_sh / T_id per
 * finished app: T_sh = its last job's end minus its first job's arrival; T_id = T_cluster x N_avg, fixed at
 * completion (Themis spec, D.1): T_cluster = B / min(R_C, demand) with B the app's serial work, the sum over its
 * jobs of idealS x demand GPU-seconds (linear speedup), demand the sum of its jobs' demands and R_C the cluster's
 * GPUs; N_avg the time-average number of active apps (arrived, not yet ended) over [arrival, end]. A job that
 * successive halving stops early is a job with less work: it ends when its work is done. A dropped job ends
 * its part of the app at its drop; an app whose jobs were all dropped never finishes.
 */
std::vector<AppRecord> appRecords(const sim::RunResult& run);

/** Whether any job of the run names an app (otherwise each job is its own app, and per-app is per-job). */
bool hasApps(const sim::RunResult& run);

/** The rho of every finished app, in app order (each finite and > 0). */
std::vector<double> appFinishTimeFairness(const sim::RunResult& run);

/**
 * Themis' placement score per allocation (spec A.7, metric iii): 1/S for the slowdown S of the allocation's
 * placement relative to one node, i.e. the locality model's rate factor of its span, in (0, 1]. An allocation
 * is a maximal stretch of one job holding one GPU set (from the run's allocation intervals); in job order, then
 * time order.
 */
std::vector<double> placementScores(const sim::RunResult& run, const sim::PreparedWorkload& workload);

} // namespace orrery::metrics
