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
/** A "nice" axis step (1, 2 or 5 x 10^k, or minute/hour multiples) for about `targetTicks` ticks over `spanS`. */
double niceTimeStep(double spanS, int targetTicks);

} // namespace orrery::gui
