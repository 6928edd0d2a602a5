#include "provision/baseline_placers.h"

#include "opt/milp.h"

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
    opt::LinearModel milp;
    for (int s = 0; s < k; ++s) {
        const int lm = model.maxLayers(order[static_cast<std::size_t>(s)], s, k);
        if (lm < 1)
            return {};
        milp.addColumn(1, lm, 0, true);
    }
    const int slowest = milp.addColumn(0, opt::kInfinity, 1);
    for (int s = 0; s < k; ++s) {
        const int t = order[static_cast<std::size_t>(s)];
        const double perLayer = model.forwardS(t, 1, s, k) + model.backwardS(t, 1, s, k) - model.forwardS(t, 0, s, k) -
                                model.backwardS(t, 0, s, k);
        const double fixed = model.forwardS(t, 0, s, k) + model.backwardS(t, 0, s, k);
        milp.addRow({slowest, s}, {1.0, -perLayer}, fixed, opt::kInfinity);
    }
    std::vector<int> all(static_cast<std::size_t>(k));
    for (int s = 0; s < k; ++s)
        all[static_cast<std::size_t>(s)] = s;
    milp.addRow(all, std::vector<double>(static_cast<std::size_t>(k), 1.0), L, L);

    const opt::MilpResult result = opt::solveMilp(milp);
    if (result.status != opt::Status::Optimal || result.values.empty())
        return {};
    const double* x = result.values.data();
    std::vector<Stage> stages;
    stages.reserve(static_cast<std::size_t>(k));
    for (int s = 0; s < k; ++s)
        stages.push_back({order[static_cast<std::size_t>(s)], static_cast<int>(std::lround(x[s]))});
    return scorePlacement(model, std::move(stages), cutoffS);
}

} // namespace orrery::provision
