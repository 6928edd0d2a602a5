#include "serving/attainment_chart.h"

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

namespace orrery::gui {

namespace {
const QString kGoalName = QStringLiteral("99% goal");
}

AttainmentChart::AttainmentChart(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view = new QChartView(new QChart);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_view->chart()->legend()->setAlignment(Qt::AlignBottom);
    layout->addWidget(m_view);
    clear();
}

void AttainmentChart::clear()
{
    QChart* chart = m_view->chart();
    chart->removeAllSeries();
    for (auto* axis : chart->axes())
        chart->removeAxis(axis), delete axis;
    chart->setTitle(tr("Compute the curves (Curves) to compare AlpaServe with the baselines"));
}

void AttainmentChart::setCurves(const serve::AttainmentCurves& curves)
{
    clear();
    QChart* chart = m_view->chart();
    chart->setTitle(
        tr("SLO attainment along %1").arg(QString::fromStdString(serve::curveAxisTitle(curves.axis, curves.trace))));
    auto* x = new QValueAxis;
    x->setTitleText(QString::fromStdString(serve::curveAxisTitle(curves.axis, curves.trace)));
    const auto [lo, hi] =
        curves.values.empty()
            ? std::pair<double, double>{0.0, 1.0}
            : std::pair<double, double>{*std::min_element(curves.values.begin(), curves.values.end()),
                                        *std::max_element(curves.values.begin(), curves.values.end())};
    applyRoundTicks(x, lo, hi > lo ? hi : lo + 1);
    auto* y = new QValueAxis;
    y->setTitleText(tr("SLO attainment (%)"));
    y->setRange(0, 100);
    y->setTickCount(6);
    y->setLabelFormat(QStringLiteral("%.0f"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (std::size_t m = 0; m < curves.methods.size(); ++m) {
        auto* s = new QLineSeries;
        s->setName(QString::fromStdString(serve::methodTitle(curves.methods[m])));
        s->setColor(colourForIndex(static_cast<int>(m)));
        s->setPointsVisible(true);
        // Points in axis order, whatever order the values were given in.
        std::vector<std::pair<double, double>> points;
        for (std::size_t v = 0; v < curves.values.size() && v < curves.attainment[m].size(); ++v)
            points.emplace_back(curves.values[v], 100 * curves.attainment[m][v]);
        std::sort(points.begin(), points.end());
        for (const auto& [px, py] : points)
            s->append(px, py);
        chart->addSeries(s);
        s->attachAxis(x);
        s->attachAxis(y);
    }
    auto* goal = new QLineSeries;
    goal->setName(kGoalName);
    QPen pen(Qt::gray, 1, Qt::DashLine);
    goal->setPen(pen);
    goal->append(x->min(), 99);
    goal->append(x->max(), 99);
    chart->addSeries(goal);
    goal->attachAxis(x);
    goal->attachAxis(y);
}

int AttainmentChart::lineCount() const
{
    int n = 0;
    for (auto* s : m_view->chart()->series())
        n += s->name() != kGoalName;
    return n;
}

QLineSeries* AttainmentChart::line(const QString& methodTitle) const
{
    for (auto* s : m_view->chart()->series())
        if (s->name() == methodTitle)
            return qobject_cast<QLineSeries*>(s);
    return nullptr;
}

} // namespace orrery::gui
