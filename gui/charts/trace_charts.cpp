#include "charts/trace_charts.h"

#include "results/palette.h"

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QCoreApplication>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace orrery::gui {

namespace {
QString tr(const char* text)
{
    return QCoreApplication::translate("TraceCharts", text);
}
} // namespace

QChartView* smallBarChart()
{
    auto* view = new QChartView(new QChart);
    view->setRenderHint(QPainter::Antialiasing);
    view->chart()->legend()->hide();
    view->chart()->setMargins(QMargins(2, 2, 2, 2));
    view->setMinimumHeight(150);
    return view;
}

void fillBarChart(QChartView* view, const QString& title, const QStringList& labels, const QList<qreal>& values,
                  const QString& yTitle, const QColor& colour)
{
    QChart* chart = view->chart();
    chart->removeAllSeries();
    for (auto* axis : chart->axes())
        chart->removeAxis(axis), delete axis;
    chart->setTitle(title);
    auto* set = new QBarSet(yTitle);
    set->append(values);
    set->setColor(colour);
    set->setBorderColor(colour.darker(120));
    auto* series = new QBarSeries;
    series->append(set);
    series->setBarWidth(0.9);
    chart->addSeries(series);
    auto* x = new QBarCategoryAxis;
    x->append(labels);
    QFont small = x->labelsFont();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8)); // the charts are narrow: "..." otherwise
    x->setLabelsFont(small);
    auto* y = new QValueAxis;
    qreal max = 1;
    for (qreal v : values)
        max = std::max(max, v);
    // Whole-number ticks (counts of jobs): 1, 2 or 5 x 10^k apart, about five of them.
    double step = 1;
    while (max / step > 5)
        step *= (QString::number(step).startsWith(QLatin1Char('2')) ? 2.5 : 2);
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(0);
    y->setTickInterval(step);
    y->setRange(0, std::ceil(max * 1.1 / step) * step);
    y->setLabelFormat(QStringLiteral("%d"));
    y->setTitleText(yTitle);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    series->attachAxis(x);
    series->attachAxis(y);
}

void fillTraceCharts(QChartView* demand, QChartView* arrivals, const TraceSummary& s)
{
    QStringList labels;
    QList<qreal> counts;
    for (std::size_t i = 0; i < s.demandLabels.size(); ++i)
        if (s.demandCounts[i] > 0 || i < 4) {
            labels << s.demandLabels[i];
            counts << s.demandCounts[i];
        }
    fillBarChart(demand, tr("GPU demand"), labels, counts, tr("jobs"), colourForIndex(0));
    QStringList binLabels;
    QList<qreal> perBin;
    const int step = std::max<int>(1, static_cast<int>(s.arrivalsPerBin.size()) / 4);
    for (std::size_t i = 0; i < s.arrivalsPerBin.size(); ++i) {
        binLabels << (i % static_cast<std::size_t>(step) == 0 ? formatDuration(static_cast<double>(i) * s.arrivalBinS)
                                                              : QString(i, QChar(0x200b)));
        perBin << s.arrivalsPerBin[i];
    }
    // Bars are too narrow for time labels (they would all read "..."): the title says the span instead.
    fillBarChart(arrivals,
                 tr("Arrivals per %1, from %2 to %3")
                     .arg(formatDuration(s.arrivalBinS), formatDuration(0),
                          formatDuration(static_cast<double>(s.arrivalsPerBin.size()) * s.arrivalBinS)),
                 binLabels, perBin, tr("jobs"), colourForIndex(1));
    for (auto* axis : arrivals->chart()->axes(Qt::Horizontal))
        axis->setLabelsVisible(false);
}

} // namespace orrery::gui
