#include "opt/linear_program.h"

#include "opt/coin_module.h"
#include "opt/solver_clock.h"

namespace orrery::opt {

LinearProgram::LinearProgram(const LinearModel& model, Limits limits, LpOptions options)
    : m_lp(coin::api().lpLoad(model, model.columnMajor(), limits, options)), m_columns(model.columns())
{}

LinearProgram::~LinearProgram()
{
    coin::api().lpFree(m_lp);
}

Status LinearProgram::solve(Method method)
{
    const SolverTimer timer;
    const Status status = coin::api().lpSolve(m_lp, method);
    m_lastSolveS = timer.elapsedS();
    m_totalSolveS += m_lastSolveS;
    return status;
}

void LinearProgram::setRowLower(int row, double value)
{
    coin::api().lpSetRowLower(m_lp, row, value);
}

void LinearProgram::setColumnLower(int column, double value)
{
    coin::api().lpSetColumnLower(m_lp, column, value);
}

void LinearProgram::setObjective(int column, double coefficient)
{
    coin::api().lpSetObjective(m_lp, column, coefficient);
}

const double* LinearProgram::columnValues() const
{
    return coin::api().lpColumnValues(m_lp);
}

} // namespace orrery::opt
