#pragma once

#include "opt/linear_model.h"
#include "opt/solve_status.h"

#include <memory>
#include <vector>

namespace orrery::opt {

namespace coin {
struct Lp;
}

struct LpOptions
{
    /** CLP's scaling of rows and columns; off pays on small LPs whose coefficients are all of order 1. */
    bool scaling = true;
};

/**
 * An LP loaded into COIN-OR CLP (in the solver module, coin_module.h) and kept between solves: bounds and objective
 * coefficients may change, and the next solve starts from the last basis (a bisection over a bound re-solves in a few
 * dual pivots). Each solve is limited by Limits::maxIterations, never by time, and its wall time is added to this
 * thread's solver seconds (solver_clock.h).
 */
class LinearProgram
{
public:
    /** How a solve runs (CLP's names). */
    enum class Method {
        Initial, ///< CLP's initialSolve: presolve, then its choice of simplex
        Primal,  ///< primal simplex from the current basis
        Dual,    ///< dual simplex from the current basis (after a change of row or column bounds), reusing its
                 ///< factorisation
        BarrierNoCrossover, ///< interior point without crossover or presolve: a point inside the optimal face
    };

    explicit LinearProgram(const LinearModel& model, Limits limits = {}, LpOptions options = {});
    ~LinearProgram();
    LinearProgram(const LinearProgram&) = delete;
    LinearProgram& operator=(const LinearProgram&) = delete;

    Status solve(Method method);

    void setRowLower(int row, double value);
    void setColumnLower(int column, double value);
    void setObjective(int column, double coefficient);

    /** The last solve's column values (unclamped, as the solver left them). */
    const double* columnValues() const;
    double value(int column) const { return columnValues()[column]; }
    int columns() const { return m_columns; }
    /** Wall seconds of the last solve and of every solve so far (reported, never used to decide). */
    double lastSolveS() const { return m_lastSolveS; }
    double totalSolveS() const { return m_totalSolveS; }

private:
    coin::Lp* m_lp = nullptr; ///< owned; in the solver module (coin_module.h), freed through it
    int m_columns = 0;
    double m_lastSolveS = 0, m_totalSolveS = 0;
};

} // namespace orrery::opt
