#pragma once

#include "models/trace_summary.h"

#include <QColor>
#include <QList>
#include <QStringList>

class QChartView;

namespace orrery::gui {

/** A compact chart view for a bar chart (no legend, small margins), as the workload summaries use. */
QChartView* smallBarChart();

/** Replaces the view's chart content with one bar per label, whole-number ticks on the value axis. */
void fillBarChart(QChartView* view, const QString& title, const QStringList& labels, const QList<qreal>& values,
                  const QString& yTitle, const QColor& colour);

/** A job list's GPU-demand histogram and arrivals over time (the workload editor's and the import preview's). */
void fillTraceCharts(QChartView* demand, QChartView* arrivals, const TraceSummary& s);

} // namespace orrery::gui
