#pragma once

#include <QStringList>

#include <vector>

class QValueAxis;

namespace orrery::gui {

/** How an axis labels its ticks: plain numbers (1, 2, 5 x 10^k steps, never scientific notation) or durations in
 * seconds (minute, hour and day steps, labelled "2h 30m"). */
enum class PlotAxis { Number, Duration };

/** Tick positions and their labels over [lo, hi]. */
struct AxisTicks
{
    std::vector<double> values;
    QStringList labels;
};

/** About `target` round ticks covering [lo, hi] (the first at or below lo, the last at or above hi). */
AxisTicks axisTicks(PlotAxis axis, double lo, double hi, int target);

/** Gives a chart's value axis round ticks over [lo, hi]: the range widened to whole steps, a tick every step from
 * the first, labels with just the decimals the step needs (no scientific notation). */
void applyRoundTicks(QValueAxis* axis, double lo, double hi, int target = 6);

} // namespace orrery::gui
