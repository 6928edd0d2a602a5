#pragma once

namespace orrery::opt {

/**
 * How far a solver may go. Counts, never wall time, so that a solve (and with it a simulated run) is a function
 * of its inputs: the same model gives the same answer on a fast machine and a loaded one.
 */
struct Limits
{
    int maxIterations = 1'000'000; ///< simplex or barrier iterations per solve (per node LP under CBC)
    int maxNodes = 1'000'000;      ///< branch-and-bound nodes (MILP)
    /** MILP: stop once the incumbent is within this fraction of the best bound (CBC's allowable fraction gap);
     *  0 = prove optimality. A gap, like the counts, is a function of the model, never of the clock. */
    double relativeGap = 0;
    /** MILP: stop once the incumbent is within this much of the best bound (CBC's allowable gap); 0 = none. */
    double absoluteGap = 0;
};

enum class Status {
    Optimal,
    Infeasible,
    Unbounded,
    IterationLimit, ///< stopped by Limits::maxIterations
    NodeLimit,      ///< stopped by Limits::maxNodes (a MILP may still have a feasible solution)
    Failed,         ///< numerical trouble or another solver status
};

const char* toString(Status status);

} // namespace orrery::opt
