#include "provision/baseline_placers.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace orrery::provision {

std::vector<int> whaleOrder(const PipelineModel& model, std::vector<int> types)
{
    std::stable_sort(types.begin(), types.end(), [&](int a, int b) {
        if (model.memoryGB(a) != model.memoryGB(b))
            return model.memoryGB(a) > model.memoryGB(b);
        if (model.peakTFlops(a) != model.peakTFlops(b))
            return model.peakTFlops(a) > model.peakTFlops(b);
        return a < b;
    });
    return types;
}

Placement whalePlace(const PipelineModel& model, const std::vector<int>& types, double cutoffS)
{
    const std::vector<int> order = whaleOrder(model, types);
    const int k = static_cast<int>(order.size());
    const int L = model.layers();
    if (k > L)
        return {};
    double sumF = 0;
    for (int t : order)
        sumF += model.peakTFlops(t);
    // Proportional shares, rounded by largest remainder (earlier stage on ties).
    std::vector<int> layers(static_cast<std::size_t>(k));
    std::vector<double> frac(static_cast<std::size_t>(k));
    int assigned = 0;
    for (int s = 0; s < k; ++s) {
        const double share = L * model.peakTFlops(order[static_cast<std::size_t>(s)]) / sumF;
        layers[static_cast<std::size_t>(s)] = std::max(1, static_cast<int>(std::floor(share)));
        frac[static_cast<std::size_t>(s)] = share - std::floor(share);
        assigned += layers[static_cast<std::size_t>(s)];
    }
    std::vector<int> idx(static_cast<std::size_t>(k));
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
        return frac[static_cast<std::size_t>(a)] > frac[static_cast<std::size_t>(b)];
    });
    for (std::size_t i = 0; assigned < L; i = (i + 1) % idx.size(), ++assigned)
        ++layers[static_cast<std::size_t>(idx[i])];
    while (assigned > L) {
        // Only when the one-layer minimum over-assigned: take from the largest stage.
        --*std::max_element(layers.begin(), layers.end());
        --assigned;
    }
    // Cap by memory, spilling the excess to the next stage; the last stage spills backwards.
    for (int s = 0; s < k - 1; ++s) {
        const int lm = model.maxLayers(order[static_cast<std::size_t>(s)], s, k);
        auto& l = layers[static_cast<std::size_t>(s)];
        if (l > lm) {
            layers[static_cast<std::size_t>(s + 1)] += l - std::max(lm, 1);
            l = std::max(lm, 1);
        }
    }
    int excess = layers.back() - model.maxLayers(order.back(), k - 1, k);
    for (int s = k - 2; s >= 0 && excess > 0; --s) {
        const int slack =
            model.maxLayers(order[static_cast<std::size_t>(s)], s, k) - layers[static_cast<std::size_t>(s)];
        const int move = std::clamp(slack, 0, excess);
        layers[static_cast<std::size_t>(s)] += move;
        layers.back() -= move;
        excess -= move;
    }
    std::vector<Stage> stages;
    stages.reserve(static_cast<std::size_t>(k));
    for (int s = 0; s < k; ++s)
        stages.push_back({order[static_cast<std::size_t>(s)], layers[static_cast<std::size_t>(s)]});
    return scorePlacement(model, std::move(stages), cutoffS);
}

Placement evenPlace(const PipelineModel& model, const std::vector<int>& types)
{
    const int k = static_cast<int>(types.size());
    const int L = model.layers();
    if (k > L)
        return {};
    std::vector<Stage> stages;
    stages.reserve(static_cast<std::size_t>(k));
    for (int s = 0; s < k; ++s)
        stages.push_back({types[static_cast<std::size_t>(s)], L / k + (s >= k - L % k ? 1 : 0)});
    return scorePlacement(model, std::move(stages));
}

} // namespace orrery::provision
