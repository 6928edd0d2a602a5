#include "sweeps/sweep_metric.h"

#include "results/palette.h"

#include <QObject>

namespace orrery::gui {

QString sweepMetricName(SweepMetric metric)
{
    switch (metric) {
    case SweepMetric::MeanJct:
        return QObject::tr("Mean JCT");
    case SweepMetric::P95Jct:
        return QObject::tr("p95 JCT");
    case SweepMetric::Makespan:
        return QObject::tr("Makespan");
    case SweepMetric::Utilisation:
        return QObject::tr("Utilisation");
    case SweepMetric::Cost:
        return QObject::tr("Cost (busy)");
    case SweepMetric::ProvisionedCost:
        return QObject::tr("Cost (provisioned)");
    }
    return {};
}

QString sweepMetricCsvName(SweepMetric metric)
{
    switch (metric) {
    case SweepMetric::MeanJct:
        return QStringLiteral("mean_jct_s");
    case SweepMetric::P95Jct:
        return QStringLiteral("p95_jct_s");
    case SweepMetric::Makespan:
        return QStringLiteral("makespan_s");
    case SweepMetric::Utilisation:
        return QStringLiteral("utilisation_pct");
    case SweepMetric::Cost:
        return QStringLiteral("cost_usd");
    case SweepMetric::ProvisionedCost:
        return QStringLiteral("provisioned_cost_usd");
    }
    return {};
}

QString sweepMetricChartUnit(SweepMetric metric)
{
    switch (metric) {
    case SweepMetric::MeanJct:
    case SweepMetric::P95Jct:
    case SweepMetric::Makespan:
        return QObject::tr("hours");
    case SweepMetric::Utilisation:
        return QStringLiteral("%");
    case SweepMetric::Cost:
    case SweepMetric::ProvisionedCost:
        return QStringLiteral("USD");
    }
    return {};
}

std::optional<double> sweepMetricValue(const sweep::SweepPointMetrics& point, SweepMetric metric)
{
    if (!point.summary)
        return std::nullopt;
    const metrics::Summary& s = *point.summary;
    // As the comparison (store::compareRuns): a JCT statistic of no finished job is undefined, not 0.
    const bool anyFinished = s.jobsCompleted > 0;
    switch (metric) {
    case SweepMetric::MeanJct:
        return anyFinished ? std::optional<double>(s.avgJctS) : std::nullopt;
    case SweepMetric::P95Jct:
        return anyFinished ? std::optional<double>(s.p95JctS) : std::nullopt;
    case SweepMetric::Makespan:
        return s.makespanS;
    case SweepMetric::Utilisation:
        return s.utilization;
    case SweepMetric::Cost:
        return s.costUsd;
    case SweepMetric::ProvisionedCost:
        return point.provisionedCostUsd;
    }
    return std::nullopt;
}

bool sweepMetricIsDuration(SweepMetric metric)
{
    return metric == SweepMetric::MeanJct || metric == SweepMetric::P95Jct || metric == SweepMetric::Makespan;
}

double sweepMetricCsvValue(SweepMetric metric, double raw)
{
    return metric == SweepMetric::Utilisation ? 100.0 * raw : raw;
}

double sweepMetricChartValue(SweepMetric metric, double raw)
{
    switch (metric) {
    case SweepMetric::MeanJct:
    case SweepMetric::P95Jct:
    case SweepMetric::Makespan:
        return raw / 3600.0;
    case SweepMetric::Utilisation:
        return 100.0 * raw;
    case SweepMetric::Cost:
    case SweepMetric::ProvisionedCost:
        return raw;
    }
    return raw;
}

QString formatSweepMetric(SweepMetric metric, double raw)
{
    switch (metric) {
    case SweepMetric::MeanJct:
    case SweepMetric::P95Jct:
    case SweepMetric::Makespan:
        return formatDuration(raw);
    case SweepMetric::Utilisation:
        return formatPercent(raw);
    case SweepMetric::Cost:
    case SweepMetric::ProvisionedCost:
        return formatCost(raw);
    }
    return {};
}

} // namespace orrery::gui
