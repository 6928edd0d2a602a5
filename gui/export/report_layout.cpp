#include "export/report_layout.h"

#include "charts/chart_series.h"
#include "export/report_gantt.h"
#include "export/report_plot.h"
#include "metrics/metrics.h"
#include "models/metrics_table_model.h"
#include "results/palette.h"

#include <QCoreApplication>
#include <QFontMetricsF>
#include <QGuiApplication>
#include <QPaintDevice>

#include <algorithm>
#include <cmath>

namespace orrery::gui {

namespace {

QString tr(const char* text)
{
    return QCoreApplication::translate("Report", text);
}

/** Places blocks down the pages, starting a new page when one does not fit above the footer. */
class PageFlow
{
public:
    PageFlow(std::vector<ReportPage>& pages, QSizeF size, double footerH, const QString& name)
        : m_pages(pages), m_size(size), m_bottom(size.height() - footerH), m_name(name)
    {
        newPage();
    }

    ReportPage& page() { return m_pages.back(); }
    double y() const { return m_y; }
    void advance(double dy) { m_y += dy; }
    double width() const { return m_size.width(); }

    /** Starts a new page unless `height` fits below the current position. */
    void need(double height)
    {
        if (m_y > 0 && m_y + height > m_bottom)
            newPage();
    }

    /** Adds `text` (laid out at the current y) and moves below it, with `gap` after. */
    void add(ReportText text, double gap)
    {
        need(text.rect.height());
        text.rect.moveTop(m_y);
        m_y = text.rect.bottom() + gap;
        page().items.push_back(std::move(text));
    }

private:
    void newPage()
    {
        m_pages.push_back({m_name, {}});
        m_y = 0;
    }

