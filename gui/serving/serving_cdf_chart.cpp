#include "serving/serving_cdf_chart.h"

#include "charts/axis_ticks.h"
#include "results/palette.h"

#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLineSeries>
#include <QPen>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <map>

namespace orrery::gui {

ServingCdfChart::ServingCdfChart(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view = new QChartView(new QChart);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->chart()->legend()->setAlignment(Qt::AlignBottom);
    layout->addWidget(m_view);
    clear();
}

void ServingCdfChart::clear()
{
    QChart* chart = m_view->chart();
    chart->removeAllSeries();
    m_cdf = nullptr;
    for (auto* axis : chart->axes())
        chart->removeAxis(axis), delete axis;
    chart->setTitle(tr("Place the models to see the latency distribution of the served requests"));
}

void ServingCdfChart::setRun(const serve::ServingRun& run)
{
    clear();
    QChart* chart = m_view->chart();
    chart->setTitle(tr("Latency of the %1 served requests: p50 %2 s, p99 %3 s")
                        .arg(run.served)
                        .arg(run.latency.p50S, 0, 'f', 3)
                        .arg(run.latency.p99S, 0, 'f', 3));
    // The SLOs by kind: a line each, so that the CDF's tail reads against them.
    std::map<std::string, double> slos;
    for (const auto& m : run.models)
        slos.emplace(m.kind, m.sloS);
    double hi = run.cdf.empty() ? 1.0 : run.cdf.back().first;
    for (const auto& [kind, slo] : slos)
        hi = std::max(hi, slo);
    auto* x = new QValueAxis;
    x->setTitleText(tr("latency (s)"));
    applyRoundTicks(x, 0, hi > 0 ? hi : 1);
    auto* y = new QValueAxis;
    y->setTitleText(tr("fraction of served requests"));
    y->setRange(0, 1);
    y->setTickCount(6);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    m_cdf = new QLineSeries;
    m_cdf->setName(tr("latency CDF"));
    m_cdf->setColor(colourForIndex(0));
    // A step line from the samples (latency, fraction at most that): flat, then up at each sample.
    double previous = 0;
    for (const auto& [latency, fraction] : run.cdf) {
        m_cdf->append(latency, previous);
        m_cdf->append(latency, fraction);
        previous = fraction;
    }
    chart->addSeries(m_cdf);
    m_cdf->attachAxis(x);
    m_cdf->attachAxis(y);
    int i = 1;
    for (const auto& [kind, slo] : slos) {
        auto* s = new QLineSeries;
        s->setName(tr("SLO %1 (%2 s)").arg(QString::fromStdString(kind)).arg(slo, 0, 'f', 3));
        s->setPen(QPen(colourForIndex(i++), 1, Qt::DashLine));
        s->append(slo, 0);
        s->append(slo, 1);
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
}

} // namespace orrery::gui
