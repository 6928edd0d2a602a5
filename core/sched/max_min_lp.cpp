#include "sched/max_min_lp.h"

#include <coin/ClpSimplex.hpp>
#include <coin/CoinPackedMatrix.hpp>

#include <algorithm>

namespace orrery::sched {

bool solveMaxMin(int jobs, int types, const std::vector<double>& c, const std::vector<int>& demand,
                 const std::vector<int>& capacity, std::vector<double>& x)
{
    x.assign(static_cast<std::size_t>(jobs) * static_cast<std::size_t>(types), 0.0);
    if (jobs == 0)
        return true;
    const auto J = static_cast<std::size_t>(jobs);
    const auto T = static_cast<std::size_t>(types);
    // Columns: one x per (job, type) with c > 0, then z.
    std::vector<std::size_t> cell;
    for (std::size_t k = 0; k < J * T; ++k)
        if (c[k] > 0)
            cell.push_back(k);
    const int nx = static_cast<int>(cell.size());
    const int nrows = 2 * jobs + types;
    CoinPackedMatrix matrix(true, 0, 0); // column-ordered
    matrix.setDimensions(nrows, 0);
    std::vector<double> colLb, colUb, obj;
    for (std::size_t k : cell) {
        const int j = static_cast<int>(k / T);
        const int t = static_cast<int>(k % T);
        const int idx[3] = {j, jobs + j, 2 * jobs + t};
        const double val[3] = {-c[k], 1.0, static_cast<double>(demand[static_cast<std::size_t>(j)])};
        matrix.appendCol(3, idx, val);
        colLb.push_back(0);
        colUb.push_back(1);
        obj.push_back(0);
    }
    std::vector<int> zIdx(J);
    std::vector<double> zVal(J, 1.0);
    for (std::size_t j = 0; j < J; ++j)
        zIdx[j] = static_cast<int>(j);
    matrix.appendCol(jobs, zIdx.data(), zVal.data());
    colLb.push_back(0);
    colUb.push_back(COIN_DBL_MAX);
    obj.push_back(1);

    std::vector<double> rowLb(static_cast<std::size_t>(nrows), -COIN_DBL_MAX), rowUb(static_cast<std::size_t>(nrows));
    for (std::size_t j = 0; j < J; ++j) {
        rowUb[j] = 0;
        rowUb[J + j] = 1;
    }
    for (std::size_t t = 0; t < T; ++t)
        rowUb[2 * J + t] = capacity[t];

    ClpSimplex model;
    model.setLogLevel(0);
    model.loadProblem(matrix, colLb.data(), colUb.data(), obj.data(), rowLb.data(), rowUb.data());
    model.setOptimizationDirection(-1); // maximise
    model.primal();
    if (model.status() != 0)
        return false;
    const double zStar = model.primalColumnSolution()[nx];

    // Second stage: hold the min, maximise total normalised throughput.
    model.setColumnLower(nx, zStar * (1 - 1e-7));
    model.setObjectiveCoefficient(nx, 0);
    for (int i = 0; i < nx; ++i)
        model.setObjectiveCoefficient(i, c[cell[static_cast<std::size_t>(i)]]);
    model.primal();
    if (model.status() != 0)
        return false;
    const double* sol = model.primalColumnSolution();
    for (int i = 0; i < nx; ++i)
        x[cell[static_cast<std::size_t>(i)]] = std::clamp(sol[i], 0.0, 1.0);
    return true;
}

} // namespace orrery::sched
