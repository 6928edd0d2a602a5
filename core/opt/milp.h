#pragma once

#include "opt/linear_model.h"
#include "opt/solve_status.h"

#include <vector>

namespace orrery::opt {

struct MilpResult
{
    Status status = Status::Failed;
    /** The best solution found (empty when none): optimal when status is Optimal, else the incumbent. */
    std::vector<double> values;
    double objective = 0;
    int nodes = 0;     ///< branch-and-bound nodes explored
    double solveS = 0; ///< wall seconds (reported, never used to decide)
};

/**
 * Solves a mixed-integer model with COIN-OR CBC (CLP for the node LPs), within Limits' node and per-LP iteration
 * counts; the wall time is added to this thread's solver seconds (solver_clock.h).
 */
MilpResult solveMilp(const LinearModel& model, Limits limits = {});

} // namespace orrery::opt
