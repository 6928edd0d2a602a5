#pragma once

#include "sweep/sweep_table.h"

#include <QString>

#include <array>
#include <optional>

namespace orrery::gui {

/** The metrics the Sweeps panel tabulates and charts, each as core's metrics::summarize gives it. */
enum class SweepMetric { MeanJct, P95Jct, Makespan, Utilisation, Cost, ProvisionedCost };
inline constexpr std::array<SweepMetric, 6> kSweepMetrics{SweepMetric::MeanJct,  SweepMetric::P95Jct,
                                                          SweepMetric::Makespan, SweepMetric::Utilisation,
                                                          SweepMetric::Cost,     SweepMetric::ProvisionedCost};

/** "Mean JCT", "Cost (busy)": the names the comparison view's table uses. */
QString sweepMetricName(SweepMetric metric);
/** The CSV header, with its unit: mean_jct_s, p95_jct_s, makespan_s, utilisation_pct, cost_usd,
 *  provisioned_cost_usd (as the metrics table's CSV). */
QString sweepMetricCsvName(SweepMetric metric);
/** The unit of the charts' value axes: hours, %, USD. */
QString sweepMetricChartUnit(SweepMetric metric);

/** Mean JCT, p95 JCT and makespan: seconds, drawn in hours, labelled as durations. */
bool sweepMetricIsDuration(SweepMetric metric);

/** The point's raw value (seconds, utilisation 0..1, USD); absent for a point that did not complete or, for the
 *  JCTs, finished no job. */
std::optional<double> sweepMetricValue(const sweep::SweepPointMetrics& point, SweepMetric metric);
/** A raw value in the unit of the CSV (utilisation in percent, the rest as they are). */
double sweepMetricCsvValue(SweepMetric metric, double raw);
/** A raw value in the charts' unit (durations in hours, utilisation in percent). */
double sweepMetricChartValue(SweepMetric metric, double raw);
/** A raw value as the tables show it ("2h 30m", "41.2%", "$12.30"). */
QString formatSweepMetric(SweepMetric metric, double raw);

} // namespace orrery::gui
