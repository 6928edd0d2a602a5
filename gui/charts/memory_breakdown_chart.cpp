#include "charts/memory_breakdown_chart.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QLabel>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>

namespace orrery::gui {

QString MemoryBreakdownChart::totalsHtml(const estimate::MemoryBreakdown& memory)
{
    return tr("<b>allocated</b>&nbsp;%1 (torch max_memory_allocated) &nbsp; <b>reserved</b>&nbsp;%2 "
              "(max_memory_reserved) &nbsp; <b>device-visible</b>&nbsp;%3 GiB (nvidia-smi)")
        .arg(memory.allocatedGiB(), 0, 'f', 2)
        .arg(memory.reservedGiB(), 0, 'f', 2)
        .arg(memory.totalGiB(), 0, 'f', 2);
}

MemoryBreakdownChart::MemoryBreakdownChart(QWidget* parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart)), m_legend(new QLabel)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_chart->setAnimationOptions(QChart::NoAnimation); // redrawn on every keystroke: no animation lag
    m_chart->legend()->hide();
    m_chart->setTitle(tr("Memory per GPU"));
    m_legend->setWordWrap(true);
    m_legend->setTextFormat(Qt::RichText);
    m_legend->setAlignment(Qt::AlignCenter);
    layout->addWidget(m_view, 1);
    layout->addWidget(m_legend);
}

void MemoryBreakdownChart::setData(const estimate::MemoryBreakdown& memory, const std::vector<CapacityLine>& capacities,
                                   const QString& caption)
{
    m_chart->removeAllSeries();
    for (auto* axis : m_chart->axes())
        m_chart->removeAxis(axis);

    const int n = std::max<int>(1, static_cast<int>(capacities.size()));
    struct Part
    {
        QString name;
        double giB;
        QColor colour;
    };
    // The overhead split three ways, stacked in the order the three totals include them: temporaries are live
    // tensors (allocated), the allocator's slack is reserved but not allocated, and the CUDA context is seen
    // only by nvidia-smi (device-visible).
    const Part parts[] = {{tr("weights"), memory.weightsGiB, QColor(0x4c, 0x72, 0xb0)},
                          {tr("gradients"), memory.gradientsGiB, QColor(0xdd, 0x84, 0x52)},
                          {tr("optimizer"), memory.optimizerGiB, QColor(0x55, 0xa8, 0x68)},
                          {tr("activations"), memory.activationsGiB, QColor(0x81, 0x72, 0xb3)},
                          {tr("temporaries"), memory.temporaryGiB() - memory.slackGiB, QColor(0x93, 0x78, 0x60)},
                          {tr("allocator slack"), memory.slackGiB, QColor(0xc8, 0xb4, 0x9a)},
                          {tr("CUDA context"), memory.contextGiB, QColor(0x9a, 0x9a, 0x9a)}};
    QStringList legend;
    for (const Part& part : parts)
        legend << QStringLiteral("<span style='color:%1'>&#9632;</span>&nbsp;%2&nbsp;%3")
                      .arg(part.colour.name(),
                           part.name.toHtmlEscaped().replace(QLatin1Char(' '), QStringLiteral("&nbsp;")))
                      .arg(part.giB, 0, 'f', 1);
    legend << tr("<b>- -</b>&nbsp;capacity")
           << tr("<b style='color:#c01c28'>&#8212;</b>&nbsp;capacity,&nbsp;does&nbsp;not&nbsp;fit");
    m_legend->setText(tr("GiB:&nbsp; ") + legend.join(QStringLiteral(" &nbsp; ")) + QStringLiteral("<br>") +
                      totalsHtml(memory));
    auto* bars = new QStackedBarSeries;
    bars->setBarWidth(0.55);
    for (const Part& part : parts) {
        auto* set = new QBarSet(QStringLiteral("%1 %2").arg(part.name).arg(part.giB, 0, 'f', 1));
        set->setColor(part.colour);
        set->setBorderColor(part.colour.darker(120));
        for (int i = 0; i < n; ++i)
            *set << part.giB;
        bars->append(set);
    }
    m_chart->addSeries(bars);

    const double total = memory.totalGiB();
    QStringList categories;
    double top = total;
    for (const auto& c : capacities) {
        const bool oom = total > c.capacityGiB;
        categories << (oom ? tr("%1 OOM").arg(c.label) : c.label);
        top = std::max(top, c.capacityGiB);
    }
    if (categories.isEmpty())
        categories << tr("no GPU types");

    auto* x = new QBarCategoryAxis;
    x->append(categories);
    auto* y = new QValueAxis;
    y->setTitleText(tr("GiB per GPU"));
    m_chart->setTitle(caption.isEmpty()
                          ? tr("Memory per GPU: %1 GiB device-visible").arg(total, 0, 'f', 1)
                          : tr("Memory per GPU: %1 GiB device-visible (%2)").arg(total, 0, 'f', 1).arg(caption));
    y->setRange(0, top * 1.08);
    y->applyNiceNumbers();
    y->setLabelFormat(QStringLiteral("%.0f"));
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    bars->attachAxis(x);
    bars->attachAxis(y);

    // One short segment per type at its capacity; red where the layout does not fit.
    bool fitLegend = false;
    bool oomLegend = false;
    for (int i = 0; i < static_cast<int>(capacities.size()); ++i) {
        const auto& c = capacities[static_cast<std::size_t>(i)];
        const bool oom = total > c.capacityGiB;
        auto* line = new QLineSeries;
        line->setName(oom ? tr("capacity (does not fit)") : tr("capacity"));
        line->append(i - 0.42, c.capacityGiB);
        line->append(i + 0.42, c.capacityGiB);
        QPen pen(oom ? QColor(0xc0, 0x1c, 0x28) : QColor(0x20, 0x20, 0x20));
        pen.setWidth(3);
        if (!oom)
            pen.setStyle(Qt::DashLine);
        line->setPen(pen);
        m_chart->addSeries(line);
        line->attachAxis(x);
        line->attachAxis(y);
        bool& shown = oom ? oomLegend : fitLegend;
        for (auto* marker : m_chart->legend()->markers(line))
            marker->setVisible(false); // explained in the title: the legend is narrow beside the bars
        shown = true;
    }

    // The OOM mark: a red label just above each bar that does not fit. Axis labels alone get elided
    // or dropped when the categories are many or the chart narrow; a point label stays over its bar.
    auto* marks = new QScatterSeries;
    marks->setName(QStringLiteral("OOM"));
    marks->setMarkerSize(1);
    marks->setColor(Qt::transparent);
    marks->setBorderColor(Qt::transparent);
    marks->setPointLabelsFormat(tr("OOM")); // no @ tag: every label reads "OOM"
    marks->setPointLabelsColor(QColor(0xc0, 0x1c, 0x28));
    QFont font = marks->pointLabelsFont();
    font.setBold(true);
    marks->setPointLabelsFont(font);
    marks->setPointLabelsVisible(true);
    marks->setPointLabelsClipping(false);
    m_oomMarks = 0;
    for (int i = 0; i < static_cast<int>(capacities.size()); ++i)
        if (total > capacities[static_cast<std::size_t>(i)].capacityGiB) {
            marks->append(i, total);
            ++m_oomMarks;
        }
    m_chart->addSeries(marks);
    marks->attachAxis(x);
    marks->attachAxis(y);
    for (auto* marker : m_chart->legend()->markers(marks))
        marker->setVisible(false);
}

QString MemoryBreakdownChart::legendText() const
{
    return m_legend->text();
}

} // namespace orrery::gui
