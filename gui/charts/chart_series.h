#pragma once

#include "metrics/metrics.h"
#include "results/run_entry.h"
#include "sim/run_result.h"

#include <QPointF>
#include <QString>
#include <QVector>

#include <vector>

namespace orrery::gui {

/**
 * Data side of the charts: plain functions from runs to points, testable
 * without a chart or a scene. Widgets only turn these into series.
 */
enum class CdfMetric { Jct, QueueingDelay, Slowdown, FinishTimeFairness, AppFinishTimeFairness, PlacementScore };
QString cdfMetricName(CdfMetric metric);
QString cdfMetricUnit(CdfMetric metric);
/** What one step of the metric's CDF counts: jobs, apps or allocations (the y axis' "fraction of ..."). */
QString cdfPopulation(CdfMetric metric);

/**
 * Per finished job, as core/metrics computes them (metrics::perJob): JCT and queueing delay in hours,
 * slowdown = JCT / ideal run time, finish-time fairness rho (Themis; metrics::finishTimeFairness).
 */
std::vector<double> metricValues(const sim::RunResult& run, CdfMetric metric);

/**
 * The run's values of any metric: per-app rho per finished app (metrics::appFinishTimeFairness), Themis' placement
 * score 1/S per allocation (the scores computed when the run was made or loaded, RunEntry::placementScores), else
 * metricValues of its result. Empty where cdfMissing says why.
 */
std::vector<double> metricValues(const RunEntry& run, CdfMetric metric);

/** Why the run has no values of the metric (no apps, no placement scores), or an empty string when it has some. */
QString cdfMissing(const RunEntry& run, CdfMetric metric);

/**
 * Empirical CDF as a step line: for sorted values v_1..v_n, points
 * (v_i, (i-1)/n) and (v_i, i/n). With `positiveOnly` (log axes) values <= 0
 * are dropped. At most `maxSteps` steps: larger inputs are thinned to evenly
 * spaced quantiles, which keeps the shape to within 1/maxSteps.
 */
QVector<QPointF> cdfPoints(std::vector<double> values, bool positiveOnly = false, int maxSteps = 2000);

/**
 * Busy share of GPUs over time in percent, as a step line with x in hours.
 * typeIndex < 0: all GPUs; otherwise the type at that index of run.gpuTypes,
 * over `typeGpus` GPUs of that type. Long runs are averaged into `maxPoints` buckets.
 */
QVector<QPointF> utilisationPoints(const sim::RunResult& run, int typeIndex, int typeGpus, int maxPoints = 1500);

/** Whether the run's rates say how many training samples per second its jobs made (goodput sources do). */
bool hasSampleRates(const sim::RunResult& run);

/**
 * The cluster's throughput over time (metrics::throughputOverTime) as a step line with x in hours: training
 * samples per second (`samples`), else jobs' progress in jobs per hour (each job's rate over its whole work, so
 * 1 means one job's worth of work done per hour). Long series are averaged into `maxPoints` buckets.
 */
QVector<QPointF> throughputPoints(const std::vector<metrics::ThroughputPoint>& series, double endS, bool samples,
                                  int maxPoints = 1500);

struct TradeoffPoint
{
    QString label;
    double cost = 0;  ///< x: lower is better
    double value = 0; ///< y: lower is better when minimiseValue, else higher
};

/**
 * Indices of the points on the Pareto front (none better in both), sorted by
 * cost. minimiseValue: true for JCT, false for throughput.
 */
std::vector<int> paretoFront(const std::vector<TradeoffPoint>& points, bool minimiseValue);

/**
 * A run as a trade-off point labelled with its name: x the cost (what its jobs paid for their GPU-hours, or the
 * cluster's price over the makespan when jobs carry no cost), y the mean JCT in hours (`meanJct`) or the
 * throughput in finished jobs per hour.
 */
TradeoffPoint runTradeoffPoint(const RunEntry& run, bool meanJct);

} // namespace orrery::gui
