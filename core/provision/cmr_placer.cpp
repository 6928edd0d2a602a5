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

} // namespace

namespace {

/** Per-plan tables of Algorithm 2 line 3 (L_m, L_f), built once and shared by every stage-0 layer count. */
struct CmrTables
{
    std::vector<int> distinct;        // the plan's types, each once
    std::vector<int> count;           // stages of each distinct type
    std::vector<int> lf;              // l_f per distinct type
    std::vector<double> ratio;        // F(t) / M(t)
    std::vector<double> commPerLayer; // all-reduce of one layer
    std::vector<int> lm;              // l_m, [s * distinct + j]
    int k = 0;

    CmrTables(const PipelineModel& model, const std::vector<int>& types) : k(static_cast<int>(types.size()))
    {
        std::vector<int> sorted = types;
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t i = 0; i < sorted.size(); ++i) {
            if (i > 0 && sorted[i - 1] == sorted[i]) {
                ++count.back();
                continue;
            }
            const int t = sorted[i];
            distinct.push_back(t);
            count.push_back(1);
            lf.push_back(loadBalancedLayers(model, types, t));
            ratio.push_back(model.peakTFlops(t) / model.memoryGB(t));
            commPerLayer.push_back(model.layerAllReduceS(t));
        }
        lm.resize(static_cast<std::size_t>(k) * distinct.size());
        for (int s = 0; s < k; ++s)
            for (std::size_t j = 0; j < distinct.size(); ++j)
                lm[static_cast<std::size_t>(s) * distinct.size() + j] = model.maxLayers(distinct[j], s, k);
    }
    int maxLayers(int s, std::size_t j) const { return lm[static_cast<std::size_t>(s) * distinct.size() + j]; }
};

int commLayersOf(const CmrTables& tab, std::size_t j, double budgetS, int layers)
{
    const double perLayer = tab.commPerLayer[j];
    if (perLayer <= 0)
        return layers;
    const int l = static_cast<int>(std::floor(budgetS / perLayer + 1e-9));
    return std::clamp(l, 1, layers);
}

Placement placeWithStage0(const PipelineModel& model, const CmrTables& tab, int l0, CmrTrace* trace,
                          double cutoffS = INFINITY)
{
    const int k = tab.k;
    const std::size_t n = tab.distinct.size();
    thread_local std::vector<int> left;
    left.assign(tab.count.begin(), tab.count.end());
    if (trace) {
        *trace = CmrTrace{};
        trace->stage0Layers = l0;
    }
    auto cmrOf = [&](std::size_t j, int lm, int lc) {
        return tab.ratio[j] * static_cast<double>(std::max(lm, lc)) / std::max(1, lc);
    };

    CmrChoice choice;
    int j0 = -1;
    double best0 = 0;
    for (std::size_t j = 0; j < n; ++j) {
        const int lm = tab.maxLayers(0, j);
        if (lm < l0)
            continue;
        // At stage 0 the overlap budget is that stage's own sync, so l_c = l0 and alpha = l_m / l0.
        const double v = cmrOf(j, lm, l0);
        if (trace)
            choice.cmr.emplace_back(tab.distinct[j], v);
        if (preferred(model, tab.distinct[j], v, j0 < 0 ? -1 : tab.distinct[static_cast<std::size_t>(j0)], best0)) {
            j0 = static_cast<int>(j);
            best0 = v;
        }
    }
    if (j0 < 0)
        return {};
    const int t0 = tab.distinct[static_cast<std::size_t>(j0)];
    if (trace) {
        choice.chosen = t0;
        choice.layers = l0;
        trace->choices.push_back(choice);
    }

    thread_local std::vector<Stage> g;
    g.clear();
    g.push_back({t0, l0});
    --left[static_cast<std::size_t>(j0)];
    double overlapS = static_cast<double>(l0) * tab.commPerLayer[static_cast<std::size_t>(j0)];
    for (int s = 1; s < k; ++s) {
        const auto& prev = g.back();
        overlapS += model.backwardS(prev.gpu, prev.layers, s - 1, k);
        CmrChoice c;
        c.stage = s;
        int js = -1;
        double bestV = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (left[j] == 0)
                continue;
            const double v = cmrOf(j, tab.maxLayers(s, j), commLayersOf(tab, j, overlapS, model.layers()));
            if (trace)
                c.cmr.emplace_back(tab.distinct[j], v);
            if (preferred(model, tab.distinct[j], v, js < 0 ? -1 : tab.distinct[static_cast<std::size_t>(js)], bestV)) {
                js = static_cast<int>(j);
                bestV = v;
            }
        }
        const auto uj = static_cast<std::size_t>(js);
        const int layers = std::min(tab.maxLayers(s, uj), tab.lf[uj]);
        g.push_back({tab.distinct[uj], layers});
        --left[uj];
        if (trace) {
            c.chosen = tab.distinct[uj];
            c.layers = layers;
            trace->choices.push_back(std::move(c));
        }
    }
    if (trace)
        trace->beforeAdjust = g;
    std::vector<Stage> stages = g;
    if (!adjustToCoverAllLayers(model, stages))
        return {};
    Placement p = scorePlacement(model, std::move(stages), cutoffS);
    if (trace)
        trace->result = p;
    return p;
}

} // namespace

Placement cmrPlaceWithStage0(const PipelineModel& model, const std::vector<int>& types, int stage0Layers,
                             CmrTrace* trace)
{
    return placeWithStage0(model, CmrTables(model, types), stage0Layers, trace);
}

Placement cmrPlace(const PipelineModel& model, const std::vector<int>& types, int* bestStage0, double cutoffS)
{
    const CmrTables tab(model, types);
    const int k = tab.k;
    int lmax = 0;
    for (std::size_t j = 0; j < tab.distinct.size(); ++j)
        lmax = std::max(lmax, tab.maxLayers(0, j));
    // Every later stage needs at least one layer.
    lmax = std::min(lmax, model.layers() - (k - 1));
    // Try stage-0 sizes from the even share outwards so a good candidate comes early and the
    // estimator's lower bound cuts most others; ties still go to the smallest l0.
    const int even = std::clamp(model.layers() / k, 1, std::max(1, lmax));
    Placement best;
    int bestL0 = 0;
    for (int step = 0; step <= lmax; ++step) {
        for (int l0 : {even - step, even + step}) {
            if (l0 < 1 || l0 > lmax || (step == 0 && l0 != even - step))
                continue;
            const double cut = std::min(cutoffS, best.iterationS * (1 + 1e-12));
            Placement p = placeWithStage0(model, tab, l0, nullptr, cut);
            if (!p.valid)
                continue;
            if (p.iterationS < best.iterationS || (p.iterationS == best.iterationS && l0 < bestL0)) {
                best = std::move(p);
                bestL0 = l0;
            }
        }
    }
    if (bestStage0 && best.valid)
        *bestStage0 = bestL0;
    return best;
}

} // namespace orrery::provision
