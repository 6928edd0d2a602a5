// LinearProgram's solves through CLP, inside the solver module (coin_api.h).
#include "opt/coin/coin_bounds.h"
#include "opt/coin/module_parts.h"

#include <coin/ClpSimplex.hpp>
#include <coin/ClpSolve.hpp>

namespace orrery::opt::coin {

struct Lp
{
    ClpSimplex clp;
};

namespace {

Status fromClp(int status)
{
    switch (status) {
    case 0:
        return Status::Optimal;
    case 1:
        return Status::Infeasible;
    case 2:
        return Status::Unbounded;
    case 3:
        return Status::IterationLimit;
    default:
        return Status::Failed;
    }
}

} // namespace

Lp* lpLoad(const LinearModel& model, const LinearModel::ColumnMajor& matrix, const Limits& limits,
           const LpOptions& options)
{
    auto lp = std::make_unique<Lp>();
    ClpSimplex& clp = lp->clp;
    std::vector<CoinBigIndex> start(matrix.start.begin(), matrix.start.end());
    const auto colLower = coinBounds(model.columnLower());
    const auto colUpper = coinBounds(model.columnUpper());
    const auto rowLower = coinBounds(model.rowLower());
    const auto rowUpper = coinBounds(model.rowUpper());
    clp.setLogLevel(0);
    clp.loadProblem(model.columns(), model.rows(), start.data(), matrix.index.data(), matrix.value.data(),
                    colLower.data(), colUpper.data(), model.objective().data(), rowLower.data(), rowUpper.data());
    clp.setOptimizationDirection(model.sense() == Sense::Maximize ? -1 : 1);
    clp.setMaximumIterations(limits.maxIterations);
    if (!options.scaling)
        clp.scaling(0);
    return lp.release();
}

void lpFree(Lp* lp)
{
    delete lp;
}

Status lpSolve(Lp* lp, LinearProgram::Method method)
{
    ClpSimplex& clp = lp->clp;
    switch (method) {
    case LinearProgram::Method::Initial:
        clp.initialSolve();
        break;
    case LinearProgram::Method::Primal:
        clp.primal();
        break;
    case LinearProgram::Method::Dual:
        // 7: keep the factorisation and work areas after the solve (1), reuse the old factorisation (2) and skip
        // what initialisation it can (4): a warm dual after a bound change then costs a third less on Gavel's
        // LPs (docs/performance.md), with the same answers on every Gavel validation trace.
        clp.dual(0, 7);
        break;
    case LinearProgram::Method::BarrierNoCrossover: {
        ClpSolve options;
        options.setSolveType(ClpSolve::useBarrierNoCross);
        options.setPresolveType(ClpSolve::presolveOff);
        clp.initialSolve(options);
        break;
    }
    }
    return fromClp(clp.status());
}

void lpSetRowLower(Lp* lp, int row, double value)
{
    lp->clp.setRowLower(row, coinBound(value));
}

void lpSetColumnLower(Lp* lp, int column, double value)
{
    lp->clp.setColumnLower(column, coinBound(value));
}

void lpSetObjective(Lp* lp, int column, double coefficient)
{
    lp->clp.setObjectiveCoefficient(column, coefficient);
}

const double* lpColumnValues(const Lp* lp)
{
    return lp->clp.getColSolution();
}

} // namespace orrery::opt::coin
