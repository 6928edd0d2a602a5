#include "provision/iteration_time.h"

#include <algorithm>
#include <stdexcept>

namespace orrery::provision {

namespace {

struct Scratch
{
    std::vector<double> endF, endB;
    std::vector<int> next;
    std::vector<double> freeAt;
};

/** Simulates; fills `lastEnd` (E_s) when given. */
double simulate(const std::vector<StageTimes>& stages, int m, double p2p, std::vector<double>* lastEnd)
{
    const int k = static_cast<int>(stages.size());
    if (k == 0 || m <= 0)
        return 0;
    thread_local Scratch sc;
    const auto cells = static_cast<std::size_t>(k) * static_cast<std::size_t>(m);
    sc.endF.assign(cells, -1.0);
    sc.endB.assign(cells, -1.0);
    sc.next.assign(static_cast<std::size_t>(k), 0);
    sc.freeAt.assign(static_cast<std::size_t>(k), 0.0);
    auto at = [m](int s, int j) { return static_cast<std::size_t>(s) * static_cast<std::size_t>(m) + static_cast<std::size_t>(j); };

    int remaining = 2 * m * k;
    auto runStage = [&](int s) {
        bool progressed = false;
        const int w = std::min(k - s - 1, m);
        auto& next = sc.next[static_cast<std::size_t>(s)];
        while (next < 2 * m) {
            const int o = next;
            bool forward;
            int j;
            if (o < w) {
                forward = true;
                j = o;
            } else if (o - w < 2 * (m - w)) {
                const int r = o - w;
                forward = (r % 2 == 0);
                j = forward ? w + r / 2 : r / 2;
            } else {
                forward = false;
                j = (m - w) + (o - w - 2 * (m - w));
            }
            double ready;
            if (forward) {
                if (s == 0) {
                    ready = 0;
                } else {
                    const double dep = sc.endF[at(s - 1, j)];
                    if (dep < 0)
                        break;
                    ready = dep + p2p;
                }
            } else if (s == k - 1) {
                const double dep = sc.endF[at(s, j)];
                if (dep < 0)
                    break;
                ready = dep;
            } else {
                const double dep = sc.endB[at(s + 1, j)];
                if (dep < 0)
                    break;
                ready = dep + p2p;
            }
            const auto& st = stages[static_cast<std::size_t>(s)];
            const double start = std::max(sc.freeAt[static_cast<std::size_t>(s)], ready);
            const double end = start + (forward ? st.forwardS : st.backwardS);
            (forward ? sc.endF : sc.endB)[at(s, j)] = end;
            sc.freeAt[static_cast<std::size_t>(s)] = end;
            ++next;
            --remaining;
            progressed = true;
        }
        return progressed;
    };

    while (remaining > 0) {
        bool progressed = false;
        for (int s = 0; s < k; ++s)
            progressed = runStage(s) || progressed;
        for (int s = k - 1; s >= 0; --s)
            progressed = runStage(s) || progressed;
        if (!progressed)
            throw std::logic_error("1F1B schedule deadlocked"); // cannot happen for a well-formed schedule
    }

    double iteration = 0;
    if (lastEnd)
        lastEnd->assign(static_cast<std::size_t>(k), 0.0);
    for (int s = 0; s < k; ++s) {
        double e = 0;
        for (int j = 0; j < m; ++j)
            e = std::max(e, sc.endB[at(s, j)]);
        if (lastEnd)
            (*lastEnd)[static_cast<std::size_t>(s)] = e;
        iteration = std::max(iteration, e + stages[static_cast<std::size_t>(s)].allReduceS);
    }
    return iteration;
}

} // namespace

IterationTimeline simulateIteration(const std::vector<StageTimes>& stages, int microBatches, double p2pS)
{
    IterationTimeline t;
    t.iterationS = simulate(stages, microBatches, p2pS, &t.lastBackwardEndS);
    return t;
}

double iterationTimeS(const std::vector<StageTimes>& stages, int microBatches, double p2pS)
{
    return simulate(stages, microBatches, p2pS, nullptr);
}

double iterationTimeS(const PipelineModel& model, const std::vector<Stage>& stages)
{
    thread_local std::vector<StageTimes> times;
    const int k = static_cast<int>(stages.size());
    times.resize(stages.size());
    for (int s = 0; s < k; ++s) {
        const auto& st = stages[static_cast<std::size_t>(s)];
        times[static_cast<std::size_t>(s)] = model.stageTimes(st.gpu, st.layers, s, k);
    }
    return simulate(times, model.microBatches(), model.p2pS(), nullptr);
}

} // namespace orrery::provision
