#include "charts/tradeoff_chart.h"

#include "results/palette.h"

#include <QChart>
#include <QChartView>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLegend>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QVBoxLayout>
#include <QValueAxis>

namespace orrery::gui {

TradeoffChart::TradeoffChart(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_controls = new QWidget;
    auto* controls = new QHBoxLayout(m_controls);
    controls->setContentsMargins(0, 0, 0, 0);
    m_y = new QComboBox;
    m_y->addItem(tr("Mean JCT"), static_cast<int>(YAxis::MeanJct));
    m_y->addItem(tr("Throughput (jobs/h)"), static_cast<int>(YAxis::Throughput));
    controls->addWidget(new QLabel(tr("Cost against:")));
    controls->addWidget(m_y);
    controls->addStretch();
    layout->addWidget(m_controls);
    m_view = new QChartView(new QChart);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->chart()->legend()->setAlignment(Qt::AlignBottom);
    layout->addWidget(m_view);
    connect(m_y, &QComboBox::currentIndexChanged, this, &TradeoffChart::rebuildFromRuns);
    rebuildFromRuns();
}

void TradeoffChart::setYAxisChoiceVisible(bool visible)
{
    m_controls->setVisible(visible);
}

void TradeoffChart::setRuns(const QVector<const RunEntry*>& runs)
{
    m_runs.clear();
    for (const auto* r : runs)
        if (r && r->result)
            m_runs.push_back(*r);
    rebuildFromRuns();
}

void TradeoffChart::rebuildFromRuns()
{
    const auto y = static_cast<YAxis>(m_y->currentData().toInt());
    m_points.clear();
    for (const auto& r : m_runs)
        m_points.push_back(runTradeoffPoint(r, y == YAxis::MeanJct));
    draw(tr("cost (USD)"), y == YAxis::MeanJct ? tr("mean JCT (hours)") : tr("throughput (jobs/hour)"),
         y == YAxis::MeanJct);
}

void TradeoffChart::setPoints(const std::vector<TradeoffPoint>& points, const QString& xTitle, const QString& yTitle,
                              bool minimiseY)
{
    m_runs.clear();
    m_points = points;
    draw(xTitle, yTitle, minimiseY);
}

void TradeoffChart::draw(const QString& xTitle, const QString& yTitle, bool minimiseY)
{
    QChart* chart = m_view->chart();
    chart->removeAllSeries();
    for (auto* axis : chart->axes())
        chart->removeAxis(axis), delete axis;
    m_front = paretoFront(m_points, minimiseY);
    chart->setTitle(m_points.empty() ? tr("Trade-off: select runs to compare in the Run history")
                                     : tr("Cost trade-off (%1 on the Pareto front)").arg(m_front.size()));
    auto* x = new QValueAxis;
    x->setTitleText(xTitle);
    x->setLabelFormat(QStringLiteral("%.4g"));
    auto* y = new QValueAxis;
    y->setTitleText(yTitle);
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    auto* others = new QScatterSeries;
    others->setName(tr("dominated"));
    others->setColor(QColor(150, 150, 150));
    others->setMarkerSize(10);
    auto* best = new QScatterSeries;
    best->setName(tr("Pareto front"));
    best->setColor(QColor(200, 60, 40));
    best->setMarkerSize(12);
    auto* line = new QLineSeries;
    line->setName(tr("front"));
    QPen pen(QColor(200, 60, 40));
    pen.setWidthF(1.5);
    pen.setStyle(Qt::DashLine);
    line->setPen(pen);
    double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
    for (std::size_t i = 0; i < m_points.size(); ++i) {
        const auto& p = m_points[i];
        const bool onFront = std::find(m_front.begin(), m_front.end(), static_cast<int>(i)) != m_front.end();
        (onFront ? best : others)->append(p.cost, p.value);
        xmin = std::min(xmin, p.cost);
        xmax = std::max(xmax, p.cost);
        ymin = std::min(ymin, p.value);
        ymax = std::max(ymax, p.value);
    }
    for (int i : m_front)
        line->append(m_points[static_cast<std::size_t>(i)].cost, m_points[static_cast<std::size_t>(i)].value);
    for (auto* s : std::initializer_list<QXYSeries*>{line, others, best}) {
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    chart->legend()->markers(line).first()->setVisible(false);
    // Labels: one per point, the run's name (QXYSeries point labels use one format per series, so
    // we place the names through per-point label series of one point each).
    for (const auto& p : m_points) {
        if (p.label.isEmpty())
            continue; // an unlabelled point (a sweep labels its front only) needs no series of its own
        auto* label = new QScatterSeries;
        label->append(p.cost, p.value);
        label->setMarkerSize(0.1);
        label->setPointLabelsVisible(true);
        label->setPointLabelsFormat(p.label);
        label->setPointLabelsClipping(false);
        label->setPointLabelsColor(QColor(40, 40, 40));
        chart->addSeries(label);
        label->attachAxis(x);
        label->attachAxis(y);
        chart->legend()->markers(label).first()->setVisible(false);
    }
    if (xmin <= xmax) {
        const double dx = std::max((xmax - xmin) * 0.15, std::abs(xmax) * 0.05 + 1e-9);
        const double dy = std::max((ymax - ymin) * 0.15, std::abs(ymax) * 0.05 + 1e-9);
        x->setRange(std::max(0.0, xmin - dx), xmax + dx);
        y->setRange(std::max(0.0, ymin - dy), ymax + dy);
    }
}

} // namespace orrery::gui
