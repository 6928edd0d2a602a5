#include "metrics/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

namespace orrery::metrics {

double percentile(std::vector<double> values, double p)
{
    if (values.empty())
        return 0;
    std::sort(values.begin(), values.end());
    const double rank = std::clamp(p, 0.0, 100.0) / 100.0 * static_cast<double>(values.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(rank));
    const auto hi = std::min(lo + 1, values.size() - 1);
    return values[lo] + (values[hi] - values[lo]) * (rank - static_cast<double>(lo));
}

double mean(const std::vector<double>& values)
{
    return values.empty() ? 0 : std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
}

double jainIndex(const std::vector<double>& values)
{
    if (values.empty())
        return 1;
    double sum = 0, sq = 0;
    for (double v : values) {
        sum += v;
        sq += v * v;
    }
    return sq > 0 ? sum * sum / (static_cast<double>(values.size()) * sq) : 1;
}

std::vector<std::pair<double, double>> cdf(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    std::vector<std::pair<double, double>> out;
    out.reserve(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i + 1 < values.size() && values[i + 1] == values[i])
            continue;
        out.emplace_back(values[i], static_cast<double>(i + 1) / static_cast<double>(values.size()));
    }
    return out;
}

std::vector<double> finishTimeFairness(const sim::RunResult& run)
{
    // Active-job count as a step function, and its running integral, to average it over any window.
    std::vector<std::pair<double, int>> steps;
    steps.reserve(run.jobs.size() * 2);
    for (const auto& j : run.jobs) {
        steps.emplace_back(j.arrivalS, +1);
        if (j.finished())
            steps.emplace_back(j.endS, -1);
        else if (j.dropped()) // no longer contends
            steps.emplace_back(j.droppedS, -1);
    }
    std::sort(steps.begin(), steps.end());
    std::vector<double> times;
    std::vector<double> integral; // of the count from the first time to times[k]
    std::vector<int> countAfter;
    int count = 0;
    double acc = 0;
    for (const auto& [t, d] : steps) {
        if (!times.empty())
            acc += count * (t - times.back());
        count += d;
        if (!times.empty() && times.back() == t) {
            countAfter.back() = count;
            continue;
        }
        times.push_back(t);
        integral.push_back(acc);
        countAfter.push_back(count);
    }
    auto integralAt = [&](double t) {
        const auto it = std::upper_bound(times.begin(), times.end(), t);
        if (it == times.begin())
            return 0.0;
        const auto k = static_cast<std::size_t>(it - times.begin()) - 1;
        return integral[k] + countAfter[k] * (t - times[k]);
    };
    std::vector<double> out;
    for (const auto& j : run.jobs) {
        if (!j.finished() || j.idealS <= 0)
            continue;
        const double jct = j.jctS();
        const double n = jct > 0 ? std::max(1.0, (integralAt(j.endS) - integralAt(j.arrivalS)) / jct) : 1.0;
        const double isolated = j.idealS * std::max(1.0, n * j.demand / std::max(1, run.totalGpus));
        out.push_back(jct / isolated);
    }
    return out;
}

std::vector<double> perJob(const sim::RunResult& run, JobMetric metric)
{
    if (metric == JobMetric::FinishTimeFairness)
        return finishTimeFairness(run);
    std::vector<double> out;
    for (const auto& j : run.jobs) {
        if (!j.finished())
            continue;
        switch (metric) {
        case JobMetric::Jct:
            out.push_back(j.jctS());
            break;
        case JobMetric::Queue:
            out.push_back(j.queueS());
            break;
        case JobMetric::Slowdown:
            out.push_back(j.idealS > 0 ? j.jctS() / j.idealS : 0);
            break;
        default:
            break;
        }
    }
    return out;
}

std::vector<TypeUsage> usageByType(const sim::RunResult& run)
{
    std::vector<TypeUsage> out(run.gpuTypes.size());
    for (std::size_t t = 0; t < out.size(); ++t) {
        out[t].type = run.gpuTypes[t];
        out[t].gpus = t < run.gpusByType.size() ? run.gpusByType[t] : 0;
    }
    for (const auto& iv : run.intervals) {
        const auto t = static_cast<std::size_t>(run.gpuType[static_cast<std::size_t>(iv.gpu)]);
        const double h = (iv.endS - iv.startS) / 3600.0;
        out[t].gpuHours += h;
        out[t].costUsd += h * run.priceUsdPerHourByType[t];
    }
    for (auto& u : out)
        u.utilization = u.gpus > 0 && run.makespanS > 0 ? u.gpuHours * 3600.0 / (u.gpus * run.makespanS) : 0;
    return out;
}

std::vector<UtilizationPoint> utilizationOverTime(const sim::RunResult& run)
{
    std::vector<UtilizationPoint> out;
    out.reserve(run.utilization.size());
    for (const auto& s : run.utilization) {
        UtilizationPoint p;
        p.timeS = s.timeS;
        p.total = run.totalGpus > 0 ? static_cast<double>(s.busyGpus) / run.totalGpus : 0;
        for (std::size_t t = 0; t < s.busyByType.size(); ++t)
            p.byType.push_back(t < run.gpusByType.size() && run.gpusByType[t] > 0
                                   ? static_cast<double>(s.busyByType[t]) / run.gpusByType[t]
                                   : 0);
        out.push_back(std::move(p));
    }
    return out;
}

