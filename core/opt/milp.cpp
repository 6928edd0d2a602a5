#include "opt/milp.h"

#include "opt/solver_clock.h"

#include <coin/CbcModel.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <cmath>
#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace orrery::opt {

namespace {

/**
 * CBC allocates and frees blocks of a few hundred KiB at every node. glibc gives the top of the heap back to the
 * kernel whenever more than 128 KiB of it is free (its trim threshold), so each node moved the heap's end down and
 * up again and faulted its pages back in: half the CPU of a 454-node solve of Sia's ILP went to brk and page faults
 * (docs/performance.md, "Sia at scale"). Keeping up to kHeapSlackBytes of free heap ends that; it is a process-wide
 * setting, made once, before the first MILP.
 */
void keepHeapSlack()
{
#if defined(__GLIBC__)
    constexpr int kHeapSlackBytes = 64 << 20;
    static std::once_flag once;
    std::call_once(once, [] { mallopt(M_TRIM_THRESHOLD, kHeapSlackBytes); });
#endif
}

std::vector<double> coinBounds(const std::vector<double>& values)
{
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        out[i] = std::isinf(values[i]) ? (values[i] > 0 ? COIN_DBL_MAX : -COIN_DBL_MAX) : values[i];
    return out;
}

} // namespace

MilpResult solveMilp(const LinearModel& model, Limits limits, const MilpOptions& options)
{
    keepHeapSlack();
    const SolverTimer timer;
    const auto matrix = model.columnMajor();
    const std::vector<CoinBigIndex> start(matrix.start.begin(), matrix.start.end());
    const auto colLower = coinBounds(model.columnLower());
    const auto colUpper = coinBounds(model.columnUpper());
    const auto rowLower = coinBounds(model.rowLower());
    const auto rowUpper = coinBounds(model.rowUpper());
    OsiClpSolverInterface solver;
    solver.messageHandler()->setLogLevel(0);
    solver.loadProblem(model.columns(), model.rows(), start.data(), matrix.index.data(), matrix.value.data(),
                       colLower.data(), colUpper.data(), model.objective().data(), rowLower.data(), rowUpper.data());
    solver.setObjSense(model.sense() == Sense::Maximize ? -1.0 : 1.0);
    solver.setIntParam(OsiMaxNumIteration, limits.maxIterations);
    for (int c = 0; c < model.columns(); ++c)
        if (model.integer()[static_cast<std::size_t>(c)])
            solver.setInteger(c);
    CbcModel cbc(solver);
    cbc.setLogLevel(0);
    cbc.messageHandler()->setLogLevel(0);
    cbc.setMaximumNodes(limits.maxNodes);
    if (limits.relativeGap > 0)
        cbc.setAllowableFractionGap(limits.relativeGap);
    if (limits.absoluteGap > 0)
        cbc.setAllowableGap(limits.absoluteGap);
    cbc.setNumberStrong(options.strongBranching);
    if (options.incumbent) {
        cbc.initialSolve();
        const OsiSolverInterface* root = cbc.solver();
        if (root->isProvenOptimal()) {
            const double* lp = root->getColSolution();
            const std::vector<double> start = options.incumbent(std::vector<double>(lp, lp + model.columns()));
            if (static_cast<int>(start.size()) == model.columns()) {
                // CBC keeps its incumbent's objective as a minimisation; the caller vouches for feasibility.
                double objective = 0;
                for (int c = 0; c < model.columns(); ++c)
                    objective += model.objective()[static_cast<std::size_t>(c)] * start[static_cast<std::size_t>(c)];
                const double direction = model.sense() == Sense::Maximize ? -1.0 : 1.0;
                cbc.setBestSolution(start.data(), model.columns(), objective * direction, false);
            }
        }
    }
    cbc.branchAndBound();

    MilpResult out;
    if (cbc.isProvenOptimal())
        out.status = Status::Optimal;
    else if (cbc.isProvenInfeasible())
        out.status = Status::Infeasible;
    else if (cbc.isContinuousUnbounded())
        out.status = Status::Unbounded;
    else if (cbc.isNodeLimitReached())
        out.status = Status::NodeLimit;
    else
        out.status = Status::Failed;
    if (const double* x = cbc.bestSolution()) {
        out.values.assign(x, x + model.columns());
        out.objective = cbc.getObjValue();
    }
    out.bound = cbc.getBestPossibleObjValue();
    out.nodes = cbc.getNodeCount();
    out.solveS = timer.elapsedS();
    return out;
}

} // namespace orrery::opt
