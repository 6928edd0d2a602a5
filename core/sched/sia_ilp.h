#pragma once

#include "opt/solve_status.h"

#include <vector>

namespace orrery::sched {

/**
 * Sia's round problem (docs/models/goodput.md, "Sia's ILP"): pick at most one configuration (GPU type, GPU count)
 * per job so that no type's GPUs are oversubscribed, minimising (for p < 0; maximising for p > 0)
 *     sum_j sum_c x[j][c] A[j][c] + lambdaN (jobs - sum_j sum_c x[j][c]),
 *     A[j][c] = min(clip, round2((f[j][c] v[j][c])^p)),
 * where v is the job's normalised goodput on c and f its restart factor on every configuration but its current
 * one. Solved with CBC (opt::solveMilp) over the configurations pruning leaves, from a starting assignment built
 * from the root LP, within a node limit ("Making CBC's rounds fast" there).
 */
struct SiaConfig
{
    int type = 0;     ///< sim GPU type
    int gpus = 1;     ///< GPUs of that type
    double value = 0; ///< normalised goodput (> 0)
};

struct SiaJob
{
    std::vector<SiaConfig> configs;
    int current = -1;         ///< index of the configuration it runs on now, -1 none
    double restartFactor = 1; ///< scales every configuration's value but the current one, in [0, 1]
};

struct SiaIlpOptions
{
    double p = -0.5;          ///< fairness exponent (sia_default_p_val)
    double lambdaN = 1.1;     ///< penalty per job left without GPUs (sia_default_lambda_n)
    double clip = 3000.0;     ///< cap on A (sia_goodput_clip_val)
    double gap = 1e-4;        ///< relative optimality gap at which CBC stops (sia_solver_thresh; 0: prove optimality)
    int maxNodes = 1'000'000; ///< branch-and-bound nodes; past them the best solution found (at least the start)
    /** Drop configurations no cheaper than a smaller one of the same job and type (or than none): the optimum's
     *  value is unchanged, the model smaller. */
    bool prune = true;
    /** Start CBC from the better of the root LP rounded (its fractional jobs completed exhaustively) and every job
     *  staying, each improved by single moves: a node limit then ends at least there. */
    bool incumbent = true;
    int strongBranching = 0; ///< CBC's strong-branching candidates per node (opt::MilpOptions)
};

struct SiaIlpResult
{
    opt::Status status = opt::Status::Failed;
    bool solved = false;     ///< a solution was found (optimal, or within the gap or a limit)
    std::vector<int> chosen; ///< per job: configuration index, -1 none
    double objective = 0;    ///< including the constant lambdaN x jobs
    /** The best objective any assignment could reach, as far as the search proved (the objective when optimal). */
    double bound = 0;
    int nodes = 0; ///< branch-and-bound nodes
};

/** A[j][c] as the objective weighs it (after the restart factor, the power, the rounding and the clip). */
double siaWeight(const SiaJob& job, int config, const SiaIlpOptions& options);

/** Solves one round; `capacity[t]` is type t's GPUs. */
SiaIlpResult solveSiaIlp(const std::vector<SiaJob>& jobs, const std::vector<int>& capacity,
                         const SiaIlpOptions& options);

} // namespace orrery::sched
