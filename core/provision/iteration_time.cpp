#include "provision/iteration_time.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace orrery::provision {

namespace {

/** One op of a stage's 1F1B order: micro-batch j, forward or backward. */
struct Op
{
    int j;
    bool forward;
};

/** The per-stage op orders for (k, m), cached: every search asks for the same few shapes. */
const std::vector<std::vector<Op>>& schedule(int k, int m)
{
    thread_local int cachedK = -1, cachedM = -1;
    thread_local std::vector<std::vector<Op>> ops;
    if (k == cachedK && m == cachedM)
        return ops;
    ops.assign(static_cast<std::size_t>(k), {});
    for (int s = 0; s < k; ++s) {
        auto& list = ops[static_cast<std::size_t>(s)];
        const int w = std::min(k - s - 1, m); // warm-up forwards
        for (int j = 0; j < w; ++j)
            list.push_back({j, true});
        for (int j = 0; j < m - w; ++j) {
            list.push_back({w + j, true});
            list.push_back({j, false});
        }
        for (int j = m - w; j < m; ++j)
            list.push_back({j, false});
    }
    cachedK = k;
    cachedM = m;
    return ops;
}

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
    const auto& ops = schedule(k, m);
    thread_local Scratch sc;
    const auto cells = static_cast<std::size_t>(k) * static_cast<std::size_t>(m);
    sc.endF.assign(cells, -1.0);
    sc.endB.assign(cells, -1.0);
    sc.next.assign(static_cast<std::size_t>(k), 0);
    sc.freeAt.assign(static_cast<std::size_t>(k), 0.0);
    const auto um = static_cast<std::size_t>(m);

    int remaining = 2 * m * k;
    // Runs stage s as far as its dependencies allow; returns whether it advanced.
    auto runStage = [&](int s) {
        const auto us = static_cast<std::size_t>(s);
        const auto& list = ops[us];
        const auto& st = stages[us];
        int next = sc.next[us];
        double clock = sc.freeAt[us];
        const int start = next;
        while (next < 2 * m) {
            const Op op = list[static_cast<std::size_t>(next)];
            const auto uj = static_cast<std::size_t>(op.j);
            double ready;
            if (op.forward) {
                if (s == 0) {
                    ready = 0;
                } else {
                    const double dep = sc.endF[(us - 1) * um + uj];
                    if (dep < 0)
                        break;
                    ready = dep + p2p;
                }
            } else if (s == k - 1) {
                ready = sc.endF[us * um + uj]; // its own forward, earlier in this stage's order
            } else {
                const double dep = sc.endB[(us + 1) * um + uj];
                if (dep < 0)
                    break;
                ready = dep + p2p;
            }
            clock = std::max(clock, ready) + (op.forward ? st.forwardS : st.backwardS);
            (op.forward ? sc.endF : sc.endB)[us * um + uj] = clock;
            ++next;
        }
        sc.next[us] = next;
        sc.freeAt[us] = clock;
        remaining -= next - start;
        return next > start;
    };

    while (remaining > 0) {
        bool progressed = false;
        for (int s = 0; s < k; ++s)
            progressed = runStage(s) || progressed;
        for (int s = k - 2; s >= 0; --s)
            progressed = runStage(s) || progressed;
        if (!progressed)
            throw std::logic_error("1F1B schedule deadlocked"); // cannot happen for a well-formed schedule
    }

    double iteration = 0;
    if (lastEnd)
        lastEnd->assign(static_cast<std::size_t>(k), 0.0);
    for (int s = 0; s < k; ++s) {
        // Every stage ends with a backward: its clock is E_s.
        const double e = sc.freeAt[static_cast<std::size_t>(s)];
        if (lastEnd)
            (*lastEnd)[static_cast<std::size_t>(s)] = e;
        iteration = std::max(iteration, e + stages[static_cast<std::size_t>(s)].allReduceS);
    }
    return iteration;
}

} // namespace

double iterationLowerBoundS(const std::vector<StageTimes>& stages, int microBatches)
{
    double prefF = 0, prefB = 0, bound = 0;
    for (const auto& st : stages) {
        bound = std::max(bound, prefF + microBatches * (st.forwardS + st.backwardS) + std::max(prefB, st.allReduceS));
        prefF += st.forwardS;
        prefB += st.backwardS;
    }
    return bound;
}

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

double iterationTimeS(const PipelineModel& model, const std::vector<Stage>& stages, double cutoffS)
{
    thread_local std::vector<StageTimes> times;
    const int k = static_cast<int>(stages.size());
    times.resize(stages.size());
    for (int s = 0; s < k; ++s) {
        const auto& st = stages[static_cast<std::size_t>(s)];
        times[static_cast<std::size_t>(s)] = model.stageTimes(st.gpu, st.layers, s, k);
    }
    if (cutoffS < INFINITY && iterationLowerBoundS(times, model.microBatches()) >= cutoffS)
        return INFINITY;
    return simulate(times, model.microBatches(), model.p2pS(), nullptr);
}

} // namespace orrery::provision
