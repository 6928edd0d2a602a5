// The Gantt's overlays: the queue-length track under the time axis, the shared time cursor, the measured range and
// the highlighted job's markers (the rows and bars are in gantt_view.cpp).
#include "timeline/gantt_view.h"

#include "results/palette.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace orrery::gui {

double GanttView::timeAtX(int viewportX) const
{
    return m_geometry.xToTime(viewportX - kLabelWidth + 0.5);
}

void GanttView::setCursorTime(double timeS)
{
    if (timeS == m_cursorS || (std::isnan(timeS) && std::isnan(m_cursorS)))
        return;
    m_cursorS = timeS;
    viewport()->update();
}

std::optional<std::pair<double, double>> GanttView::measuredRange() const
{
    if (std::isnan(m_measureFromS) || std::isnan(m_measureToS))
        return std::nullopt;
    return std::pair{std::min(m_measureFromS, m_measureToS), std::max(m_measureFromS, m_measureToS)};
}

void GanttView::paintQueueTrack(QPainter& p)
{
    const int top = kAxisHeight;
    const int width = viewport()->width();
    p.fillRect(0, top, width, kQueueTrackHeight, palette().alternateBase());
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(0, kHeaderHeight - 1, width, kHeaderHeight - 1);
    p.setPen(palette().color(QPalette::WindowText));
    p.drawText(QRect(6, top, kLabelWidth - 8, kQueueTrackHeight), Qt::AlignVCenter | Qt::AlignLeft,
               tr("Queue (max %1)").arg(m_queueMax));
    if (m_queue.empty() || m_queueMax == 0)
        return;
    // The most jobs waiting within each pixel column, so a short burst stays visible when zoomed out.
    const int plot = plotWidth();
    std::vector<int> column(static_cast<std::size_t>(std::max(plot, 0)), 0);
    const auto valueAt = [this](double t) {
        auto it = std::upper_bound(m_queue.begin(), m_queue.end(), t,
                                   [](double v, const metrics::QueuePoint& q) { return v < q.timeS; });
        return it == m_queue.begin() ? 0 : std::prev(it)->queued;
    };
    for (int x = 0; x < plot; ++x)
        column[static_cast<std::size_t>(x)] = valueAt(m_geometry.xToTime(x));
    auto it = std::upper_bound(m_queue.begin(), m_queue.end(), m_geometry.viewStartS,
                               [](double v, const metrics::QueuePoint& q) { return v < q.timeS; });
    for (; it != m_queue.end() && it->timeS <= m_geometry.viewEndS; ++it) {
        const int x = static_cast<int>(std::floor(m_geometry.timeToX(it->timeS)));
        if (x >= 0 && x < plot)
            column[static_cast<std::size_t>(x)] = std::max(column[static_cast<std::size_t>(x)], it->queued);
    }
    const int inner = kQueueTrackHeight - 4;
    const QColor fill(90, 110, 160);
    for (int x = 0; x < plot; ++x) {
        const int v = column[static_cast<std::size_t>(x)];
        if (v <= 0)
            continue;
        const int h = std::max(1, static_cast<int>(std::lround(static_cast<double>(v) / m_queueMax * inner)));
        p.fillRect(kLabelWidth + x, kHeaderHeight - 2 - h, 1, h, fill);
    }
}

std::vector<int> GanttView::highlightMarkers() const
{
    std::vector<int> ys;
    const auto* run = m_index.run();
    if (!run || m_highlight < 0 || static_cast<std::size_t>(m_highlight) >= run->jobs.size())
        return ys;
    std::vector<int> rowOfGpu(static_cast<std::size_t>(std::max(0, m_index.gpuCount())), -1);
    for (std::size_t r = 0; r < m_rows.rows.size(); ++r) {
        const int g = m_rows.rows[r].gpu;
        if (g >= 0 && static_cast<std::size_t>(g) < rowOfGpu.size())
            rowOfGpu[static_cast<std::size_t>(g)] = static_cast<int>(r);
    }
    // The strip maps the whole content height onto the rows' part of the viewport, as a scroll bar does.
    const double span = std::max(1, viewport()->height() - kHeaderHeight);
    const double total = std::max(1, contentHeight());
    for (int k : m_index.intervalsOfJob(m_highlight)) {
        const int g = run->intervals[static_cast<std::size_t>(k)].gpu;
        if (g < 0 || static_cast<std::size_t>(g) >= rowOfGpu.size() || rowOfGpu[static_cast<std::size_t>(g)] < 0)
            continue;
        const double mid = rowTop(rowOfGpu[static_cast<std::size_t>(g)]) + kRowHeight / 2.0;
        ys.push_back(kHeaderHeight + static_cast<int>(mid / total * span));
    }
    std::sort(ys.begin(), ys.end());
    ys.erase(std::unique(ys.begin(), ys.end()), ys.end());
    return ys;
}

void GanttView::paintCursorAndMeasure(QPainter& p)
{
    const int width = viewport()->width();
    for (int y : highlightMarkers())
        p.fillRect(width - 7, y - 1, 6, 3, QColor(230, 120, 0));
    const int height = viewport()->height();
    const QFontMetrics fm(font());
    if (const auto range = measuredRange()) {
        const int x0 = kLabelWidth + static_cast<int>(std::lround(m_geometry.timeToX(range->first)));
        const int x1 = kLabelWidth + static_cast<int>(std::lround(m_geometry.timeToX(range->second)));
        p.fillRect(QRect(QPoint(std::max(x0, kLabelWidth), kAxisHeight), QPoint(x1, height)), QColor(60, 120, 220, 40));
        const QString label = tr("%1 (%2 to %3)")
                                  .arg(formatDuration(range->second - range->first), formatDuration(range->first),
                                       formatDuration(range->second));
        const int w = fm.horizontalAdvance(label) + 8;
        const QRect box(std::clamp((x0 + x1 - w) / 2, kLabelWidth, std::max(kLabelWidth, viewport()->width() - w)),
                        kHeaderHeight + 2, w, fm.height() + 4);
        p.fillRect(box, QColor(255, 255, 255, 230));
        p.setPen(QColor(30, 60, 140));
        p.drawRect(box.adjusted(0, 0, -1, -1));
        p.drawText(box, Qt::AlignCenter, label);
    }
    if (std::isnan(m_cursorS))
        return;
    const int x = kLabelWidth + static_cast<int>(std::lround(m_geometry.timeToX(m_cursorS)));
    if (x < kLabelWidth || x > viewport()->width())
        return;
    p.setPen(QPen(QColor(200, 30, 30), 1.5));
    p.drawLine(x, 0, x, height);
    const QString label = formatDuration(m_cursorS);
    const int w = fm.horizontalAdvance(label) + 6;
    const QRect box(std::clamp(x + 3, kLabelWidth, std::max(kLabelWidth, viewport()->width() - w)), 1, w,
                    fm.height() + 2);
    p.fillRect(box, QColor(200, 30, 30));
    p.setPen(Qt::white);
    p.drawText(box, Qt::AlignCenter, label);
}

} // namespace orrery::gui
