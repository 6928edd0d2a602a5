#pragma once

#include <QColor>
#include <QString>

namespace orrery::gui {

/** Stable, readable colours for categorical keys (job, user, model, run). */
QColor colourForIndex(int index);
QColor colourForKey(const QString& key);
/** Black or white, whichever reads better on `background`. */
QColor textColourOn(const QColor& background);

/** `2h 05m`, `4m 10s`, `12.5 s`: compact durations for axes and tooltips. */
QString formatDuration(double seconds);
/** `$1,234`: dollars as every table shows them. */
QString formatCost(double usd);
/** `97.3%` from a fraction 0..1. */
QString formatPercent(double fraction);
/** A "nice" axis step (1, 2 or 5 x 10^k, or minute/hour multiples) for about `targetTicks` ticks over `spanS`. */
double niceTimeStep(double spanS, int targetTicks);

} // namespace orrery::gui
