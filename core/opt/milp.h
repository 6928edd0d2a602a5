#pragma once

#include "opt/linear_model.h"
#include "opt/solve_status.h"

#include <functional>
#include <vector>

namespace orrery::opt {

struct MilpResult
{
    Status status = Status::Failed;
    /** The best solution found (empty when none): optimal when status is Optimal, else the incumbent. */
    std::vector<double> values;
    double objective = 0;
    /** The best objective any solution could reach, as far as the search proved (the objective when Optimal);
     *  objective - bound is what a limit may have left on the table. */
    double bound = 0;
    int nodes = 0;     ///< branch-and-bound nodes explored
    double solveS = 0; ///< wall seconds (reported, never used to decide)
};

/**
 * A caller's first incumbent, from the root LP: given the LP relaxation's column values, a feasible value for
 * every column (empty: none). CBC starts from it, so a node limit ends on an assignment at least this good and its
 * bound prunes from the first node. A model-specific rounding knows what CBC's generic heuristics do not.
 */
using MilpIncumbent = std::function<std::vector<double>(const std::vector<double>& rootLp)>;

/** How CBC searches (never when it stops: that is Limits'). */
struct MilpOptions
{
    MilpIncumbent incumbent;
    /** Candidates CBC evaluates by strong branching at each node (its default 5); 0 branches on pseudo-costs alone,
     *  which pays on models with thousands of near-tied columns, where each candidate costs two LP solves. */
    int strongBranching = 5;
};

/**
 * Solves a mixed-integer model with COIN-OR CBC (CLP for the node LPs), within Limits' node and per-LP iteration
 * counts; the wall time is added to this thread's solver seconds (solver_clock.h).
 */
MilpResult solveMilp(const LinearModel& model, Limits limits = {}, const MilpOptions& options = {});

} // namespace orrery::opt
