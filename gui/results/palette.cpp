#include "results/palette.h"

#include <QHash>

#include <array>
#include <cmath>

namespace orrery::gui {

QColor colourForIndex(int index)
{
    // Golden-ratio hue walk with three lightness bands: neighbours differ even for thousands of keys.
    const double hue = std::fmod(0.11 + 0.618033988749895 * index, 1.0);
    static constexpr std::array<double, 3> value{0.86, 0.70, 0.95};
    static constexpr std::array<double, 3> saturation{0.55, 0.65, 0.40};
    const auto band = static_cast<std::size_t>(index % 3);
    return QColor::fromHsvF(static_cast<float>(hue), static_cast<float>(saturation[band]),
                            static_cast<float>(value[band]));
}

QColor colourForKey(const QString& key)
{
    return colourForIndex(static_cast<int>(qHash(key) % 100003u));
}

QColor textColourOn(const QColor& background)
{
    const double luminance = 0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
    return luminance > 0.55 ? QColor(Qt::black) : QColor(Qt::white);
}

QString formatDuration(double seconds)
{
    if (!std::isfinite(seconds))
        return QStringLiteral("-");
    const bool negative = seconds < 0;
    double s = std::abs(seconds);
    QString text;
    if (s < 60)
        text = QString::number(s, 'g', s < 10 ? 2 : 3) + QStringLiteral(" s");
    else if (s < 3600)
        text = QStringLiteral("%1m %2s")
                   .arg(static_cast<int>(s / 60))
                   .arg(static_cast<int>(std::fmod(s, 60)), 2, 10, QLatin1Char('0'));
    else if (s < 86400 * 3)
        text = QStringLiteral("%1h %2m")
                   .arg(static_cast<int>(s / 3600))
                   .arg(static_cast<int>(std::fmod(s, 3600) / 60), 2, 10, QLatin1Char('0'));
    else
        text = QStringLiteral("%1 d").arg(s / 86400, 0, 'f', 1);
    return negative ? QStringLiteral("-") + text : text;
}

QString formatCost(double usd)
{
    return QStringLiteral("$%L1").arg(usd, 0, 'f', 0);
}

QString formatPercent(double fraction)
{
    return QStringLiteral("%1%").arg(100 * fraction, 0, 'f', 1);
}

double niceTimeStep(double spanS, int targetTicks)
{
    const double raw = spanS / std::max(1, targetTicks);
    static constexpr std::array<double, 16> steps{1,   2,   5,   10,   15,   30,   60,    120,
                                                  300, 600, 900, 1800, 3600, 7200, 10800, 21600};
    if (raw <= 1) {
        const double p = std::pow(10.0, std::floor(std::log10(raw)));
        for (double m : {1.0, 2.0, 5.0, 10.0})
            if (m * p >= raw)
                return m * p;
    }
    for (double s : steps)
        if (s >= raw)
            return s;
    const double days = std::ceil(raw / 86400.0);
    return days * 86400.0;
}

} // namespace orrery::gui
