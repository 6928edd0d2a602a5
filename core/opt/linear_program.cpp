#include "opt/linear_program.h"

#include "opt/solver_clock.h"

#include <coin/ClpSimplex.hpp>
#include <coin/ClpSolve.hpp>

#include <cmath>

namespace orrery::opt {

namespace {

/** COIN-OR marks a missing bound with COIN_DBL_MAX; the model says infinity. */
double coinBound(double v)
{
    if (std::isinf(v))
        return v > 0 ? COIN_DBL_MAX : -COIN_DBL_MAX;
    return v;
}

std::vector<double> coinBounds(const std::vector<double>& values)
{
    std::vector<double> out(values.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        out[i] = coinBound(values[i]);
    return out;
}

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

LinearProgram::LinearProgram(const LinearModel& model, Limits limits, LpOptions options)
    : m_clp(std::make_unique<ClpSimplex>()), m_columns(model.columns())
{
    const auto matrix = model.columnMajor();
    std::vector<CoinBigIndex> start(matrix.start.begin(), matrix.start.end());
    const auto colLower = coinBounds(model.columnLower());
    const auto colUpper = coinBounds(model.columnUpper());
    const auto rowLower = coinBounds(model.rowLower());
    const auto rowUpper = coinBounds(model.rowUpper());
    m_clp->setLogLevel(0);
    m_clp->loadProblem(model.columns(), model.rows(), start.data(), matrix.index.data(), matrix.value.data(),
                       colLower.data(), colUpper.data(), model.objective().data(), rowLower.data(), rowUpper.data());
    m_clp->setOptimizationDirection(model.sense() == Sense::Maximize ? -1 : 1);
    m_clp->setMaximumIterations(limits.maxIterations);
    if (!options.scaling)
        m_clp->scaling(0);
}

LinearProgram::~LinearProgram() = default;

Status LinearProgram::solve(Method method)
{
    const SolverTimer timer;
    switch (method) {
    case Method::Initial:
        m_clp->initialSolve();
        break;
    case Method::Primal:
        m_clp->primal();
        break;
    case Method::Dual:
        // 7: keep the factorisation and work areas after the solve (1), reuse the old factorisation (2) and skip
        // what initialisation it can (4): a warm dual after a bound change then costs a third less on Gavel's
        // LPs (docs/performance.md), with the same answers on every Gavel validation trace.
        m_clp->dual(0, 7);
        break;
    case Method::BarrierNoCrossover: {
        ClpSolve options;
        options.setSolveType(ClpSolve::useBarrierNoCross);
        options.setPresolveType(ClpSolve::presolveOff);
        m_clp->initialSolve(options);
        break;
    }
    }
    m_lastSolveS = timer.elapsedS();
    m_totalSolveS += m_lastSolveS;
    return fromClp(m_clp->status());
}

void LinearProgram::setRowLower(int row, double value)
{
    m_clp->setRowLower(row, coinBound(value));
}

void LinearProgram::setColumnLower(int column, double value)
{
    m_clp->setColumnLower(column, coinBound(value));
}

void LinearProgram::setObjective(int column, double coefficient)
{
    m_clp->setObjectiveCoefficient(column, coefficient);
}

const double* LinearProgram::columnValues() const
{
    return m_clp->primalColumnSolution();
}

} // namespace orrery::opt
