#include "export/report_gantt.h"

#include "export/report_plot.h"
#include "results/palette.h"
#include "timeline/timeline_rows.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace orrery::gui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("ReportGantt", text);
}

/** "A100 40GB SXM" from the band title "A100 40GB SXM: 16 GPUs on 2 nodes". */
QString shortName(const QString& title)
{
    const int colon = title.indexOf(QLatin1Char(':'));
    return colon > 0 ? title.left(colon) : title;
}

} // namespace

void layoutGantt(ReportPage& page, const QRectF& area, const RunEntry& run, const QPaintDevice& device,
                 const ReportStyle& style)
{
    const sim::RunResult& r = *run.result;
    const TimelineRows rows = TimelineRows::fromCluster(run.cluster.get(), r.totalGpus);
    const QFont& small = style.small;
    const QFontMetricsF fm(small, &device);
    const double smallH = fm.height();
    const double pad = smallH / 2;

    double y = area.top();
    page.items.push_back(wrappedText(tr("Gantt of %1: one row per GPU, grouped by type and node; one colour per job "
                                        "(colours repeat)")
                                         .arg(run.name),
                                     style.heading, QPointF(area.left(), y), area.width(), device));
    y = std::get<ReportText>(page.items.back()).rect.bottom() + pad;

    // The bands listed under the axis, wrapped: their height decides the plot's.
    QStringList bandNames;
    for (const auto& g : rows.groups)
        bandNames << g.title;
    const ReportText caption = wrappedText(tr("Rows, top to bottom: %1.").arg(bandNames.join(QStringLiteral("; "))),
                                           small, QPointF(area.left(), 0), area.width(), device);
    const double bottomH = pad / 2 + smallH + pad / 2 + smallH + pad + caption.rect.height();

    double labelW = 0;
    for (const auto& g : rows.groups)
        labelW = std::max(labelW, fm.horizontalAdvance(shortName(g.title)));
    labelW = std::min(std::ceil(labelW) + pad, area.width() / 4);
    const QRectF plot(area.left() + labelW, y, area.width() - labelW - fm.horizontalAdvance(QStringLiteral("MMMM")) / 2,
                      area.bottom() - y - bottomH);

    const double span = std::max(r.makespanS, 1.0);
    const AxisTicks ticks = [&] {
        AxisTicks t;
        for (int target = 8; target >= 2; --target) {
            t = axisTicks(PlotAxis::Duration, 0, span, target);
            double widest = 0;
            for (const QString& l : t.labels)
                widest = std::max(widest, fm.horizontalAdvance(l));
            if (static_cast<double>(t.values.size()) * (widest + fm.horizontalAdvance(QStringLiteral("MM"))) <=
                plot.width())
                break;
        }
        return t;
    }();
    const double t1 = ticks.values.back();

    // Bars into an image of the plot's size in device pixels.
    const int rowCount = std::max<int>(1, static_cast<int>(rows.rows.size()));
    QImage image(std::max(1, static_cast<int>(plot.width())), std::max(1, static_cast<int>(plot.height())),
                 QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter p(&image);
        const double rowH = image.height() / static_cast<double>(rowCount);
        for (std::size_t gi = 0; gi < rows.groups.size(); ++gi)
            if (gi % 2 == 1)
                p.fillRect(QRectF(0, rows.groups[gi].firstRow * rowH, image.width(), rows.groups[gi].rowCount * rowH),
                           QColor(246, 246, 246));
        std::vector<int> rowOfGpu(static_cast<std::size_t>(std::max(r.totalGpus, 0)), -1);
        for (std::size_t i = 0; i < rows.rows.size(); ++i)
            if (rows.rows[i].gpu >= 0 && rows.rows[i].gpu < r.totalGpus)
                rowOfGpu[static_cast<std::size_t>(rows.rows[i].gpu)] = static_cast<int>(i);
        const double gap = rowH >= 4 ? 1 : 0;
        const double scale = image.width() / t1;
        for (const auto& iv : r.intervals) {
            if (iv.gpu < 0 || iv.gpu >= r.totalGpus)
                continue;
            const int row = rowOfGpu[static_cast<std::size_t>(iv.gpu)];
            if (row < 0)
                continue;
            const double x0 = iv.startS * scale;
            const double w = std::max((iv.endS - iv.startS) * scale, 0.75);
            p.fillRect(QRectF(x0, row * rowH, w, std::max(rowH - gap, 0.75)), colourForIndex(iv.job));
        }
    }
    page.items.push_back(ReportImage{plot, image});

    const double rowH = plot.height() / rowCount;
    for (std::size_t gi = 0; gi < rows.groups.size(); ++gi) {
        const auto& g = rows.groups[gi];
        const double top = plot.top() + g.firstRow * rowH;
        if (gi > 0)
            page.items.push_back(
                ReportLine{QPolygonF({QPointF(plot.left(), top), QPointF(plot.right(), top)}), QColor(90, 90, 90), 1});
        const double bandH = g.rowCount * rowH;
        ReportText name = textAt(shortName(g.title), small, QPointF(area.left(), 0), device);
        if (bandH >= smallH && name.rect.width() <= labelW - pad / 2) {
            name.rect.setWidth(labelW - pad / 2);
            name.rect.moveTop(top + bandH / 2 - name.rect.height() / 2);
            name.align = Qt::AlignRight | Qt::AlignVCenter;
            page.items.push_back(name);
        }
    }
    page.items.push_back(
        ReportLine{QPolygonF({plot.topLeft(), plot.bottomLeft(), plot.bottomRight()}), QColor(90, 90, 90), 1.5});
    y = plot.bottom() + pad / 2;
    for (std::size_t i = 0; i < ticks.values.size(); ++i) {
        const double px = plot.left() + ticks.values[i] / t1 * plot.width();
        page.items.push_back(ReportLine{QPolygonF({QPointF(px, plot.bottom()), QPointF(px, plot.bottom() + pad / 2)}),
                                        QColor(90, 90, 90), 1});
        ReportText label = textAt(ticks.labels[static_cast<int>(i)], small, QPointF(0, y), device);
        label.rect.moveLeft(px - label.rect.width() / 2);
        label.align = Qt::AlignCenter;
        page.items.push_back(label);
    }
    y += smallH + pad / 2;
    ReportText xTitle = textAt(tr("time since the scenario start"), small, QPointF(0, y), device);
    xTitle.rect.moveLeft(plot.center().x() - xTitle.rect.width() / 2);
    page.items.push_back(xTitle);
    y += smallH + pad;
    ReportText listed = caption;
    listed.rect.moveTop(y);
    page.items.push_back(listed);
}

} // namespace orrery::gui
