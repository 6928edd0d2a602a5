#include "provision/cmr_placer.h"

#include <algorithm>
#include <cmath>

namespace orrery::provision {

int loadBalancedLayers(const PipelineModel& model, const std::vector<int>& types, int type)
{
    double sum = 0;
    for (int t : types)
        sum += model.peakTFlops(t);
    if (sum <= 0)
        return 0;
    return static_cast<int>(std::floor(model.layers() * model.peakTFlops(type) / sum + 1e-9));
}

double computeMemoryRatio(const PipelineModel& model, int type, int maxLayers, int commLayers)
{
    const double alpha = static_cast<double>(std::max(maxLayers, commLayers)) / std::max(1, commLayers);
    return model.peakTFlops(type) / model.memoryGB(type) * alpha;
}

namespace {

/** Spec B.11 #11: ties go to the larger memory, then the lower price, then the lower type index. */
bool preferred(const PipelineModel& model, int a, double va, int b, double vb)
{
    if (b < 0)
        return true;
    if (va != vb)
        return va < vb;
    if (model.memoryGB(a) != model.memoryGB(b))
        return model.memoryGB(a) > model.memoryGB(b);
    if (model.price(a) != model.price(b))
        return model.price(a) < model.price(b);
    return a < b;
}

/** The most layers whose all-reduce fits in the overlap budget; L when the sync is free. */
int commLayers(const PipelineModel& model, int type, double budgetS)
{
    const double perLayer = model.layerAllReduceS(type);
    if (perLayer <= 0)
        return model.layers();
    const int l = static_cast<int>(std::floor(budgetS / perLayer + 1e-9));
    return std::clamp(l, 1, model.layers());
}

} // namespace

Placement cmrPlaceWithStage0(const PipelineModel& model, const std::vector<int>& types, int stage0Layers,
                             CmrTrace* trace)
{
    const int k = static_cast<int>(types.size());
    const int l0 = stage0Layers;
    // Remaining GPUs of the plan, one entry per stage still to place.
    std::vector<int> remaining = types;
    std::sort(remaining.begin(), remaining.end());
    if (trace) {
        *trace = CmrTrace{};
        trace->stage0Layers = l0;
    }

    CmrChoice choice;
    choice.stage = 0;
    int t0 = -1;
    double best0 = 0;
    for (std::size_t i = 0; i < remaining.size(); ++i) {
        const int t = remaining[i];
        if (i > 0 && remaining[i - 1] == t)
            continue;
        const int lm = model.maxLayers(t, 0, k);
        if (lm < l0)
            continue;
        // At stage 0 the overlap budget is that stage's own sync, so l_c = l0 and alpha = l_m / l0.
        const double v = computeMemoryRatio(model, t, lm, l0);
        if (trace)
            choice.cmr.emplace_back(t, v);
        if (preferred(model, t, v, t0, best0)) {
            t0 = t;
            best0 = v;
        }
    }
    if (t0 < 0)
        return {};
    choice.chosen = t0;
    choice.layers = l0;
    if (trace)
        trace->choices.push_back(choice);

    std::vector<Stage> g;
    g.reserve(static_cast<std::size_t>(k));
    g.push_back({t0, l0});
    remaining.erase(std::find(remaining.begin(), remaining.end(), t0));
    double overlapS = static_cast<double>(l0) * model.layerAllReduceS(t0);
    for (int s = 1; s < k; ++s) {
        const auto& prev = g.back();
        overlapS += model.backwardS(prev.gpu, prev.layers, s - 1, k);
        CmrChoice c;
        c.stage = s;
        int ts = -1;
        double bestV = 0;
        for (std::size_t i = 0; i < remaining.size(); ++i) {
            const int t = remaining[i];
            if (i > 0 && remaining[i - 1] == t)
                continue;
            const double v = computeMemoryRatio(model, t, model.maxLayers(t, s, k), commLayers(model, t, overlapS));
            if (trace)
                c.cmr.emplace_back(t, v);
            if (preferred(model, t, v, ts, bestV)) {
                ts = t;
                bestV = v;
            }
        }
        const int layers = std::min(model.maxLayers(ts, s, k), loadBalancedLayers(model, types, ts));
        g.push_back({ts, layers});
        remaining.erase(std::find(remaining.begin(), remaining.end(), ts));
        c.chosen = ts;
        c.layers = layers;
        if (trace)
            trace->choices.push_back(std::move(c));
    }
    if (trace)
        trace->beforeAdjust = g;
    if (!adjustToCoverAllLayers(model, g))
        return {};
    Placement p = scorePlacement(model, std::move(g));
    if (trace)
        trace->result = p;
    return p;
}

Placement cmrPlace(const PipelineModel& model, const std::vector<int>& types, int* bestStage0)
{
    const int k = static_cast<int>(types.size());
    int lmax = 0;
    for (int t : types)
        lmax = std::max(lmax, model.maxLayers(t, 0, k));
    // Every later stage needs at least one layer.
    lmax = std::min(lmax, model.layers() - (k - 1));
    Placement best;
    for (int l0 = 1; l0 <= lmax; ++l0) {
        Placement p = cmrPlaceWithStage0(model, types, l0);
        if (p.valid && p.iterationS < best.iterationS) {
            best = std::move(p);
            if (bestStage0)
                *bestStage0 = l0;
        }
    }
    return best;
}

} // namespace orrery::provision
