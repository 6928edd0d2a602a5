#pragma once

#include "charts/axis_ticks.h"
#include "export/report_layout.h"

#include <QPointF>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>
#include <vector>

namespace orrery::gui {

struct PlotSeries
{
    QString name;
    QColor colour;
    QVector<QPointF> points;
    bool scatter = false; ///< markers instead of a line
    double width = 2;     ///< line width in device pixels
    bool dashed = false;
    bool inLegend = true;
};

struct PlotSpec
{
    QString title;
    QString xTitle;
    QString yTitle;
    PlotAxis xAxis = PlotAxis::Number;
    PlotAxis yAxis = PlotAxis::Number;
    std::optional<double> yMin, yMax; ///< fixed y range (utilisation 0-100, CDF 0-1); else from the data
    std::vector<PlotSeries> series;
    QString emptyText; ///< shown in the plot area when no series has points
};

/**
 * Lays a plot out in `area` of `page`: title, y-axis title, axes with round ticks whose labels never overlap,
 * the series, the x-axis title and a legend (a swatch and the full name per series, wrapped to as many lines as
 * it needs).
 */
void layoutPlot(ReportPage& page, const QRectF& area, const PlotSpec& spec, const QPaintDevice& device,
                const ReportStyle& style);

/** A text box sized to `text` in `font` with its top-left at `at` (single line). */
ReportText textAt(const QString& text, const QFont& font, QPointF at, const QPaintDevice& device);

/** A word-wrapped block of `text` at most `width` wide with its top-left at `at`, as tall as the text needs. */
ReportText wrappedText(const QString& text, const QFont& font, QPointF at, double width, const QPaintDevice& device);

} // namespace orrery::gui
