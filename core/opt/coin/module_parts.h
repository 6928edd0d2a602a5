#pragma once

// The solver module's functions, one file each (clp_lp.cpp, cbc_milp.cpp), gathered into its table by
// api_table.cpp. Only that table is exported (coin_api.h).
#include "opt/coin_api.h"

namespace orrery::opt::coin {

Lp* lpLoad(const LinearModel& model, const LinearModel::ColumnMajor& matrix, const Limits& limits,
           const LpOptions& options);
void lpFree(Lp* lp);
Status lpSolve(Lp* lp, LinearProgram::Method method);
void lpSetRowLower(Lp* lp, int row, double value);
void lpSetColumnLower(Lp* lp, int column, double value);
void lpSetObjective(Lp* lp, int column, double coefficient);
const double* lpColumnValues(const Lp* lp);
MilpResult solveMilp(const LinearModel& model, const LinearModel::ColumnMajor& matrix, const Limits& limits,
                     const MilpOptions& options);

} // namespace orrery::opt::coin
