#include "charts/utilisation_chart.h"

#include "charts/axis_ticks.h"

#include "charts/chart_series.h"
#include "charts/zoomable_chart_view.h"
#include "metrics/metrics.h"
#include "results/palette.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace orrery::gui {

UtilisationChart::UtilisationChart(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_view = new ZoomableChartView(new QChart, QChartView::HorizontalRubberBand);
    connect(m_view, &ZoomableChartView::cursorClicked, this, [this](double hours) { emit timeClicked(hours * 3600); });
    m_view->chart()->legend()->setAlignment(Qt::AlignBottom);
    m_view->chart()->setMargins(QMargins(4, 4, 4, 4));
    layout->addWidget(m_view, 3);
    m_throughput = new ZoomableChartView(new QChart, QChartView::HorizontalRubberBand);
    connect(m_throughput, &ZoomableChartView::cursorClicked, this,
            [this](double hours) { emit timeClicked(hours * 3600); });
    m_throughput->chart()->legend()->hide();
    m_throughput->chart()->setMargins(QMargins(4, 4, 4, 4));
    layout->addWidget(m_throughput, 2);
    setRun(nullptr);
}

void UtilisationChart::setCursorTime(double timeS)
{
    m_view->setCursorX(timeS / 3600);
    m_throughput->setCursorX(timeS / 3600);
}

int UtilisationChart::seriesCount() const
{
    return static_cast<int>(m_view->chart()->series().size());
}

void UtilisationChart::setRun(const RunEntry* run)
{
    setThroughput(run);
    QChart* chart = m_view->chart();
    chart->zoomReset();
    chart->removeAllSeries();
    for (auto* axis : chart->axes())
        chart->removeAxis(axis), delete axis;
    auto* x = new QValueAxis;
    x->setTitleText(tr("time (hours)"));
    x->setLabelFormat(QStringLiteral("%.0f"));
    auto* y = new QValueAxis;
    y->setRange(0, 100);
    y->setTitleText(tr("busy GPUs (%)"));
    y->setLabelFormat(QStringLiteral("%d"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    if (!run || !run->result) {
        chart->setTitle(tr("Utilisation: no run selected"));
        x->setRange(0, 1);
        return;
    }
    const auto& r = *run->result;
    chart->setTitle(
        tr("GPU utilisation over time: %1 (mean %2)").arg(run->name, formatPercent(metrics::summarize(r).utilization)));
    auto add = [&](const QString& name, const QVector<QPointF>& pts, const QColor& colour, double width) {
        auto* s = new QLineSeries;
        s->setName(name);
        s->replace(pts);
        QPen pen(colour);
        pen.setWidthF(width);
        s->setPen(pen);
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    };
    for (std::size_t t = 0; t < r.gpuTypes.size(); ++t) {
        int gpus = 0;
        if (run->cluster) {
            const int idx = run->cluster->catalog().indexOf(r.gpuTypes[t]);
            gpus = idx >= 0 ? run->cluster->gpusOfType(idx) : 0;
        }
        if (gpus > 0)
            add(QString::fromStdString(r.gpuTypes[t]), utilisationPoints(r, static_cast<int>(t), gpus),
                colourForIndex(static_cast<int>(t) + 1), 1.2);
    }
    add(tr("all GPUs"), utilisationPoints(r, -1, r.totalGpus), QColor(30, 30, 30), 2.0);
    applyRoundTicks(x, 0, std::max(r.makespanS, 1.0) / 3600.0);
}

void UtilisationChart::setThroughput(const RunEntry* run)
{
    QChart* chart = m_throughput->chart();
    chart->zoomReset();
    chart->removeAllSeries();
    for (auto* axis : chart->axes())
        chart->removeAxis(axis), delete axis;
    const bool any = run && run->result && !run->result->rateSegments.empty();
    m_throughput->setVisible(any);
    if (!any)
        return;
    const auto& r = *run->result;
    const bool samples = hasSampleRates(r);
    auto* x = new QValueAxis;
    x->setTitleText(tr("time (hours)"));
    auto* y = new QValueAxis;
    y->setTitleText(samples ? tr("samples/s") : tr("jobs' work per hour"));
    y->setLabelFormat(QStringLiteral("%.4g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    chart->setTitle(samples
                        ? tr("Throughput over time: training samples per second (goodput where the source models it)")
                        : tr("Throughput over time: work done per hour, each job's work counted as 1"));
    const QVector<QPointF> pts = throughputPoints(metrics::throughputOverTime(r), r.makespanS, samples);
    auto* s = new QLineSeries;
    s->setName(y->titleText());
    s->replace(pts);
    QPen pen(QColor(30, 30, 30));
    pen.setWidthF(1.5);
    s->setPen(pen);
    chart->addSeries(s);
    s->attachAxis(x);
    s->attachAxis(y);
    double top = 0;
    for (const auto& p : pts)
        top = std::max(top, p.y());
    applyRoundTicks(y, 0, top > 0 ? top * 1.05 : 1.0);
    applyRoundTicks(x, 0, std::max(r.makespanS, 1.0) / 3600.0);
}

} // namespace orrery::gui
