#include "sweeps/sweep_line_chart.h"

#include "charts/axis_ticks.h"
#include "results/palette.h"

#include <QCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QLegend>
#include <QLineSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace orrery::gui {

SweepLineChart::SweepLineChart(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view = new QChartView(new QChart);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->chart()->legend()->setAlignment(Qt::AlignBottom);
    layout->addWidget(m_view);
}

void SweepLineChart::setLines(const SweepLines& lines, SweepMetric metric, const QString& axisName)
{
    QChart* chart = m_view->chart();
    chart->removeAllSeries();
    for (auto* axis : chart->axes())
        chart->removeAxis(axis), delete axis;
    chart->setTitle(
        lines.lines.empty()
            ? tr("Select a sweep to see a metric along one of its axes")
            : tr("%1 along %2, per policy (mean over the other axes)").arg(sweepMetricName(metric), axisName));
    QAbstractAxis* x = nullptr;
    const int n = static_cast<int>(lines.axis.labels.size());
    if (lines.axis.numeric) {
        auto* value = new QValueAxis;
        const double lo = lines.axis.numbers.empty() ? 0 : lines.axis.numbers.front();
        const double hi = lines.axis.numbers.empty() ? 1 : lines.axis.numbers.back();
        applyRoundTicks(value, lo, hi > lo ? hi : lo + 1);
        x = value;
    } else {
        // Values that are not numbers (policies, GPU types, error models) sit at equal steps, named.
        auto* category = new QCategoryAxis;
        category->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
        for (int i = 0; i < n; ++i)
            category->append(lines.axis.labels[i], i);
        category->setRange(-0.5, std::max(0, n - 1) + 0.5);
        x = category;
    }
    x->setTitleText(axisName);
    auto* y = new QValueAxis;
    y->setTitleText(QStringLiteral("%1 (%2)").arg(sweepMetricName(metric), sweepMetricChartUnit(metric)));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double lo = 0, hi = 0;
    bool any = false;
    for (std::size_t l = 0; l < lines.lines.size(); ++l) {
        const auto& line = lines.lines[l];
        auto* s = new QLineSeries;
        s->setName(line.policy);
        s->setColor(colourForIndex(static_cast<int>(l)));
        s->setPointsVisible(true);
        for (std::size_t i = 0; i < line.x.size(); ++i) {
            const double v = sweepMetricChartValue(metric, line.mean[i]);
            s->append(line.x[i], v);
            lo = any ? std::min(lo, v) : v;
            hi = any ? std::max(hi, v) : v;
            any = true;
        }
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    // From 0 when every value is positive, so that a small difference is not drawn as a large one.
    applyRoundTicks(y, any ? std::min(0.0, lo) : 0.0, any && hi > 0 ? hi : 1.0);
}

} // namespace orrery::gui