std::vector<ThroughputPoint> throughputOverTime(const sim::RunResult& run)
{
    const auto& segs = run.rateSegments;
    std::vector<double> workDone(run.jobs.size(), 0.0);
    for (const auto& s : segs)
        if (s.job >= 0 && static_cast<std::size_t>(s.job) < workDone.size())
            workDone[static_cast<std::size_t>(s.job)] += s.rate * (s.endS - s.startS);
    // Segment i starts at key 2i and ends at key 2i + 1; the levels each adds or removes are computed from the
    // segment when its key comes up, not stored beside the keys (fewer fresh pages on a long run).
    // Ends before starts at one instant, so that a level handed from one job to the next is summed from zero.
    // std::sort moves the keys as its comparisons decide and nothing else, so they end in the order the
    // 40-byte steps (time, levels, +-1) sorted by the same comparison used to, ties included (they decide the
    // rounding of the running sums; tests/core/test_metrics.cpp compares with that sort bit for bit).
    struct Key
    {
        double t;
        int open;
        std::uint32_t step;
    };
    std::vector<Key> order(segs.size() * 2);
    for (std::size_t i = 0; i < segs.size(); ++i) {
        order[2 * i] = {segs[i].startS, 1, static_cast<std::uint32_t>(2 * i)};
        order[2 * i + 1] = {segs[i].endS, -1, static_cast<std::uint32_t>(2 * i + 1)};
    }
    std::sort(order.begin(), order.end(),
              [](const Key& a, const Key& b) { return a.t != b.t ? a.t < b.t : a.open < b.open; });
    std::vector<ThroughputPoint> out;
    out.reserve(order.size());
    // Running sums drift by rounding as segments come and go: a level is re-summed as exactly zero when
    // nothing runs, so the series returns to 0 between busy stretches.
    double samples = 0, work = 0, jobs = 0;
    int open = 0;
    for (std::size_t k = 0; k < order.size();) {
        const double t = order[k].t;
        for (; k < order.size() && order[k].t == t; ++k) {
            const sim::RateSegment& s = segs[order[k].step / 2];
            const double w = s.job >= 0 && static_cast<std::size_t>(s.job) < workDone.size()
                                 ? workDone[static_cast<std::size_t>(s.job)]
                                 : 0.0;
            const double segJobs = w > 0 ? s.rate / w : 0.0;
            const double sign = order[k].open; // +1 at the start, -1 at the end: an exact negation
            samples += sign * s.samplesPerS;
            work += sign * s.rate;
            jobs += sign * segJobs;
            open += order[k].open;
            if (open == 0)
                samples = work = jobs = 0;
        }
        if (!out.empty() && out.back().samplesPerS == samples && out.back().workPerS == work &&
            out.back().jobsPerS == jobs)
            continue;
        out.push_back({t, samples, work, jobs});
    }
    return out;
}

Summary summarize(const sim::RunResult& run, SummaryScope scope)
{
    Summary s;
    s.jobs = static_cast<int>(run.jobs.size());
    std::vector<double> jct, queue, samplesPerS, samplesPerJctS, slowdown;
    for (const auto& j : run.jobs) {
        if (j.startS >= 0)
            queue.push_back(j.queueS());
        s.gpuHours += j.gpuSeconds / 3600.0;
        s.costUsd += j.costUsd;
        if (!j.finished())
            continue;
        ++s.jobsCompleted;
        if (j.samples > 0 && j.endS > j.startS)
            samplesPerS.push_back(j.samples / (j.endS - j.startS));
        if (j.samples > 0 && j.jctS() > 0)
            samplesPerJctS.push_back(j.samples / j.jctS());
        if (!j.excludedFromAverage)
            jct.push_back(j.jctS());
        if (j.idealS > 0)
            slowdown.push_back(j.jctS() / j.idealS);
    }
    s.avgJctS = mean(jct);
    s.avgQueueS = mean(queue);
    s.makespanS = run.makespanS;
    s.decisions = static_cast<int>(run.decisions.size());
    for (const auto& d : run.decisions) {
        s.decisionWallSTotal += d.wallS;
        s.decisionSolverSTotal += d.solverS;
    }
    s.wallS = run.wallS;
    addLifecycle(s, run);
    if (scope == SummaryScope::Headline)
        return s;
    s.p50JctS = percentile(jct, 50);
    s.p95JctS = percentile(jct, 95);
    s.p99JctS = percentile(jct, 99);
    s.avgJobSamplesPerS = mean(samplesPerS);
    s.avgJobSamplesPerJctS = mean(samplesPerJctS);
    s.avgSlowdown = mean(slowdown);
    double busyS = 0;
    for (const auto& iv : run.intervals)
        busyS += iv.endS - iv.startS;
    s.utilization = run.totalGpus > 0 && run.makespanS > 0 ? busyS / (run.totalGpus * run.makespanS) : 0;
    const auto rho = finishTimeFairness(run);
    s.avgFtfRho = mean(rho);
    s.maxFtfRho = rho.empty() ? 0 : *std::max_element(rho.begin(), rho.end());
    s.jainFtf = jainIndex(rho);
    return s;
}

} // namespace orrery::metrics
