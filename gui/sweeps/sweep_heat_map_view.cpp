#include "sweeps/sweep_heat_map_view.h"

#include "charts/axis_ticks.h"
#include "results/palette.h"

#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainter>

#include <algorithm>
#include <array>
#include <cmath>

namespace orrery::gui {

QColor viridis(double t)
{
    static constexpr std::array<std::array<int, 3>, 5> stops{
        {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}}};
    t = std::clamp(std::isfinite(t) ? t : 0.5, 0.0, 1.0) * (stops.size() - 1);
    const auto i = std::min<std::size_t>(static_cast<std::size_t>(t), stops.size() - 2);
    const double f = t - static_cast<double>(i);
    const auto mix = [&](int c) {
        return static_cast<int>(std::lround(stops[i][std::size_t(c)] * (1 - f) + stops[i + 1][std::size_t(c)] * f));
    };
    return QColor(mix(0), mix(1), mix(2));
}

SweepHeatMapView::SweepHeatMapView(QWidget* parent) : QWidget(parent)
{
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
}

void SweepHeatMapView::setGrid(HeatMapGrid grid, SweepMetric metric, const QString& xName, const QString& yName)
{
    m_grid = std::move(grid);
    m_metric = metric;
    m_xName = xName;
    m_yName = yName;
    update();
}

void SweepHeatMapView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics fm(font());
    const int line = fm.height();
    if (m_grid.xLabels.isEmpty() || m_grid.yLabels.isEmpty()) {
        p.drawText(rect(), Qt::AlignCenter, tr("Select a sweep to see a metric over two of its axes."));
        return;
    }
    const QString title =
        tr("%1 over %2 and %3 (mean over the other axes; n = points)").arg(sweepMetricName(m_metric), m_xName, m_yName);
    p.drawText(QRect(0, 4, width(), line), Qt::AlignHCenter, fm.elidedText(title, Qt::ElideRight, width() - 8));

    int yLabelWidth = 0;
    for (const auto& l : m_grid.yLabels)
        yLabelWidth = std::max(yLabelWidth, fm.horizontalAdvance(l));
    yLabelWidth = std::min(yLabelWidth, width() / 4);
    const int legendWidth = 110;
    const QRect plot(line + 8 + yLabelWidth + 6, line + 12,
                     std::max(10, width() - (line + 14 + yLabelWidth) - legendWidth),
                     std::max(10, height() - (line + 12) - 2 * line - 12));
    const int nx = static_cast<int>(m_grid.xLabels.size());
    const int ny = static_cast<int>(m_grid.yLabels.size());
    const double cw = plot.width() / double(nx), ch = plot.height() / double(ny);
    const double span = m_grid.hi - m_grid.lo;
    for (int y = 0; y < ny; ++y) {
        // The first value at the bottom, as on a chart's y axis.
        const double top = plot.bottom() - (y + 1) * ch;
        for (int x = 0; x < nx; ++x) {
            const QRectF cell(plot.left() + x * cw, top, cw, ch);
            const auto& c = m_grid.cells[std::size_t(y)][std::size_t(x)];
            const QColor fill = c.count ? viridis(span > 0 ? (c.mean - m_grid.lo) / span : 0.5) : QColor(235, 235, 235);
            p.fillRect(cell.adjusted(0.5, 0.5, -0.5, -0.5), fill);
            p.setPen(c.count ? textColourOn(fill) : QColor(120, 120, 120));
            const QString text = c.count
                                     ? QStringLiteral("%1\nn=%2").arg(formatSweepMetric(m_metric, c.mean)).arg(c.count)
                                     : tr("no point");
            if (fm.boundingRect(cell.toRect(), Qt::AlignCenter, text).height() <= cell.height() &&
                fm.horizontalAdvance(text.section(QLatin1Char('\n'), 0, 0)) <= cell.width() - 2)
                p.drawText(cell, Qt::AlignCenter, text);
        }
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRectF(line + 8, top, yLabelWidth, ch), Qt::AlignRight | Qt::AlignVCenter,
                   fm.elidedText(m_grid.yLabels[y], Qt::ElideRight, yLabelWidth));
    }
    p.setPen(palette().color(QPalette::Text));
    for (int x = 0; x < nx; ++x)
        p.drawText(QRectF(plot.left() + x * cw, plot.bottom() + 4, cw, line), Qt::AlignHCenter | Qt::AlignTop,
                   fm.elidedText(m_grid.xLabels[x], Qt::ElideRight, static_cast<int>(cw) - 2));
    p.drawText(QRect(plot.left(), plot.bottom() + 6 + line, plot.width(), line), Qt::AlignHCenter, m_xName);
    p.save();
    p.translate(4, plot.center().y());
    p.rotate(-90);
    p.drawText(QRect(-plot.height() / 2, 0, plot.height(), line), Qt::AlignHCenter, m_yName);
    p.restore();

    if (!m_grid.any)
        return;
    // The colour bar, with round ticks in the charts' unit (durations as durations).
    const QRect bar(plot.right() + 16, plot.top(), 16, plot.height());
    QLinearGradient g(bar.bottomLeft(), bar.topLeft());
    for (int i = 0; i <= 8; ++i)
        g.setColorAt(i / 8.0, viridis(i / 8.0));
    p.fillRect(bar, g);
    p.drawRect(bar);
    const bool duration = sweepMetricIsDuration(m_metric);
    const double lo = duration ? m_grid.lo : sweepMetricChartValue(m_metric, m_grid.lo);
    const double hi = duration ? m_grid.hi : sweepMetricChartValue(m_metric, m_grid.hi);
    if (hi > lo) {
        const AxisTicks ticks = axisTicks(duration ? PlotAxis::Duration : PlotAxis::Number, lo, hi, 5);
        for (std::size_t i = 0; i < ticks.values.size(); ++i) {
            const double v = ticks.values[i];
            if (v < lo - 1e-9 * std::abs(hi) || v > hi + 1e-9 * std::abs(hi))
                continue;
            const int ty = static_cast<int>(std::lround(bar.bottom() - (v - lo) / (hi - lo) * bar.height()));
            p.drawLine(bar.right(), ty, bar.right() + 4, ty);
            p.drawText(QRect(bar.right() + 6, ty - line / 2, legendWidth - 40, line), Qt::AlignLeft | Qt::AlignVCenter,
                       ticks.labels[static_cast<qsizetype>(i)]);
        }
    } else {
        p.drawText(QRect(bar.right() + 6, bar.center().y() - line / 2, legendWidth - 40, line), Qt::AlignLeft,
                   formatSweepMetric(m_metric, m_grid.lo));
    }
    if (!duration)
        p.drawText(QRect(bar.left() - 8, bar.bottom() + 4, legendWidth, line), Qt::AlignLeft,
                   sweepMetricChartUnit(m_metric));
}

} // namespace orrery::gui
