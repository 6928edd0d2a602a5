#pragma once

namespace orrery::gui {

/**
 * Time <-> pixel mapping of the Gantt: a visible window [viewStartS, viewEndS)
 * of the run's extent [boundsStartS, boundsEndS], drawn over widthPx pixels.
 * A value type so that zoom and pan are plain functions with table tests.
 */
struct TimelineGeometry
{
    double boundsStartS = 0;
    double boundsEndS = 1;
    double viewStartS = 0;
    double viewEndS = 1;
    int widthPx = 1;
    /** The narrowest window zoom reaches (a zoom-in stops here). */
    double minSpanS = 1.0;

    /** The whole extent in `widthPx` pixels. An empty extent becomes one second. */
    static TimelineGeometry fit(double startS, double endS, int widthPx);

    double spanS() const { return viewEndS - viewStartS; }
    double secondsPerPixel() const { return spanS() / widthPx; }
    double timeToX(double t) const { return (t - viewStartS) / spanS() * widthPx; }
    double xToTime(double x) const { return viewStartS + x / widthPx * spanS(); }

    /** Zoom by `factor` (> 1 zooms in) keeping the time under pixel `x` under `x`. */
    TimelineGeometry zoomedAt(double x, double factor) const;
    /** Move the window by `dxPx` pixels (positive: later times), clamped to the bounds. */
    TimelineGeometry panned(double dxPx) const;
    /** Same window on a new width. */
    TimelineGeometry resized(int widthPx) const;
    /** The window moved (span kept) to start at `startS`, clamped. */
    TimelineGeometry scrolledTo(double startS) const;
    bool isZoomed() const { return viewStartS > boundsStartS || viewEndS < boundsEndS; }

    bool operator==(const TimelineGeometry&) const = default;

private:
    TimelineGeometry clamped() const;
};

} // namespace orrery::gui
