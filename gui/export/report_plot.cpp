#include "export/report_plot.h"

#include "results/palette.h"

#include <QFontMetricsF>

#include <algorithm>
#include <cmath>
#include <limits>

namespace orrery::gui {

namespace {

double textWidth(const QString& text, const QFont& font, const QPaintDevice& device)
{
    return QFontMetricsF(font, &device).horizontalAdvance(text);
}

double lineHeight(const QFont& font, const QPaintDevice& device)
{
    return QFontMetricsF(font, &device).height();
}

/** Ticks whose labels fit side by side in `length` (x axis) or above each other (y axis). */
AxisTicks fittingTicks(PlotAxis axis, double lo, double hi, double length, bool horizontal, const QFont& font,
                       const QPaintDevice& device)
{
    AxisTicks ticks;
    for (int target = 8; target >= 2; --target) {
        ticks = axisTicks(axis, lo, hi, target);
        double need = 0;
        for (const QString& l : ticks.labels)
            need = std::max(need, horizontal ? textWidth(l, font, device) : lineHeight(font, device));
        const double gap = horizontal ? textWidth(QStringLiteral("MM"), font, device) : lineHeight(font, device) / 2;
        if (static_cast<double>(ticks.values.size()) * (need + gap) <= length)
            break;
    }
    return ticks;
}

} // namespace

ReportText textAt(const QString& text, const QFont& font, QPointF at, const QPaintDevice& device)
{
    ReportText t;
    t.text = text;
    t.font = font;
    t.rect = QRectF(at, QSizeF(std::ceil(textWidth(text, font, device)) + 1, std::ceil(lineHeight(font, device))));
    return t;
}

ReportText wrappedText(const QString& text, const QFont& font, QPointF at, double width, const QPaintDevice& device)
{
    ReportText t;
    t.text = text;
    t.font = font;
    t.wrap = true;
    t.align = Qt::AlignLeft | Qt::AlignTop;
    const QRectF need =
        QFontMetricsF(font, &device)
            .boundingRect(QRectF(0, 0, width, 1e6), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, text);
    t.rect = QRectF(at, QSizeF(width, std::ceil(need.height()) + 1));
    return t;
}

void layoutPlot(ReportPage& page, const QRectF& area, const PlotSpec& spec, const QPaintDevice& device,
                const ReportStyle& style)
{
    const QFont& small = style.small;
    const double smallH = lineHeight(small, device);
    const double pad = smallH / 2;
    double y = area.top();

    page.items.push_back(wrappedText(spec.title, style.heading, QPointF(area.left(), y), area.width(), device));
    y = std::get<ReportText>(page.items.back()).rect.bottom() + pad / 2;
    if (!spec.yTitle.isEmpty()) {
        page.items.push_back(textAt(spec.yTitle, small, QPointF(area.left(), y), device));
        y += smallH + smallH / 2 + 1; // the top y label is centred on the plot's top edge
    }

    // Legend rows, laid out from the bottom up so the plot takes what is left.
    const double swatch = smallH * 0.7;
    const double entryGap = textWidth(QStringLiteral("MMM"), small, device);
    struct Entry
    {
        const PlotSeries* series;
        double width;
        ReportText name; ///< at the origin; moved into place below
    };
    struct LegendRow
    {
        std::vector<Entry> entries;
        double height = 0;
    };
    std::vector<LegendRow> legendRows;
    {
        double x = 0;
        for (const auto& s : spec.series) {
            if (!s.inLegend)
                continue;
            ReportText name = textAt(s.name, small, QPointF(), device);
            if (swatch + pad + name.rect.width() > area.width()) // wider than the plot: wrapped, never cut
                name = wrappedText(s.name, small, QPointF(), area.width() - swatch - pad, device);
            const double w = swatch + pad + name.rect.width();
            if (legendRows.empty() || (x > 0 && x + w > area.width()))
                legendRows.emplace_back(), x = 0;
            legendRows.back().height = std::max(legendRows.back().height, name.rect.height());
            legendRows.back().entries.push_back({&s, w, name});
            x += w + entryGap;
        }
    }
    double legendH = legendRows.empty() ? 0 : pad;
    for (const auto& row : legendRows)
        legendH += row.height + pad / 2;
    const double xTitleH = spec.xTitle.isEmpty() ? 0 : smallH + pad / 2;
    // x labels start below the bottom y label, which is centred on the plot's bottom edge.
    const double xLabelTop = smallH / 2 + 1;
    const double bottomH = xLabelTop + smallH + pad + xTitleH + legendH;

    // Data range.
    double xlo = std::numeric_limits<double>::infinity(), xhi = -xlo, ylo = xlo, yhi = -xlo;
    for (const auto& s : spec.series)
        for (const QPointF& p : s.points) {
            xlo = std::min(xlo, p.x()), xhi = std::max(xhi, p.x());
            ylo = std::min(ylo, p.y()), yhi = std::max(yhi, p.y());
        }
    const bool empty = !std::isfinite(xlo);
    if (empty)
        xlo = 0, xhi = 1, ylo = 0, yhi = 1;
    if (spec.yMin)
        ylo = *spec.yMin;
    if (spec.yMax)
        yhi = *spec.yMax;
    if (!spec.yMin && spec.yAxis == PlotAxis::Number && ylo > 0 && ylo < (yhi - ylo))
        ylo = 0; // start at zero when the data are closer to it than they are wide

    QRectF plot(area.left(), y, area.width(), area.bottom() - y - bottomH);
    const AxisTicks yTicks = fittingTicks(spec.yAxis, ylo, yhi, plot.height(), false, small, device);
    double yLabelW = 0;
    for (const QString& l : yTicks.labels)
        yLabelW = std::max(yLabelW, textWidth(l, small, device));
    plot.setLeft(area.left() + std::ceil(yLabelW) + pad + 2);
    plot.setRight(area.right() - textWidth(QStringLiteral("MMMM"), small, device) / 2);
    const AxisTicks xTicks = fittingTicks(spec.xAxis, xlo, xhi, plot.width(), true, small, device);
    // The first and last x labels are centred on the plot's edges: keep them on the page.
    plot.setLeft(std::max(plot.left(), area.left() + textWidth(xTicks.labels.front(), small, device) / 2 + 1));
    plot.setRight(std::min(area.right() - textWidth(xTicks.labels.back(), small, device) / 2 - 1, area.right()));
    const double x0 = xTicks.values.front(), x1 = xTicks.values.back();
    const double y0 = spec.yMin ? *spec.yMin : yTicks.values.front();
    const double y1 = spec.yMax ? *spec.yMax : yTicks.values.back();
    const auto mapX = [&](double v) { return plot.left() + (v - x0) / (x1 - x0) * plot.width(); };
    const auto mapY = [&](double v) { return plot.bottom() - (v - y0) / (y1 - y0) * plot.height(); };

    const QColor grid(225, 225, 225);
    for (std::size_t i = 0; i < yTicks.values.size(); ++i) {
        const double v = yTicks.values[i];
        if (v < y0 - 1e-9 || v > y1 + 1e-9)
            continue;
        const double py = mapY(v);
        page.items.push_back(ReportLine{QPolygonF({QPointF(plot.left(), py), QPointF(plot.right(), py)}), grid, 1});
        ReportText label = textAt(yTicks.labels[static_cast<int>(i)], small, QPointF(area.left(), 0), device);
        label.rect.setWidth(plot.left() - pad - area.left());
        label.rect.moveTop(py - label.rect.height() / 2);
        label.align = Qt::AlignRight | Qt::AlignVCenter;
        page.items.push_back(label);
    }
    for (std::size_t i = 0; i < xTicks.values.size(); ++i) {
        const double px = mapX(xTicks.values[i]);
        page.items.push_back(ReportLine{QPolygonF({QPointF(px, plot.top()), QPointF(px, plot.bottom())}), grid, 1});
        ReportText label =
            textAt(xTicks.labels[static_cast<int>(i)], small, QPointF(0, plot.bottom() + xLabelTop), device);
        label.rect.moveLeft(px - label.rect.width() / 2);
        label.align = Qt::AlignCenter;
        page.items.push_back(label);
    }
    page.items.push_back(
        ReportLine{QPolygonF({plot.topLeft(), plot.bottomLeft(), plot.bottomRight()}), QColor(90, 90, 90), 1.5});

    for (const auto& s : spec.series) {
        if (s.scatter) {
            const double r = swatch * 0.6;
            for (const QPointF& p : s.points)
                page.items.push_back(ReportBox{QRectF(mapX(p.x()) - r, mapY(p.y()) - r, 2 * r, 2 * r), s.colour,
                                               s.colour.darker(150), true});
        } else if (s.points.size() > 1) {
            QPolygonF line;
            line.reserve(s.points.size());
            for (const QPointF& p : s.points)
                line << QPointF(mapX(p.x()), mapY(std::clamp(p.y(), y0, y1)));
            page.items.push_back(ReportLine{line, s.colour, s.width, s.dashed});
        }
    }
    if (empty && !spec.emptyText.isEmpty()) {
        ReportText t = textAt(spec.emptyText, style.body, QPointF(), device);
        t.rect.moveCenter(plot.center());
        page.items.push_back(t);
    }

    y = plot.bottom() + xLabelTop + smallH + pad / 2;
    if (!spec.xTitle.isEmpty()) {
        ReportText t = textAt(spec.xTitle, small, QPointF(0, y), device);
        t.rect.moveLeft(plot.center().x() - t.rect.width() / 2);
        t.align = Qt::AlignCenter;
        page.items.push_back(t);
        y += xTitleH;
    }
    y += pad;
    for (const auto& row : legendRows) {
        double x = area.left();
        for (const auto& e : row.entries) {
            page.items.push_back(ReportBox{QRectF(x, y + (smallH - swatch) / 2, swatch, swatch), e.series->colour,
                                           e.series->colour.darker(150)});
            ReportText name = e.name;
            name.rect.moveTopLeft(QPointF(x + swatch + pad, y));
            page.items.push_back(name);
            x += e.width + entryGap;
        }
        y += row.height + pad / 2;
    }
}

} // namespace orrery::gui
