#include "charts/chart_series.h"

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
    case CdfMetric::Rho:
        return QCoreApplication::translate("Charts", "Finish-time fairness \u03c1");
    }
    return {};
}

QString cdfMetricUnit(CdfMetric metric)
{
    return metric == CdfMetric::Rho ? QCoreApplication::translate("Charts", "JCT / ideal run time")
                                    : QCoreApplication::translate("Charts", "hours");
}

std::vector<double> metricValues(const sim::RunResult& run, CdfMetric metric)
{
    std::vector<double> v;
    v.reserve(run.jobs.size());
    for (const auto& j : run.jobs) {
        if (!j.finished())
            continue;
        switch (metric) {
        case CdfMetric::Jct:
            v.push_back(j.jctS() / 3600.0);
            break;
        case CdfMetric::QueueingDelay:
            v.push_back(std::max(0.0, j.queueS()) / 3600.0);
            break;
        case CdfMetric::Rho:
            if (j.idealS > 0)
                v.push_back(j.jctS() / j.idealS);
            break;
        }
    }
    return v;
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

QVector<QPointF> utilisationPoints(const sim::RunResult& run, int typeIndex, int typeGpus, int maxPoints)
{
    QVector<QPointF> out;
    const int gpus = typeIndex < 0 ? run.totalGpus : typeGpus;
    if (run.utilization.empty() || gpus <= 0)
        return out;
    auto busyAt = [&](const sim::UtilizationSample& s) {
        if (typeIndex < 0)
            return s.busyGpus;
        return static_cast<std::size_t>(typeIndex) < s.busyByType.size()
                   ? s.busyByType[static_cast<std::size_t>(typeIndex)]
                   : 0;
    };
    const double end = std::max(run.makespanS, run.utilization.back().timeS);
    if (static_cast<int>(run.utilization.size()) <= maxPoints) {
        for (std::size_t i = 0; i < run.utilization.size(); ++i) {
            const auto& s = run.utilization[i];
            const double y = 100.0 * busyAt(s) / gpus;
            if (i > 0)
                out.append(QPointF(s.timeS / 3600.0, out.back().y()));
            out.append(QPointF(s.timeS / 3600.0, y));
        }
        out.append(QPointF(end / 3600.0, out.back().y()));
        return out;
    }
    // Time-weighted mean per bucket: the step function integrated over each bucket.
    const double bucket = end / maxPoints;
    std::vector<double> area(static_cast<std::size_t>(maxPoints), 0.0);
    for (std::size_t i = 0; i < run.utilization.size(); ++i) {
        const double t0 = run.utilization[i].timeS;
        const double t1 = i + 1 < run.utilization.size() ? run.utilization[i + 1].timeS : end;
        const double y = 100.0 * busyAt(run.utilization[i]) / gpus;
        double t = t0;
        while (t < t1) {
            const auto b = std::min<std::size_t>(static_cast<std::size_t>(t / bucket), area.size() - 1);
            const double bEnd = std::min(t1, (static_cast<double>(b) + 1) * bucket);
            area[b] += y * (std::max(bEnd, t) - t);
            if (bEnd <= t)
                break;
            t = bEnd;
        }
    }
    for (std::size_t b = 0; b < area.size(); ++b)
        out.append(QPointF((static_cast<double>(b) + 0.5) * bucket / 3600.0, area[b] / bucket));
    return out;
}

double meanUtilisation(const sim::RunResult& run)
{
    if (run.utilization.empty() || run.totalGpus <= 0)
        return 0;
    const double end = std::max(run.makespanS, run.utilization.back().timeS);
    if (end <= 0)
        return 0;
    double area = 0;
    for (std::size_t i = 0; i < run.utilization.size(); ++i) {
        const double t1 = i + 1 < run.utilization.size() ? run.utilization[i + 1].timeS : end;
        area += run.utilization[i].busyGpus * (t1 - run.utilization[i].timeS);
    }
    return area / (end * run.totalGpus);
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

} // namespace orrery::gui
