#include "provision/baseline_placers.h"

#include <coin/CbcModel.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/CoinPackedVector.hpp>
#include <coin/OsiClpSolverInterface.hpp>

#include <algorithm>
#include <cmath>

namespace orrery::provision {

std::vector<int> hphOrder(const PipelineModel& model, std::vector<int> types)
{
    std::stable_sort(types.begin(), types.end(), [&](int a, int b) {
        if (model.peakTFlops(a) != model.peakTFlops(b))
            return model.peakTFlops(a) < model.peakTFlops(b);
        if (model.memoryGB(a) != model.memoryGB(b))
            return model.memoryGB(a) < model.memoryGB(b);
        return a < b;
    });
    return types;
}

Placement hphPlace(const PipelineModel& model, const std::vector<int>& types, double cutoffS)
{
    const std::vector<int> order = hphOrder(model, types);
    const int k = static_cast<int>(order.size());
    const int L = model.layers();
    if (k > L)
        return {};
    // Variables: l_0..l_{k-1} (integer layers per stage), then T (the slowest stage's time).
    // min T  s.t.  T - u_s l_s >= e_s (per-layer time u_s, fixed embedding/head time e_s),
    //              sum l_s = L,  1 <= l_s <= l_m(t_s, s).
    const int n = k + 1;
    std::vector<double> colLo(static_cast<std::size_t>(n)), colUp(static_cast<std::size_t>(n)),
        obj(static_cast<std::size_t>(n), 0.0);
    for (int s = 0; s < k; ++s) {
        const int lm = model.maxLayers(order[static_cast<std::size_t>(s)], s, k);
        if (lm < 1)
            return {};
        colLo[static_cast<std::size_t>(s)] = 1;
        colUp[static_cast<std::size_t>(s)] = lm;
    }
    colLo[static_cast<std::size_t>(k)] = 0;
    colUp[static_cast<std::size_t>(k)] = COIN_DBL_MAX;
    obj[static_cast<std::size_t>(k)] = 1;

    CoinPackedMatrix matrix(false, 0, 0);
    std::vector<double> rowLo, rowUp;
    for (int s = 0; s < k; ++s) {
        const int t = order[static_cast<std::size_t>(s)];
        const double perLayer = model.forwardS(t, 1, s, k) + model.backwardS(t, 1, s, k) - model.forwardS(t, 0, s, k) -
                                model.backwardS(t, 0, s, k);
        const double fixed = model.forwardS(t, 0, s, k) + model.backwardS(t, 0, s, k);
        CoinPackedVector row;
        row.insert(k, 1.0);
        row.insert(s, -perLayer);
        matrix.appendRow(row);
        rowLo.push_back(fixed);
        rowUp.push_back(COIN_DBL_MAX);
    }
    CoinPackedVector sum;
    for (int s = 0; s < k; ++s)
        sum.insert(s, 1.0);
    matrix.appendRow(sum);
    rowLo.push_back(L);
    rowUp.push_back(L);

    OsiClpSolverInterface solver;
    solver.messageHandler()->setLogLevel(0);
    solver.loadProblem(matrix, colLo.data(), colUp.data(), obj.data(), rowLo.data(), rowUp.data());
    for (int s = 0; s < k; ++s)
        solver.setInteger(s);
    CbcModel cbc(solver);
    cbc.setLogLevel(0);
    cbc.messageHandler()->setLogLevel(0);
    cbc.branchAndBound();
    if (!cbc.isProvenOptimal() || cbc.bestSolution() == nullptr)
        return {};
    const double* x = cbc.bestSolution();
    std::vector<Stage> stages;
    stages.reserve(static_cast<std::size_t>(k));
    for (int s = 0; s < k; ++s)
        stages.push_back({order[static_cast<std::size_t>(s)], static_cast<int>(std::lround(x[s]))});
    return scorePlacement(model, std::move(stages), cutoffS);
}

} // namespace orrery::provision
