#include "metrics/queue_length.h"

#include <algorithm>
#include <utility>

namespace orrery::metrics {

std::vector<QueuePoint> queueLengthOverTime(const sim::RunResult& run)
{
    const std::size_t n = run.jobs.size();
    if (n == 0)
        return {};
    // Each job's holding spans (the union of its per-GPU intervals), then the gaps of [arrival, end) between them.
    std::vector<std::vector<std::pair<double, double>>> held(n);
    for (const auto& iv : run.intervals)
        if (iv.job >= 0 && static_cast<std::size_t>(iv.job) < n && iv.endS > iv.startS)
            held[static_cast<std::size_t>(iv.job)].emplace_back(iv.startS, iv.endS);

    std::vector<std::pair<double, int>> steps; // (time, +1 / -1)
    steps.reserve(2 * n);
    const auto wait = [&steps](double from, double to) {
        if (to > from) {
            steps.emplace_back(from, +1);
            steps.emplace_back(to, -1);
        }
    };
    for (std::size_t j = 0; j < n; ++j) {
        const auto& rec = run.jobs[j];
        const double end = rec.finished() ? rec.endS : rec.dropped() ? rec.droppedS : run.makespanS;
        auto& spans = held[j];
        std::sort(spans.begin(), spans.end());
        double from = rec.arrivalS;
        for (const auto& [start, stop] : spans) {
            if (start > from)
                wait(from, std::min(start, end));
            from = std::max(from, stop);
        }
        wait(from, end);
    }
    // At one instant, leaving before joining: a job that starts as another arrives is not counted twice.
    std::sort(steps.begin(), steps.end());
    std::vector<QueuePoint> out{{0, 0}};
    int queued = 0;
    for (std::size_t i = 0; i < steps.size();) {
        const double t = steps[i].first;
        for (; i < steps.size() && steps[i].first == t; ++i)
            queued += steps[i].second;
        if (out.back().timeS == t) {
            out.back().queued = queued;
            if (out.size() > 1 && out[out.size() - 2].queued == queued)
                out.pop_back();
        } else if (queued != out.back().queued) {
            out.push_back({t, queued});
        }
    }
    return out;
}

} // namespace orrery::metrics
