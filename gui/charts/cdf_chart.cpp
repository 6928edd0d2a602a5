#include "charts/cdf_chart.h"
#include "charts/zoomable_chart_view.h"

#include "charts/axis_ticks.h"

#include "results/palette.h"

#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QStringList>
#include <QVBoxLayout>
#include <QValueAxis>

namespace orrery::gui {

CdfChart::CdfChart(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    auto* controls = new QHBoxLayout;
    m_metric = new QComboBox;
    for (auto m : {CdfMetric::Jct, CdfMetric::QueueingDelay, CdfMetric::Slowdown, CdfMetric::FinishTimeFairness,
                   CdfMetric::AppFinishTimeFairness, CdfMetric::PlacementScore})
        m_metric->addItem(cdfMetricName(m), static_cast<int>(m));
    m_log = new QCheckBox(tr("Logarithmic x axis"));
    controls->addWidget(new QLabel(tr("Metric:")));
    controls->addWidget(m_metric);
    controls->addWidget(m_log);
    controls->addStretch();
    layout->addLayout(controls);
    // Runs that have no values of the metric are named here rather than drawn as nothing.
    m_missing = new QLabel;
    m_missing->setWordWrap(true);
    m_missing->setVisible(false);
    layout->addWidget(m_missing);
    m_view = new ZoomableChartView(new QChart, QChartView::RectangleRubberBand);
    m_view->chart()->legend()->setAlignment(Qt::AlignBottom);
    m_view->chart()->setMargins(QMargins(4, 4, 4, 4));
    layout->addWidget(m_view);
    connect(m_metric, &QComboBox::currentIndexChanged, this, &CdfChart::rebuild);
    connect(m_log, &QCheckBox::toggled, this, &CdfChart::rebuild);
    rebuild();
}

void CdfChart::setRuns(const QVector<const RunEntry*>& runs)
{
    m_runs.clear();
    for (const auto* r : runs)
        if (r && r->result)
            m_runs.push_back(*r);
    rebuild();
}

void CdfChart::setMetric(CdfMetric metric)
{
    m_metric->setCurrentIndex(m_metric->findData(static_cast<int>(metric)));
}

void CdfChart::setLogScale(bool on)
{
    m_log->setChecked(on);
}

int CdfChart::seriesCount() const
{
    return static_cast<int>(m_view->chart()->series().size());
}

QString CdfChart::missingText() const
{
    return m_missing->text();
}

void CdfChart::rebuild()
{
    QChart* chart = m_view->chart();
    chart->zoomReset();
    chart->removeAllSeries();
    for (auto* axis : chart->axes())
        chart->removeAxis(axis), delete axis;
    const auto metric = static_cast<CdfMetric>(m_metric->currentData().toInt());
    const bool log = m_log->isChecked();
    chart->setTitle(m_runs.isEmpty() ? tr("CDF: select runs to compare in the Run history")
                                     : tr("CDF of %1").arg(cdfMetricName(metric).toLower()));
    QAbstractAxis* x = nullptr;
    if (log) {
        auto* lx = new QLogValueAxis;
        lx->setLabelFormat(QStringLiteral("%g"));
        lx->setMinorTickCount(-1);
        x = lx;
    } else {
        auto* vx = new QValueAxis;
        vx->setLabelFormat(QStringLiteral("%.1f"));
        x = vx;
    }
    x->setTitleText(cdfMetricUnit(metric));
    auto* y = new QValueAxis;
    y->setRange(0, 1);
    y->setTitleText(cdfPopulation(metric));
    y->setLabelFormat(QStringLiteral("%.1f"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double lo = INFINITY, hi = -INFINITY;
    QStringList missing;
    for (int i = 0; i < m_runs.size(); ++i) {
        if (const QString why = cdfMissing(m_runs[i], metric); !why.isEmpty()) {
            missing << tr("%1: %2").arg(m_runs[i].name, why);
            continue;
        }
        const QVector<QPointF> pts = cdfPoints(metricValues(m_runs[i], metric), log);
        auto* s = new QLineSeries;
        s->setName(m_runs[i].name);
        s->replace(pts);
        QPen pen(colourForIndex(i).darker(130));
        pen.setWidthF(2);
        s->setPen(pen);
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
        for (const auto& p : pts) {
            lo = std::min(lo, p.x());
            hi = std::max(hi, p.x());
        }
    }
    m_missing->setText(missing.join(QLatin1Char('\n')));
    m_missing->setVisible(!missing.isEmpty());
    if (!m_runs.isEmpty() && missing.size() == m_runs.size())
        chart->setTitle(
            tr("CDF of %1: none of the compared runs has any (see above)").arg(cdfMetricName(metric).toLower()));
    if (lo < hi) {
        if (log)
            x->setRange(lo, hi);
        else
            applyRoundTicks(static_cast<QValueAxis*>(x), std::min(0.0, lo), hi);
    } else if (log) {
        x->setRange(0.01, 100);
    } else {
        applyRoundTicks(static_cast<QValueAxis*>(x), 0, 1);
    }
}

} // namespace orrery::gui
