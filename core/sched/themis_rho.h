#pragma once

// Themis' finish-time fairness estimates (Mahajan et al., NSDI'20; ../shared/specs/themis-crius.md A.3): what an
// app's agent computes for each candidate allocation of its bid, free of the engine so the paper's worked values
// pin it (tests/core/test_themis.cpp).

#include <vector>

namespace orrery::sched::themis {

/** One job as the agent sees it: iterations left, serial (one-GPU) seconds per iteration, its GPU cap. */
struct JobInfo
{
    double itersLeft = 0;
    double iterS = 0;    ///< iter_time_serial
    int demandMax = 1;   ///< job_demand_max
    double slowdown = 1; ///< S(G) of its placement, >= 1
};

/**
 * Time for a set of jobs to finish on `gpus` GPUs (the spec's phaseTime, choice 9): with at least one GPU per
 * job, each job gets one and the rest go one at a time to the job with the largest current time, up to its
 * demandMax; time = the slowest job's itersLeft x iterS x S / GPUs. With fewer GPUs than jobs they run one GPU
 * each, longest first onto the least-loaded GPU (LPT), and the time is the makespan. Infinity for no GPUs.
 */
double phaseTimeS(const std::vector<JobInfo>& jobs, int gpus);

/** Equation 1: rho of a single-job app holding `gpus` until it completes. */
double rhoSingle(const JobInfo& job, double itersTotal, int gpus, double elapsedS, int clusterGpus, double nAvg);

/** A successive-halving app (Hyperband): n configurations, budget B serial GPU-seconds (spec A.3.2). */
struct SuccessiveHalvingApp
{
    std::vector<double> iterS; ///< per configuration, serial seconds per iteration (n = size, a power of two)
    double budgetS = 0;        ///< B
    int demandMax = 1;         ///< job_demand_max of every job
    int appDemandMax = 1;      ///< app_demand_max: the most GPUs the app can use at once (T_cluster's cap)
    bool strict = false;       ///< strictSH: phase p caps each job at 2^(p-1) GPUs instead of demandMax
    int currentPhase = 1;      ///< 1-based
    /** Jobs of the current phase with their iterations left; empty: the phase starts now (its full budget). */
    std::vector<JobInfo> current;
};

/** P = log2(n) + 1 phases (choice 7). */
int phaseCount(int configurations);

/** Iterations of phase p (1-based) for each of its jobs: floor(B / (P J_p t_median)), the last the remainder. */
std::vector<double> phaseIterations(const SuccessiveHalvingApp& app);

/** Equation 2: rho with `gpus` held to completion; future phases use the median job as a stand-in. */
double rhoSuccessiveHalving(const SuccessiveHalvingApp& app, int gpus, double elapsedS, int clusterGpus, double nAvg);

/** Participants of one auction: max(1, ceil((1 - f) x eligible)) (choice 1; 0 when none is eligible). */
int filterCount(int eligible, double f);

} // namespace orrery::sched::themis
