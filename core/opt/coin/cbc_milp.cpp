// solveMilp's search through CBC (CLP for the node LPs), inside the solver module (coin_api.h).
#include "opt/coin/coin_bounds.h"
#include "opt/coin/module_parts.h"

#include <coin/CbcModel.hpp>
#include <coin/OsiClpSolverInterface.hpp>

namespace orrery::opt::coin {

MilpResult solveMilp(const LinearModel& model, const LinearModel::ColumnMajor& matrix, const Limits& limits,
                     const MilpOptions& options)
{
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
            const std::vector<double> first = options.incumbent(std::vector<double>(lp, lp + model.columns()));
            if (static_cast<int>(first.size()) == model.columns()) {
                // CBC keeps its incumbent's objective as a minimisation; the caller vouches for feasibility.
                double objective = 0;
                for (int c = 0; c < model.columns(); ++c)
                    objective += model.objective()[static_cast<std::size_t>(c)] * first[static_cast<std::size_t>(c)];
                const double direction = model.sense() == Sense::Maximize ? -1.0 : 1.0;
                cbc.setBestSolution(first.data(), model.columns(), objective * direction, false);
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
    return out;
}

} // namespace orrery::opt::coin
