#include "charts/chart_series.h"

#include "metrics/apps.h"
#include "metrics/metrics.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <numeric>

namespace orrery::gui {

QString cdfMetricName(CdfMetric metric)
{
    switch (metric) {
    case CdfMetric::Jct:
        return QCoreApplication::translate("Charts", "Job completion time");
    case CdfMetric::QueueingDelay:
        return QCoreApplication::translate("Charts", "Queueing delay");
    case CdfMetric::Slowdown:
        return QCoreApplication::translate("Charts", "Slowdown");
    case CdfMetric::FinishTimeFairness:
        return QCoreApplication::translate("Charts", "Finish-time fairness \u03c1");
    case CdfMetric::AppFinishTimeFairness:
        return QCoreApplication::translate("Charts", "Per-app finish-time fairness \u03c1");
    case CdfMetric::PlacementScore:
        return QCoreApplication::translate("Charts", "Placement score 1/S");
    }
    return {};
}

QString cdfPopulation(CdfMetric metric)
{
    switch (metric) {
    case CdfMetric::AppFinishTimeFairness:
        return QCoreApplication::translate("Charts", "fraction of apps");
    case CdfMetric::PlacementScore:
        return QCoreApplication::translate("Charts", "fraction of allocations");
    default:
        return QCoreApplication::translate("Charts", "fraction of jobs");
    }
}

QString cdfMetricUnit(CdfMetric metric)
{
    switch (metric) {
    case CdfMetric::Slowdown:
        return QCoreApplication::translate("Charts", "JCT / ideal run time");
    case CdfMetric::FinishTimeFairness:
        return QCoreApplication::translate("Charts", "JCT / JCT on a 1/N share of the cluster");
    case CdfMetric::AppFinishTimeFairness:
        return QCoreApplication::translate("Charts", "app's time to finish / on a 1/N share of the cluster");
    case CdfMetric::PlacementScore:
        return QCoreApplication::translate("Charts", "rate of the allocation's placement / on one machine");
    default:
        return QCoreApplication::translate("Charts", "hours");
    }
}

std::vector<double> metricValues(const sim::RunResult& run, CdfMetric metric)
{
    switch (metric) {
    case CdfMetric::Jct:
    case CdfMetric::QueueingDelay: {
        auto v = metrics::perJob(run, metric == CdfMetric::Jct ? metrics::JobMetric::Jct : metrics::JobMetric::Queue);
        for (double& x : v)
            x /= 3600.0;
        return v;
    }
    case CdfMetric::Slowdown: {
        // Jobs without an ideal run time have no slowdown (perJob gives them 0).
        std::vector<double> v;
        for (const auto& j : run.jobs)
            if (j.finished() && j.idealS > 0)
                v.push_back(j.jctS() / j.idealS);
        return v;
    }
    case CdfMetric::FinishTimeFairness:
        return metrics::finishTimeFairness(run);
    case CdfMetric::AppFinishTimeFairness:
        return metrics::hasApps(run) ? metrics::appFinishTimeFairness(run) : std::vector<double>{};
    case CdfMetric::PlacementScore:
        return {}; // needs the cluster's locality: metricValues(RunEntry)
    }
    return {};
}

std::vector<double> metricValues(const RunEntry& run, CdfMetric metric)
{
    if (!run.result)
        return {};
    if (metric == CdfMetric::PlacementScore)
        return run.placementScores ? *run.placementScores : std::vector<double>{};
    return metricValues(*run.result, metric);
}

QString cdfMissing(const RunEntry& run, CdfMetric metric)
{
    if (!run.result)
        return QCoreApplication::translate("Charts", "no result");
    if (metric == CdfMetric::AppFinishTimeFairness && !metrics::hasApps(*run.result))
        return QCoreApplication::translate("Charts", "no apps (no job names one; its per-job \u03c1 is the "
                                                     "finish-time fairness CDF)");
    if (metric == CdfMetric::PlacementScore && !run.placementScores)
        return QCoreApplication::translate("Charts", "no placement scores (its scenario could not be prepared "
                                                     "again to read the cluster's locality)");
    if (metricValues(run, metric).empty())
        return metric == CdfMetric::AppFinishTimeFairness ? QCoreApplication::translate("Charts", "no app finished")
                                                          : QCoreApplication::translate("Charts", "no values");
    return {};
}

QVector<QPointF> cdfPoints(std::vector<double> values, bool positiveOnly, int maxSteps)
{
    if (positiveOnly)
        std::erase_if(values, [](double x) { return !(x > 0); });
    std::erase_if(values, [](double x) { return !std::isfinite(x); });
    std::sort(values.begin(), values.end());
    QVector<QPointF> out;
    const auto n = static_cast<double>(values.size());
    if (values.empty())
        return out;
    const std::size_t steps = std::min<std::size_t>(values.size(), static_cast<std::size_t>(std::max(2, maxSteps)));
    out.reserve(static_cast<qsizetype>(2 * steps));
    double previousY = 0;
    for (std::size_t s = 1; s <= steps; ++s) {
        // The s-th of `steps` evenly spaced ranks; all of them when steps == n.
        const std::size_t rank =
            static_cast<std::size_t>(std::ceil(static_cast<double>(s) * n / static_cast<double>(steps)));
        const double x = values[rank - 1];
        const double y = static_cast<double>(rank) / n;
        out.append(QPointF(x, previousY));
        out.append(QPointF(x, y));
        previousY = y;
    }
    return out;
}

namespace {

/**
 * A step function (value(i) from time(i) to the next time, the last to `end`) as a step line with x in hours;
 * more than `maxPoints` steps are averaged into that many buckets, the function integrated over each. Bucket
 * bounds are b * bucket for integer b, never a running sum: stepping from bound to bound by float division could
 * land back in the bucket just left and stop early, dropping the rest of a long step (the 0-60% dips of issue 19
 * on runs whose cluster stayed full for hours without a new sample).
 */
template <typename TimeAt, typename ValueAt>
QVector<QPointF> stepLine(std::size_t n, TimeAt timeAt, ValueAt valueAt, double end, int maxPoints)
{
    QVector<QPointF> out;
    if (n == 0)
        return out;
    if (static_cast<int>(n) <= maxPoints) {
        for (std::size_t i = 0; i < n; ++i) {
            if (i > 0)
                out.append(QPointF(timeAt(i) / 3600.0, out.back().y()));
            out.append(QPointF(timeAt(i) / 3600.0, valueAt(i)));
        }
        out.append(QPointF(end / 3600.0, out.back().y()));
        return out;
    }
    const double bucket = end / maxPoints;
    std::vector<double> area(static_cast<std::size_t>(maxPoints), 0.0);
    const auto last = area.size() - 1;
    const auto bucketOf = [&](double t) {
        return std::min(last, static_cast<std::size_t>(std::max(0.0, std::floor(t / bucket))));
    };
    for (std::size_t i = 0; i < n; ++i) {
        const double t0 = timeAt(i);
        const double t1 = std::min(end, i + 1 < n ? timeAt(i + 1) : end);
        if (!(t1 > t0))
            continue;
        const double y = valueAt(i);
        for (std::size_t b = bucketOf(t0), bLast = std::min(last, bucketOf(t1) + 1); b <= bLast; ++b) {
            const double lo = b == 0 ? 0.0 : static_cast<double>(b) * bucket;
            const double hi = b == last ? end : static_cast<double>(b + 1) * bucket;
            const double overlap = std::min(t1, hi) - std::max(t0, lo);
            if (overlap > 0)
                area[b] += y * overlap;
        }
    }
    for (std::size_t b = 0; b < area.size(); ++b)
        out.append(QPointF((static_cast<double>(b) + 0.5) * bucket / 3600.0, area[b] / bucket));
    return out;
}

} // namespace

QVector<QPointF> utilisationPoints(const sim::RunResult& run, int typeIndex, int typeGpus, int maxPoints)
{
    const int gpus = typeIndex < 0 ? run.totalGpus : typeGpus;
    if (run.utilization.empty() || gpus <= 0)
        return {};
    auto busyAt = [&](const sim::UtilizationSample& s) {
        if (typeIndex < 0)
            return s.busyGpus;
        return static_cast<std::size_t>(typeIndex) < s.busyByType.size()
                   ? s.busyByType[static_cast<std::size_t>(typeIndex)]
                   : 0;
    };
    const auto& u = run.utilization;
    return stepLine(
        u.size(), [&](std::size_t i) { return u[i].timeS; }, [&](std::size_t i) { return 100.0 * busyAt(u[i]) / gpus; },
        std::max(run.makespanS, u.back().timeS), maxPoints);
}

bool hasSampleRates(const sim::RunResult& run)
{
    return std::any_of(run.rateSegments.begin(), run.rateSegments.end(),
                       [](const sim::RateSegment& s) { return s.samplesPerS > 0; });
}

QVector<QPointF> throughputPoints(const std::vector<metrics::ThroughputPoint>& series, double endS, bool samples,
                                  int maxPoints)
{
    if (series.empty())
        return {};
    return stepLine(
        series.size(), [&](std::size_t i) { return series[i].timeS; },
        [&](std::size_t i) { return samples ? series[i].samplesPerS : series[i].jobsPerS * 3600.0; },
        std::max(endS, series.back().timeS), maxPoints);
}

std::vector<int> paretoFront(const std::vector<TradeoffPoint>& points, bool minimiseValue)
{
    std::vector<int> order(points.size());
    std::iota(order.begin(), order.end(), 0);
    auto better = [&](double a, double b) { return minimiseValue ? a < b : a > b; };
    std::sort(order.begin(), order.end(), [&](int a, int b) {
        const auto& pa = points[static_cast<std::size_t>(a)];
        const auto& pb = points[static_cast<std::size_t>(b)];
        if (pa.cost != pb.cost)
            return pa.cost < pb.cost;
        return better(pa.value, pb.value);
    });
    std::vector<int> front;
    for (int i : order) {
        const auto& p = points[static_cast<std::size_t>(i)];
        // Sorted by cost: a point is on the front iff its value beats every cheaper front point's.
        if (front.empty() || better(p.value, points[static_cast<std::size_t>(front.back())].value))
            front.push_back(i);
    }
    return front;
}

TradeoffPoint runTradeoffPoint(const RunEntry& run, bool meanJct)
{
    const metrics::Summary m = metrics::summarize(*run.result, metrics::SummaryScope::Headline);
    double cost = m.costUsd;
    if (cost <= 0 && run.cluster)
        cost = run.cluster->priceUsdPerHour() * m.makespanS / 3600.0;
    const double jobsPerHour = m.makespanS > 0 ? m.jobsCompleted / (m.makespanS / 3600.0) : 0;
    return {run.name, cost, meanJct ? m.avgJctS / 3600.0 : jobsPerHour};
}

} // namespace orrery::gui
