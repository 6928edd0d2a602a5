#pragma once

#include "metrics/queue_length.h"
#include "results/run_entry.h"
#include "timeline/timeline_geometry.h"
#include "timeline/timeline_index.h"
#include "timeline/timeline_rows.h"

#include <QAbstractScrollArea>

#include <cmath>
#include <optional>
#include <utility>
#include <vector>

namespace orrery::gui {

/**
 * The Gantt timeline: one row per GPU, grouped by type and node, one bar per
 * allocation interval. Painted directly (no item per job): each repaint culls
 * rows to the viewport and intervals to the window by binary search, and
 * merges sub-pixel bars, so 10^5 intervals stay smooth.
 *
 * Under the time axis a track shows how many jobs wait over time (the queue
 * length), on the same time scale.
 *
 * Wheel: zoom at the cursor; Shift+wheel: scroll rows; drag: pan; click: move
 * the time cursor there (shared with cluster-at-t and the utilisation chart)
 * and highlight every interval of the job clicked; Shift+drag: measure a time
 * range; double-click or `0`: fit.
 */
class GanttView : public QAbstractScrollArea
{
    Q_OBJECT
public:
    /** What hovering allocation interval `interval` of the run shows: job, stretch, GPUs, goodput and batch. */
    QString tooltipFor(int interval) const;
    enum class ColourBy { Job, User, Model };
    Q_ENUM(ColourBy)

    explicit GanttView(QWidget* parent = nullptr);

    void setRun(const RunEntry* run);
    void clear();
    void setColourBy(ColourBy mode);
    ColourBy colourBy() const { return m_colourBy; }
    void setHighlightedJob(int job);
    int highlightedJob() const { return m_highlight; }
    /** What the colours mean under the current colouring: each user or model with its colour, those with the most
     * GPU-time first (at most `max`, then how many more), or a single "one colour per job" entry. */
    struct LegendEntry
    {
        QString label;
        QColor colour; ///< invalid for a note without a swatch
    };
    std::vector<LegendEntry> colourLegend(int max = 10) const;
    /** Highlights `job` and scrolls to its first bar: the window keeps its span, centred on the bar's start (or
     * widened to show the whole bar), and the bar's row comes into view. False when the job never ran. */
    bool revealJob(int job);

    const TimelineGeometry& geometry() const { return m_geometry; }
    void setGeometryWindow(double startS, double endS);
    void zoomAt(double xInPlot, double factor);
    void zoomToFit();
    bool hasRun() const { return m_index.run() != nullptr; }

    /** The job under a viewport point, or -1 (for tests and tooltips). */
    int jobAt(const QPoint& viewportPos) const;

    /** The shared time cursor (seconds), NaN when none; setting it does not emit cursorMoved. */
    void setCursorTime(double timeS);
    double cursorTime() const { return m_cursorS; }
    /** The range measured with Shift+drag, (from, to) with from <= to; empty when none. */
    std::optional<std::pair<double, double>> measuredRange() const;
    /** Where the highlighted job's bars are in the whole Gantt, as y positions (viewport pixels) in the marker
     *  strip at the right edge: one per row holding one of its bars, so bars scrolled out of view are found. */
    std::vector<int> highlightMarkers() const;
    /** The queue length track's series (jobs waiting over time). */
    const std::vector<metrics::QueuePoint>& queueSeries() const { return m_queue; }

    static constexpr int kLabelWidth = 132;
    static constexpr int kAxisHeight = 26;
    static constexpr int kQueueTrackHeight = 30;
    /** Where the rows start: the time axis, then the queue track. */
    static constexpr int kHeaderHeight = kAxisHeight + kQueueTrackHeight;
    static constexpr int kRowHeight = 13;
    static constexpr int kGroupHeaderHeight = 20;
    /** Narrower bars carry no job id (measuring every sliver's text would cost more than drawing it). */
    static constexpr int kMinLabelledBar = 24;

signals:
    void jobClicked(int job);
    /** The colouring or the run changed: the legend must be redrawn. */
    void coloursChanged();
    void windowChanged(double startS, double endS);
    /** The user moved the time cursor (a click on the timeline). */
    void cursorMoved(double timeS);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    bool viewportEvent(QEvent* event) override;

private:
    int plotWidth() const;
    int contentHeight() const;
    int rowTop(int row) const; ///< in content coordinates (without the axis)
    int rowAtY(int contentY) const;
    QColor barColour(int job) const;
    void updateScrollBars();
    void setGeometry(const TimelineGeometry& g);
    void paintAxis(QPainter& p);
    void paintRows(QPainter& p);
    void paintQueueTrack(QPainter& p);
    void paintCursorAndMeasure(QPainter& p);
    double timeAtX(int viewportX) const;

    TimelineIndex m_index;
    TimelineRows m_rows;
    std::vector<int> m_groupOfRow;
    std::vector<QColor> m_jobColours;
    std::vector<QString> m_jobIds; ///< drawn inside bars wide enough
    TimelineGeometry m_geometry;
    ColourBy m_colourBy = ColourBy::Job;
    int m_highlight = -1;
    QPoint m_pressPos;
    QPoint m_lastDragPos;
    bool m_dragging = false;
    bool m_measuring = false;
    double m_cursorS = std::nan("");
    double m_measureFromS = std::nan("");
    double m_measureToS = std::nan("");
    std::vector<metrics::QueuePoint> m_queue;
    int m_queueMax = 0;
    bool m_updatingScrollBars = false;
    QString m_runName;
};

} // namespace orrery::gui
