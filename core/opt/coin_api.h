#pragma once

#include "opt/linear_model.h"
#include "opt/linear_program.h"
#include "opt/milp.h"
#include "opt/solve_status.h"

namespace orrery::opt::coin {

/**
 * The COIN-OR solvers (CLP for LinearProgram, CBC for solveMilp) live in a module of their own, loaded on the first
 * solve (coin_module.h): a process that never solves an LP does not map them and the nine libraries they bring
 * (Osi, Cgl, CoinUtils, LAPACK, BLAS, gfortran, ...), whose eager symbol binding was about a third of every
 * orrery-cli start (docs/performance.md, "Gavel's LP policies, whole process", fourth pass).
 *
 * This table is all the module exports. It passes the project's own C++ types, so core and module must come from
 * one build: kApiVersion changes with any change to the table or to the types it passes, and core refuses a module
 * of another version. The module uses only the header-only parts of those types (no liborrery symbol).
 */
inline constexpr int kApiVersion = 1;

/** A model loaded into CLP and kept between solves (the module's ClpSimplex). */
struct Lp;

struct Api
{
    int version;
    Lp* (*lpLoad)(const LinearModel& model, const LinearModel::ColumnMajor& matrix, const Limits& limits,
                  const LpOptions& options);
    void (*lpFree)(Lp* lp);
    Status (*lpSolve)(Lp* lp, LinearProgram::Method method);
    void (*lpSetRowLower)(Lp* lp, int row, double value);
    void (*lpSetColumnLower)(Lp* lp, int column, double value);
    void (*lpSetObjective)(Lp* lp, int column, double coefficient);
    const double* (*lpColumnValues)(const Lp* lp);
    /** solveMilp's search (everything but its timing). */
    MilpResult (*solveMilp)(const LinearModel& model, const LinearModel::ColumnMajor& matrix, const Limits& limits,
                            const MilpOptions& options);
};

/** The name of the module's one exported function, `const Api* orrery_coin_api()`. */
inline constexpr const char* kEntryPoint = "orrery_coin_api";

} // namespace orrery::opt::coin
