#include "charts/provision_scatter.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace orrery::gui {

ProvisionScatter::ProvisionScatter(QWidget* parent)
    : QWidget(parent), m_chart(new QChart), m_view(new QChartView(m_chart))
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_view->setRenderHint(QPainter::Antialiasing);
    m_chart->setAnimationOptions(QChart::NoAnimation);
    m_chart->setTitle(tr("Plans evaluated: cost against training time"));
    m_chart->legend()->setAlignment(Qt::AlignRight);
    layout->addWidget(m_view);
}

std::vector<int> ProvisionScatter::paretoFront(const std::vector<provision::EvaluatedPlan>& plans)
{
    std::vector<int> order(plans.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        const auto& pa = plans[static_cast<std::size_t>(a)];
        const auto& pb = plans[static_cast<std::size_t>(b)];
        return pa.totalS != pb.totalS ? pa.totalS < pb.totalS : pa.cost < pb.cost;
    });
    std::vector<int> front;
    double best = std::numeric_limits<double>::infinity();
    for (int i : order) {
        const double c = plans[static_cast<std::size_t>(i)].cost;
        if (c < best) {
            front.push_back(i);
            best = c;
        }
    }
    return front;
}

void ProvisionScatter::setResult(const provision::ProvisionResult& result, double sloS)
{
    m_chart->removeAllSeries();
    for (auto* axis : m_chart->axes())
        m_chart->removeAxis(axis);
    const auto& plans = result.evaluated;
    m_front = paretoFront(plans);

    auto* meets = new QScatterSeries;
    meets->setName(tr("meets the SLO"));
    meets->setMarkerSize(7);
    meets->setColor(QColor(0x4c, 0x72, 0xb0, 170));
    meets->setBorderColor(Qt::transparent);
    auto* misses = new QScatterSeries;
    misses->setName(tr("misses the SLO"));
    misses->setMarkerSize(6);
    misses->setColor(QColor(0xa0, 0xa0, 0xa0, 150));
    misses->setBorderColor(Qt::transparent);
    double xMin = std::numeric_limits<double>::infinity(), xMax = 0, yMin = std::numeric_limits<double>::infinity(),
           yMax = 0;
    auto extend = [&](double x, double y) {
        xMin = std::min(xMin, x);
        xMax = std::max(xMax, x);
        yMin = std::min(yMin, y);
        yMax = std::max(yMax, y);
    };
    // Thousands of points are fine for QScatterSeries; beyond that thin evenly (the front is drawn in full).
    const std::size_t stride = std::max<std::size_t>(1, plans.size() / 20000);
    for (std::size_t i = 0; i < plans.size(); i += stride) {
        const auto& p = plans[i];
        const double h = p.totalS / 3600.0;
        if (!(h > 0) || !(p.cost > 0))
            continue; // no place on log axes (a free GPU pool has no cost to plot)
        (p.meetsSlo ? meets : misses)->append(h, p.cost);
        extend(h, p.cost);
    }
    auto* front = new QLineSeries;
    front->setName(tr("Pareto front"));
    QPen fp(QColor(0xc0, 0x1c, 0x28));
    fp.setWidthF(2);
    fp.setStyle(Qt::DashLine);
    front->setPen(fp);
    front->setPointsVisible(true);
    for (int i : m_front) {
        const auto& p = plans[static_cast<std::size_t>(i)];
        if (p.totalS > 0 && p.cost > 0)
            front->append(p.totalS / 3600.0, p.cost);
    }

    auto* chosen = new QScatterSeries;
    chosen->setName(result.feasible ? tr("chosen plan") : tr("fastest plan (SLO not met)"));
    chosen->setMarkerShape(QScatterSeries::MarkerShapeStar);
    chosen->setMarkerSize(22);
    chosen->setColor(QColor(0xf5, 0xc2, 0x11));
    chosen->setBorderColor(Qt::black);
    if (result.hasPlan && result.plan.totalS > 0 && result.plan.cost > 0) {
        chosen->append(result.plan.totalS / 3600.0, result.plan.cost);
        extend(result.plan.totalS / 3600.0, result.plan.cost);
    }
    if (!std::isfinite(xMin)) {
        xMin = 0.1;
        xMax = 1;
        yMin = 1;
        yMax = 10;
    }
    auto* slo = new QLineSeries;
    slo->setName(tr("SLO"));
    QPen sp(QColor(0x26, 0xa2, 0x69));
    sp.setWidthF(1.5);
    slo->setPen(sp);
    const double sloH = sloS / 3600.0;

    for (QAbstractSeries* s : std::initializer_list<QAbstractSeries*>{misses, meets, front, chosen})
        m_chart->addSeries(s);
    // Logarithmic axes (the paper's Fig. 2): plans span decades of cost and time. A log axis labels only
    // powers of ten, so each range is widened to whole decades (at least one): otherwise a range inside
    // one decade would show no label at all. Minor ticks at 2..9 x 10^k give the scale in between.
    const auto decades = [](double lo, double hi, double& from, double& to) {
        from = std::pow(10.0, std::floor(std::log10(lo)));
        to = std::pow(10.0, std::ceil(std::log10(hi)));
        if (to <= from)
            to = from * 10;
    };
    const double sloShown = sloH > 0 ? sloH : xMax;
    double x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    decades(std::min(xMin, sloShown), std::max(xMax, sloShown), x0, x1);
    decades(yMin, yMax, y0, y1);
    auto* x = new QLogValueAxis;
    x->setTitleText(tr("training time (h, log)"));
    x->setLabelFormat(QStringLiteral("%g"));
    x->setBase(10);
    x->setMinorTickCount(8);
    x->setRange(x0, x1);
    auto* y = new QLogValueAxis;
    y->setTitleText(tr("cost ($, log)"));
    y->setLabelFormat(QStringLiteral("%g"));
    y->setBase(10);
    y->setMinorTickCount(8);
    y->setRange(y0, y1);
    m_chart->addAxis(x, Qt::AlignBottom);
    m_chart->addAxis(y, Qt::AlignLeft);
    if (sloH > 0) {
        slo->append(sloH, y0);
        slo->append(sloH, y1);
        m_chart->addSeries(slo);
    } else {
        delete slo;
        slo = nullptr;
    }
    for (auto* s : m_chart->series()) {
        s->attachAxis(x);
        s->attachAxis(y);
    }
}

} // namespace orrery::gui
