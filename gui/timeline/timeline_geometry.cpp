#include "timeline/timeline_geometry.h"

#include <algorithm>

namespace orrery::gui {

TimelineGeometry TimelineGeometry::fit(double startS, double endS, int widthPx)
{
    TimelineGeometry g;
    g.boundsStartS = startS;
    g.boundsEndS = endS > startS ? endS : startS + 1.0;
    g.viewStartS = g.boundsStartS;
    g.viewEndS = g.boundsEndS;
    g.widthPx = std::max(1, widthPx);
    // Never closer than 1/1000 of the run or 1 ms per 100 px, whichever is wider.
    g.minSpanS = std::max((g.boundsEndS - g.boundsStartS) * 1e-6, 1e-3);
    return g;
}

TimelineGeometry TimelineGeometry::clamped() const
{
    TimelineGeometry g = *this;
    const double bounds = boundsEndS - boundsStartS;
    double span = std::clamp(g.spanS(), std::min(minSpanS, bounds), bounds);
    if (g.viewStartS < boundsStartS)
        g.viewStartS = boundsStartS;
    if (g.viewStartS + span > boundsEndS)
        g.viewStartS = boundsEndS - span;
    g.viewEndS = g.viewStartS + span;
    return g;
}

TimelineGeometry TimelineGeometry::zoomedAt(double x, double factor) const
{
    if (factor <= 0)
        return *this;
    const double anchor = xToTime(x);
    const double bounds = boundsEndS - boundsStartS;
    const double span = std::clamp(spanS() / factor, std::min(minSpanS, bounds), bounds);
    TimelineGeometry g = *this;
    const double frac = x / widthPx;
    g.viewStartS = anchor - frac * span;
    g.viewEndS = g.viewStartS + span;
    return g.clamped();
}

TimelineGeometry TimelineGeometry::panned(double dxPx) const
{
    return scrolledTo(viewStartS + dxPx * secondsPerPixel());
}

TimelineGeometry TimelineGeometry::resized(int newWidthPx) const
{
    TimelineGeometry g = *this;
    g.widthPx = std::max(1, newWidthPx);
    return g;
}

TimelineGeometry TimelineGeometry::scrolledTo(double startS) const
{
    TimelineGeometry g = *this;
    const double span = spanS();
    g.viewStartS = startS;
    g.viewEndS = startS + span;
    return g.clamped();
}

} // namespace orrery::gui
