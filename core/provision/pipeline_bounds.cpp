#include "provision/pipeline_bounds.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace orrery::provision {

PipelineBounds::PipelineBounds(const PipelineModel& model, int k)
    : m_k(k), m_m(model.microBatches()), m_layers(model.layers())
{
    const int n = model.types();
    for (int t = 0; t < n; ++t) {
        const auto& layer = model.profile(t).layer;
        m_work.push_back(layer.forwardS + layer.backwardS);
        m_backward.push_back(layer.backwardS);
        m_sync.push_back(model.layerAllReduceS(t));
        int cap = 0;
        for (int s = 0; s < k; ++s)
            cap = std::max(cap, model.maxLayers(t, s, k));
        m_cap.push_back(cap);
        m_sync0.push_back(model.allReduceS(t, 0, 0, k));
    }
    m_p2p = model.p2pS();
    m_byWork.resize(static_cast<std::size_t>(n));
    std::iota(m_byWork.begin(), m_byWork.end(), 0);
    std::stable_sort(m_byWork.begin(), m_byWork.end(), [this](int a, int b) {
        return m_work[static_cast<std::size_t>(a)] < m_work[static_cast<std::size_t>(b)];
    });
    // c_j = 1 / (1 - (1 - 1/m)^j): the weight of sum W in the order-free form of bound (1) over j stages.
    const double keep = 1.0 - 1.0 / m_m;
    m_fill.assign(static_cast<std::size_t>(k) + 1, 0.0);
    m_fillHops.assign(static_cast<std::size_t>(k) + 1, 0.0);
    for (int j = 1; j <= k; ++j) {
        const double c = 1.0 / (1.0 - std::pow(keep, j));
        m_fill[static_cast<std::size_t>(j)] = c;
        // The same weights on the 2 x position boundary crossings of the last j stages.
        for (int q = 0; q < j; ++q)
            m_fillHops[static_cast<std::size_t>(j)] += c / m_m * std::pow(keep, j - 1 - q) * 2.0 * (k - j + q);
    }
}

int PipelineBounds::capacity(const std::vector<int>& counts) const
{
    int held = 0;
    for (std::size_t t = 0; t < counts.size(); ++t)
        held += counts[t] * m_cap[t];
    return held;
}

double PipelineBounds::minWorkS(int layers, const std::vector<int>& counts, int stages) const
{
    if (layers < stages || layers > capacity(counts))
        return INFINITY;
    // One layer per stage, the rest on the fastest layers first, up to each stage's capacity.
    double work = 0;
    int extra = layers - stages;
    for (int t : m_byWork) {
        const auto ut = static_cast<std::size_t>(t);
        const int c = counts[ut];
        if (c == 0)
            continue;
        const int take = std::min(extra, c * (m_cap[ut] - 1));
        work += (c + take) * m_work[ut];
        extra -= take;
    }
    return work;
}

namespace {

/** layers / sum(counts / perLayer): the water-filled minimum of max_j (layers_j * perLayer_j). */
double waterLevel(int layers, const std::vector<int>& counts, const std::vector<double>& perLayer)
{
    double inverse = 0;
    for (std::size_t t = 0; t < counts.size(); ++t)
        if (counts[t] > 0)
            inverse += perLayer[t] > 0 ? counts[t] / perLayer[t] : INFINITY;
    return inverse > 0 ? layers / inverse : INFINITY;
}

} // namespace

double PipelineBounds::maxBackwardLowerS(int layers, const std::vector<int>& counts) const
{
    return waterLevel(layers, counts, m_backward);
}

double PipelineBounds::lowerIterS(const std::vector<int>& counts) const
{
    return restLowerS(0, 0, 0, m_layers, counts, m_k);
}

double PipelineBounds::restLowerS(double prefixForwardS, double prefixWorkS, double prefixMaxBackwardS, int layers,
                                  const std::vector<int>& counts, int stages) const
{
    if (stages == 0)
        return layers == 0 ? prefixWorkS : INFINITY;
    const double work = minWorkS(layers, counts, stages);
    if (work == INFINITY)
        return INFINITY;
    const int m = m_m;
    const int first = m_k - stages; // position of the first remaining stage
    const auto us = static_cast<std::size_t>(stages);
    // (1) over the remaining stages, each preceded by the whole placed prefix.
    const double fill = prefixWorkS + m_fill[us] * work + m_fillHops[us] * m_p2p;
    // (3): the largest b of any stage is at least the water level of the remaining layers.
    const double total = prefixWorkS + work + 2 * (m_k - 1) * m_p2p;
    double idle = total + (m - 1) * std::max(prefixMaxBackwardS, waterLevel(layers, counts, m_backward));
    if (first == 0) {
        // (3) with (2) at stage 0, which waits for every later stage and then syncs: some type is first.
        double least = INFINITY;
        for (std::size_t t = 0; t < counts.size(); ++t)
            if (counts[t] > 0)
                least = std::min(least, (m - 1) * m_backward[t] + m_sync[t] + m_sync0[t]);
        idle = std::max(idle, total + least);
    }
    // (1) and (2) together: T >= F_{<j} + j p + m W_j + max(B_{<j} + j p, w_j) >= F_{<j} + j p + m W_j + w_j.
    thread_local std::vector<double> syncWork;
    syncWork.resize(counts.size());
    for (std::size_t t = 0; t < counts.size(); ++t)
        syncWork[t] = m * m_work[t] + m_sync[t];
    const double busy = prefixForwardS + first * m_p2p + waterLevel(layers, counts, syncWork);
    return std::max({fill, idle, busy});
}

} // namespace orrery::provision
