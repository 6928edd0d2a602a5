#include "charts/axis_ticks.h"

#include "results/palette.h"

#include <QLocale>
#include <QValueAxis>

#include <algorithm>
#include <cmath>

namespace orrery::gui {

namespace {

double niceNumberStep(double raw)
{
    if (!(raw > 0) || !std::isfinite(raw))
        return 1;
    const double p = std::pow(10.0, std::floor(std::log10(raw)));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (m * p >= raw * (1 - 1e-9))
            return m * p;
    return 10 * p;
}

QString numberLabel(double v, double step)
{
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    if (std::abs(v) < step * 1e-6)
        v = 0; // no "-0"
    return QLocale(QLocale::English).toString(v, 'f', decimals);
}

QString durationLabel(double v, double step)
{
    const auto whole = [](double x) { return static_cast<long long>(std::llround(x)); };
    if (step >= 86400)
        return QStringLiteral("%1 d").arg(whole(v / 86400));
    if (step >= 3600)
        return QStringLiteral("%1 h").arg(whole(v / 3600));
    if (step >= 60) {
        const long long minutes = whole(v / 60);
        if (minutes < 60)
            return QStringLiteral("%1 min").arg(minutes);
        return QStringLiteral("%1h %2m").arg(minutes / 60).arg(minutes % 60, 2, 10, QLatin1Char('0'));
    }
    return numberLabel(v, step) + QStringLiteral(" s");
}

} // namespace

AxisTicks axisTicks(PlotAxis axis, double lo, double hi, int target)
{
    AxisTicks t;
    if (!std::isfinite(lo) || !std::isfinite(hi))
        lo = 0, hi = 1;
    if (hi < lo)
        std::swap(lo, hi);
    if (hi - lo <= 0)
        hi = lo + (lo == 0 ? 1 : std::abs(lo) * 0.1);
    const double raw = (hi - lo) / std::max(1, target);
    double step = niceNumberStep(raw);
    if (axis == PlotAxis::Duration && raw > 1)
        step = niceTimeStep(hi - lo, std::max(1, target));
    const double first = std::floor(lo / step + 1e-9) * step;
    const double last = std::ceil(hi / step - 1e-9) * step;
    const int n = static_cast<int>(std::llround((last - first) / step));
    for (int i = 0; i <= n; ++i) {
        const double v = first + i * step;
        t.values.push_back(v);
        t.labels << (axis == PlotAxis::Duration ? durationLabel(v, step) : numberLabel(v, step));
    }
    return t;
}

void applyRoundTicks(QValueAxis* axis, double lo, double hi, int target)
{
    const AxisTicks t = axisTicks(PlotAxis::Number, lo, hi, target);
    const double step = t.values.size() > 1 ? t.values[1] - t.values[0] : 1;
    axis->setRange(t.values.front(), t.values.back());
    axis->setTickType(QValueAxis::TicksDynamic);
    axis->setTickAnchor(t.values.front());
    axis->setTickInterval(step);
    const int decimals = std::max(0, static_cast<int>(-std::floor(std::log10(step) + 1e-9)));
    axis->setLabelFormat(QStringLiteral("%.%1f").arg(decimals));
}

} // namespace orrery::gui