    std::vector<ReportPage>& m_pages;
    QSizeF m_size;
    double m_bottom;
    QString m_name;
    double m_y = 0;
};

double lineHeight(const QFont& font, const QPaintDevice& device)
{
    return QFontMetricsF(font, &device).height();
}

/** The compared runs' metrics with runs as columns (13 metrics do not fit across a portrait page; a handful of
 * runs do), in blocks of as many runs as the width holds. Values are the metrics table's, formatted as on screen. */
void layoutMetrics(PageFlow& flow, const ReportData& data, const QPaintDevice& device, const ReportStyle& style)
{
    MetricsTableModel model;
    QVector<const RunEntry*> runs;
    for (const RunEntry& r : data.runs)
        runs.push_back(&r);
    model.setRuns(runs);
    const QFontMetricsF body(style.body, &device), bold(style.bodyBold, &device);
    const double pad = body.height() / 3;
    const double rowH = std::ceil(body.height() + pad);
    const double swatch = body.height() * 0.7;

    struct MetricRow
    {
        QString label;
        std::vector<QString> values;
    };
    std::vector<MetricRow> metricRows;
    for (int c = MetricsTableModel::Policy; c < MetricsTableModel::ColumnCount; ++c) {
        MetricRow row;
        row.label = model.headerData(c, Qt::Horizontal).toString();
        for (int r = 0; r < model.rowCount(); ++r)
            row.values.push_back(model.data(model.index(r, c)).toString());
        metricRows.push_back(std::move(row));
    }

    double labelW = 0;
    for (const auto& row : metricRows)
        labelW = std::max(labelW, bold.horizontalAdvance(row.label));
    labelW = std::ceil(labelW + 2 * pad);
    std::vector<double> colW;
    for (int r = 0; r < model.rowCount(); ++r) {
        double w = swatch + pad + bold.horizontalAdvance(model.data(model.index(r, MetricsTableModel::Run)).toString());
        for (const auto& row : metricRows)
            w = std::max(w, body.horizontalAdvance(row.values[static_cast<std::size_t>(r)]));
        colW.push_back(std::ceil(std::min(w + 4 * pad, flow.width() - labelW))); // a gap a reader sees
    }

    int first = 0;
    while (first < model.rowCount()) {
        int last = first;
        double used = labelW + colW[static_cast<std::size_t>(first)];
        while (last + 1 < model.rowCount() && used + colW[static_cast<std::size_t>(last + 1)] <= flow.width())
            used += colW[static_cast<std::size_t>(++last)];

        // Header: each run's colour (as in the figures) and its name, wrapped only when one run is wider than the page.
        std::vector<ReportText> headers;
        double headerH = rowH;
        double x = labelW;
        for (int r = first; r <= last; ++r) {
            const double w = colW[static_cast<std::size_t>(r)];
            ReportText t = wrappedText(model.data(model.index(r, MetricsTableModel::Run)).toString(), style.bodyBold,
                                       QPointF(x + pad + swatch + pad, 0), w - 2 * pad - swatch - pad + 1, device);
            headerH = std::max(headerH, t.rect.height() + pad);
            headers.push_back(std::move(t));
            x += w;
        }
        const double blockH = headerH + rowH * static_cast<double>(metricRows.size()) + pad;
        flow.need(std::min(blockH, 12 * rowH));
        const double top = flow.y();
        x = labelW;
        for (int r = first; r <= last; ++r) {
            ReportText& t = headers[static_cast<std::size_t>(r - first)];
            t.rect.moveTop(top);
            flow.page().items.push_back(
                ReportBox{QRectF(x + pad, top + (body.height() - swatch) / 2, swatch, swatch), colourForIndex(r)});
            flow.page().items.push_back(t);
            x += colW[static_cast<std::size_t>(r)];
        }
        flow.advance(headerH);
        flow.page().items.push_back(ReportLine{
            QPolygonF({QPointF(0, flow.y() - pad / 2), QPointF(used, flow.y() - pad / 2)}), QColor(90, 90, 90), 1});
        for (std::size_t m = 0; m < metricRows.size(); ++m) {
            flow.need(rowH);
            const double y = flow.y();
            if (m % 2 == 1)
                flow.page().items.push_back(ReportBox{QRectF(0, y, used, rowH), QColor(242, 242, 242)});
            ReportText label = textAt(metricRows[m].label, style.bodyBold, QPointF(pad, y), device);
            label.rect.setHeight(rowH);
            flow.page().items.push_back(label);
            x = labelW;
            for (int r = first; r <= last; ++r) {
                const double w = colW[static_cast<std::size_t>(r)];
                ReportText value =
                    textAt(metricRows[m].values[static_cast<std::size_t>(r)], style.body, QPointF(x + pad, y), device);
                value.rect = QRectF(x + pad, y, w - 2 * pad, rowH);
                value.align = Qt::AlignRight | Qt::AlignVCenter;
                flow.page().items.push_back(value);
                x += w;
            }
            flow.advance(rowH);
        }
        flow.advance(rowH);
        first = last + 1;
    }
}

PlotSpec cdfSpec(const ReportData& data)
{
    PlotSpec spec;
    spec.title = tr("Job completion time, CDF over finished jobs");
    spec.yTitle = tr("fraction of finished jobs");
    spec.xTitle = tr("job completion time (JCT)");
    spec.xAxis = PlotAxis::Duration;
    spec.yMin = 0;
    spec.yMax = 1;
    spec.emptyText = tr("no finished jobs");
    for (int i = 0; i < data.runs.size(); ++i) {
        const RunEntry& r = data.runs[i];
        QVector<QPointF> points = cdfPoints(metricValues(*r.result, CdfMetric::Jct));
        for (QPointF& p : points)
            p.setX(p.x() * 3600.0);
        spec.series.push_back({r.name, colourForIndex(i), points});
    }
    return spec;
}

PlotSpec tradeoffSpec(const ReportData& data)
{
    PlotSpec spec;
    spec.title = tr("Cost against mean JCT (lower left is better; dashed: the Pareto front)");
    spec.yTitle = tr("mean JCT");
    spec.xTitle = tr("cost of busy GPU-hours (USD)");
    spec.yAxis = PlotAxis::Duration;
    std::vector<TradeoffPoint> points;
    for (int i = 0; i < data.runs.size(); ++i) {
        TradeoffPoint p = runTradeoffPoint(data.runs[i], true);
        p.value *= 3600.0;
        points.push_back(p);
        spec.series.push_back({p.label, colourForIndex(i), {QPointF(p.cost, p.value)}, true});
    }
    const std::vector<int> front = paretoFront(points, true);
    if (front.size() > 1) {
        PlotSeries line{tr("Pareto front"), QColor(90, 90, 90), {}, false, 1.5, true, false};
        for (int i : front)
            line.points << QPointF(points[static_cast<std::size_t>(i)].cost, points[static_cast<std::size_t>(i)].value);
        spec.series.insert(spec.series.begin(), line);
    }
    return spec;
}

PlotSpec utilisationSpec(const RunEntry& run)
{
    const sim::RunResult& r = *run.result;
    PlotSpec spec;
    spec.title =
        tr("GPU utilisation over time: %1 (mean %2)").arg(run.name, formatPercent(metrics::summarize(r).utilization));
    spec.yTitle = tr("busy GPUs (%)");
    spec.xTitle = tr("time since the scenario start");
    spec.xAxis = PlotAxis::Duration;
    spec.yMin = 0;
    spec.yMax = 100;
    const auto toSeconds = [](QVector<QPointF> points) {
        for (QPointF& p : points)
            p.setX(p.x() * 3600.0);
        return points;
    };
    for (std::size_t t = 0; t < r.gpuTypes.size(); ++t) {
        int gpus = 0;
        if (run.cluster) {
            const int idx = run.cluster->catalog().indexOf(r.gpuTypes[t]);
            gpus = idx >= 0 ? run.cluster->gpusOfType(idx) : 0;
        }
        if (gpus > 0)
            spec.series.push_back({QString::fromStdString(r.gpuTypes[t]), colourForIndex(static_cast<int>(t) + 1),
                                   toSeconds(utilisationPoints(r, static_cast<int>(t), gpus)), false, 1.5});
    }
    spec.series.push_back(
        {tr("all GPUs"), QColor(30, 30, 30), toSeconds(utilisationPoints(r, -1, r.totalGpus)), false, 2.5});
    return spec;
}

} // namespace

ReportStyle ReportStyle::standard()
{
    ReportStyle s;
    QFont base = QGuiApplication::font();
    base.setStyleStrategy(QFont::PreferOutline);
    s.body = base;
    s.body.setPointSizeF(9);
    s.bodyBold = s.body;
    s.bodyBold.setBold(true);
    s.small = base;
    s.small.setPointSizeF(7.5);
    s.heading = base;
    s.heading.setPointSizeF(11);
    s.heading.setBold(true);
    s.title = base;
    s.title.setPointSizeF(16);
    s.title.setBold(true);
    return s;
}

std::vector<ReportPage> layoutReport(const ReportData& data, const QPaintDevice& device, QSizeF pageSize,
                                     const ReportStyle& style)
{
    std::vector<ReportPage> pages;
    const double smallH = lineHeight(style.small, device);
    const double bodyH = lineHeight(style.body, device);
    const double footerH = 2 * smallH;
    const double W = pageSize.width();

    {
        PageFlow flow(pages, pageSize, footerH, QStringLiteral("summary"));
        flow.add(wrappedText(data.title, style.title, QPointF(0, 0), W, device), bodyH / 2);
        ReportText generated =
            textAt(tr("Generated %1 by Orrery").arg(data.generated.toString(QStringLiteral("yyyy-MM-dd HH:mm"))),
                   style.small, QPointF(0, 0), device);
        generated.colour = QColor(90, 90, 90);
        flow.add(generated, bodyH);
        flow.add(textAt(tr("Scenario"), style.heading, QPointF(0, 0), device), bodyH / 3);
        for (const QString& line : data.scenarioLines)
            flow.add(wrappedText(line, style.body, QPointF(0, 0), W, device), bodyH / 4);
        flow.advance(bodyH);
        flow.add(textAt(data.runs.isEmpty() ? tr("Metrics: no runs to compare") : tr("Metrics"), style.heading,
                        QPointF(0, 0), device),
                 bodyH / 3);
        if (!data.runs.isEmpty())
            layoutMetrics(flow, data, device, style);
        flow.add(textAt(tr("What the figures mean"), style.heading, QPointF(0, 0), device), bodyH / 3);
        MetricsTableModel model;
        QStringList definitions;
        for (int c = MetricsTableModel::Jobs; c < MetricsTableModel::ColumnCount; ++c) {
            const QString tip = model.headerData(c, Qt::Horizontal, Qt::ToolTipRole).toString();
            if (!tip.isEmpty())
                definitions << tr("%1: %2.").arg(model.headerData(c, Qt::Horizontal).toString(), tip);
        }
        definitions << tr("JCT (job completion time): from a job's arrival to its end, waiting included.")
                    << tr("The scenario's cluster costs %1 per hour.").arg(formatCost(data.clusterUsdPerHour));
        for (const QString& d : definitions)
            flow.add(wrappedText(d, style.body, QPointF(0, 0), W, device), bodyH / 4);
    }

    const double contentH = pageSize.height() - footerH;
    if (!data.runs.isEmpty()) {
        ReportPage page{QStringLiteral("comparison"), {}};
        const double half = (contentH - bodyH) / 2;
        layoutPlot(page, QRectF(0, 0, W, half), cdfSpec(data), device, style);
        layoutPlot(page, QRectF(0, half + bodyH, W, half), tradeoffSpec(data), device, style);
        pages.push_back(std::move(page));
    }
    if (data.focus.result) {
        ReportPage page{QStringLiteral("run"), {}};
        const double top = std::floor(contentH * 0.4);
        layoutPlot(page, QRectF(0, 0, W, top), utilisationSpec(data.focus), device, style);
        layoutGantt(page, QRectF(0, top + bodyH, W, contentH - top - bodyH), data.focus, device, style);
        pages.push_back(std::move(page));
    }

    const int n = static_cast<int>(pages.size());
    for (int i = 0; i < n; ++i) {
        ReportText footer = textAt(tr("Page %1 of %2").arg(i + 1).arg(n), style.small,
                                   QPointF(0, pageSize.height() - smallH - 1), device);
        footer.rect.moveRight(W);
        footer.colour = QColor(90, 90, 90);
        pages[static_cast<std::size_t>(i)].items.push_back(footer);
    }
    return pages;
}

} // namespace orrery::gui
