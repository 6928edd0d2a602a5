#include "timeline/gantt_view.h"

#include "results/job_details.h"

#include "results/palette.h"

#include <QHelpEvent>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>

namespace orrery::gui {

GanttView::GanttView(QWidget* parent) : QAbstractScrollArea(parent)
{
    setFocusPolicy(Qt::StrongFocus);
    viewport()->setMouseTracking(true);
    viewport()->setAttribute(Qt::WA_OpaquePaintEvent);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOn);
    setMinimumSize(320, 160);
}

void GanttView::clear()
{
    setRun(nullptr);
}

void GanttView::setRun(const RunEntry* run)
{
    m_highlight = -1;
    if (!run || !run->result) {
        m_index = TimelineIndex();
        m_rows = TimelineRows();
        m_runName.clear();
    } else {
        m_index = TimelineIndex(run->result);
        m_rows = TimelineRows::fromCluster(run->cluster.get(), m_index.gpuCount());
        m_runName = run->name;
    }
    m_jobIds.clear();
    m_queue.clear();
    m_queueMax = 0;
    m_measureFromS = m_measureToS = std::nan("");
    if (const auto* r = m_index.run()) {
        m_queue = metrics::queueLengthOverTime(*r);
        for (const auto& q : m_queue)
            m_queueMax = std::max(m_queueMax, q.queued);
        m_jobIds.reserve(r->jobs.size());
        for (const auto& j : r->jobs)
            m_jobIds.push_back(QString::fromStdString(j.id));
    }
    m_groupOfRow.assign(m_rows.rows.size(), 0);
    for (std::size_t g = 0; g < m_rows.groups.size(); ++g)
        for (int r = 0; r < m_rows.groups[g].rowCount; ++r)
            m_groupOfRow[static_cast<std::size_t>(m_rows.groups[g].firstRow + r)] = static_cast<int>(g);
    setColourBy(m_colourBy);
    double endS = 1;
    if (const auto* r = m_index.run()) {
        endS = std::max(r->makespanS, 1.0);
        for (const auto& i : r->intervals)
            endS = std::max(endS, i.endS);
    }
    m_geometry = TimelineGeometry::fit(0, endS, plotWidth());
    verticalScrollBar()->setValue(0);
    updateScrollBars();
    viewport()->update();
    emit windowChanged(m_geometry.viewStartS, m_geometry.viewEndS);
}

void GanttView::setColourBy(ColourBy mode)
{
    m_colourBy = mode;
    m_jobColours.clear();
    if (const auto* r = m_index.run()) {
        m_jobColours.reserve(r->jobs.size());
        for (std::size_t j = 0; j < r->jobs.size(); ++j) {
            const auto& job = r->jobs[j];
            switch (mode) {
            case ColourBy::Job:
                m_jobColours.push_back(colourForIndex(static_cast<int>(j)));
                break;
            case ColourBy::User:
                m_jobColours.push_back(colourForKey(QString::fromStdString(job.user)));
                break;
            case ColourBy::Model:
                m_jobColours.push_back(colourForKey(QString::fromStdString(job.model)));
                break;
            }
        }
    }
    emit coloursChanged();
    viewport()->update();
}

std::vector<GanttView::LegendEntry> GanttView::colourLegend(int max) const
{
    const sim::RunResult* r = m_index.run();
    if (!r)
        return {};
    if (m_colourBy == ColourBy::Job)
        return {{tr("one colour per job (colours repeat); click a bar for the job's details"), QColor()}};
    std::map<std::string, double> gpuTime;
    for (const auto& j : r->jobs)
        gpuTime[m_colourBy == ColourBy::User ? j.user : j.model] += j.gpuSeconds;
    std::vector<std::pair<std::string, double>> keys(gpuTime.begin(), gpuTime.end());
    std::stable_sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::vector<LegendEntry> out;
    for (std::size_t i = 0; i < keys.size() && static_cast<int>(i) < max; ++i) {
        const QString key = QString::fromStdString(keys[i].first);
        out.push_back({key.isEmpty() ? tr("(none)") : key, colourForKey(key)});
    }
    if (static_cast<int>(keys.size()) > max)
        out.push_back({tr("and %1 more").arg(keys.size() - static_cast<std::size_t>(max)), QColor()});
    return out;
}

void GanttView::setHighlightedJob(int job)
{
    if (job == m_highlight)
        return;
    m_highlight = job;
    viewport()->update();
}

bool GanttView::revealJob(int job)
{
    setHighlightedJob(job);
    const sim::RunResult* run = m_index.run();
    if (!run || job < 0)
        return false;
    const auto intervals = m_index.intervalsOfJob(job);
    if (intervals.empty())
        return false;
    const auto first = *std::min_element(intervals.begin(), intervals.end(), [run](int a, int b) {
        return run->intervals[static_cast<std::size_t>(a)].startS < run->intervals[static_cast<std::size_t>(b)].startS;
    });
    const auto& iv = run->intervals[static_cast<std::size_t>(first)];
    const double span = std::max(m_geometry.spanS(), (iv.endS - iv.startS) * 1.2);
    const double start = std::max(m_geometry.boundsStartS, iv.startS - span * 0.1);
    setGeometryWindow(start, start + span);
    for (std::size_t row = 0; row < m_rows.rows.size(); ++row)
        if (m_rows.rows[row].gpu == iv.gpu) {
            const int top = rowTop(static_cast<int>(row));
            auto* bar = verticalScrollBar();
            if (top < bar->value() || top + kRowHeight > bar->value() + viewport()->height() - kHeaderHeight)
                bar->setValue(std::max(0, top - (viewport()->height() - kHeaderHeight) / 2));
            break;
        }
    return true;
}

QColor GanttView::barColour(int job) const
{
    if (job >= 0 && static_cast<std::size_t>(job) < m_jobColours.size())
        return m_jobColours[static_cast<std::size_t>(job)];
    return Qt::gray;
}

int GanttView::plotWidth() const
{
    return std::max(1, viewport()->width() - kLabelWidth);
}

int GanttView::contentHeight() const
{
    return static_cast<int>(m_rows.groups.size()) * kGroupHeaderHeight +
           static_cast<int>(m_rows.rows.size()) * kRowHeight;
}

int GanttView::rowTop(int row) const
{
    const int group = m_groupOfRow.empty() ? 0 : m_groupOfRow[static_cast<std::size_t>(row)];
    return (group + 1) * kGroupHeaderHeight + row * kRowHeight;
}

int GanttView::rowAtY(int contentY) const
{
    // Rows are few (GPUs), groups fewer: walk the groups.
    int y = 0;
    for (const auto& g : m_rows.groups) {
        y += kGroupHeaderHeight;
        if (contentY < y)
            return -1;
        const int local = (contentY - y) / kRowHeight;
        if (local < g.rowCount)
            return g.firstRow + local;
        y += g.rowCount * kRowHeight;
    }
    return -1;
}

void GanttView::setGeometry(const TimelineGeometry& g)
{
    if (g == m_geometry)
        return;
    m_geometry = g;
    updateScrollBars();
    viewport()->update();
    emit windowChanged(m_geometry.viewStartS, m_geometry.viewEndS);
}

void GanttView::setGeometryWindow(double startS, double endS)
{
    TimelineGeometry g = m_geometry;
    g.viewStartS = startS;
    g.viewEndS = std::max(endS, startS + g.minSpanS);
    setGeometry(g.scrolledTo(startS));
}

void GanttView::zoomAt(double xInPlot, double factor)
{
    setGeometry(m_geometry.zoomedAt(xInPlot, factor));
}

void GanttView::zoomToFit()
{
    setGeometry(TimelineGeometry::fit(m_geometry.boundsStartS, m_geometry.boundsEndS, plotWidth()));
}

void GanttView::updateScrollBars()
{
    m_updatingScrollBars = true;
    const int visibleRows = std::max(0, viewport()->height() - kHeaderHeight);
    verticalScrollBar()->setRange(0, std::max(0, contentHeight() - visibleRows));
    verticalScrollBar()->setPageStep(visibleRows);
    verticalScrollBar()->setSingleStep(kRowHeight);
    const double fullPx = (m_geometry.boundsEndS - m_geometry.boundsStartS) / m_geometry.secondsPerPixel();
    const double maxValue = std::min(fullPx - m_geometry.widthPx, 2.0e9);
    horizontalScrollBar()->setRange(0, static_cast<int>(std::max(0.0, maxValue)));
    horizontalScrollBar()->setPageStep(m_geometry.widthPx);
    horizontalScrollBar()->setSingleStep(std::max(1, m_geometry.widthPx / 20));
    horizontalScrollBar()->setValue(
        static_cast<int>((m_geometry.viewStartS - m_geometry.boundsStartS) / m_geometry.secondsPerPixel()));
    m_updatingScrollBars = false;
}

void GanttView::scrollContentsBy(int, int)
{
    if (m_updatingScrollBars)
        return;
    const double startS = m_geometry.boundsStartS + horizontalScrollBar()->value() * m_geometry.secondsPerPixel();
    TimelineGeometry g = m_geometry.scrolledTo(startS);
    if (!(g == m_geometry)) {
        m_geometry = g;
        emit windowChanged(g.viewStartS, g.viewEndS);
    }
    viewport()->update();
}

void GanttView::resizeEvent(QResizeEvent* event)
{
    QAbstractScrollArea::resizeEvent(event);
    m_geometry = m_geometry.resized(plotWidth());
    updateScrollBars();
}

void GanttView::paintEvent(QPaintEvent*)
{
    QPainter p(viewport());
    p.fillRect(viewport()->rect(), palette().base());
    if (!m_index.run()) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(viewport()->rect(), Qt::AlignCenter,
                   tr("No run yet.\nRun a policy from the Run manager (F5) to see its schedule here."));
        return;
    }
    paintRows(p);
    paintAxis(p);
    paintQueueTrack(p);
    paintCursorAndMeasure(p);
}

void GanttView::paintAxis(QPainter& p)
{
    const QRect axis(0, 0, viewport()->width(), kAxisHeight);
    p.fillRect(axis, palette().window());
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(0, kAxisHeight - 1, axis.width(), kAxisHeight - 1);
    p.setPen(palette().color(QPalette::WindowText));
    QFont f = font();
    f.setBold(true);
    p.setFont(f);
    p.drawText(QRect(6, 0, kLabelWidth - 8, kAxisHeight), Qt::AlignVCenter | Qt::AlignLeft,
               m_runName.isEmpty() ? tr("Time") : m_runName);
    p.setFont(font());
    const double step = niceTimeStep(m_geometry.spanS(), std::max(2, m_geometry.widthPx / 110));
    const double first = std::ceil(m_geometry.viewStartS / step) * step;
    const QFontMetrics fm(font());
    for (double t = first; t <= m_geometry.viewEndS; t += step) {
        const int x = kLabelWidth + static_cast<int>(std::lround(m_geometry.timeToX(t)));
        p.drawLine(x, kAxisHeight - 6, x, kAxisHeight - 1);
        const QString label = formatDuration(t);
        const int w = fm.horizontalAdvance(label);
        const int lx = std::clamp(x - w / 2, kLabelWidth + 2, viewport()->width() - w - 2);
        p.drawText(lx, kAxisHeight - 9, label);
    }
}

void GanttView::paintRows(QPainter& p)
{
    const int scrollY = verticalScrollBar()->value();
    const int height = viewport()->height();
    const int width = viewport()->width();
    const QColor gridColour = palette().color(QPalette::Midlight);
    const QColor nodeShade = palette().color(QPalette::AlternateBase);
    const QColor headerColour = palette().color(QPalette::Window).darker(104);
    const double step = niceTimeStep(m_geometry.spanS(), std::max(2, m_geometry.widthPx / 110));
    const QFontMetrics fm(font());
    QFont barFont = font();
    barFont.setPixelSize(kRowHeight - 4);
    const QFontMetrics barMetrics(barFont);
    p.setRenderHint(QPainter::Antialiasing, false);

    // Group headers.
    for (const auto& g : m_rows.groups) {
        const int top = kHeaderHeight + rowTop(g.firstRow) - kGroupHeaderHeight - scrollY;
        if (top > height || top + kGroupHeaderHeight < kHeaderHeight)
            continue;
        p.fillRect(0, top, width, kGroupHeaderHeight, headerColour);
        QFont f = font();
        f.setBold(true);
        p.setFont(f);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(6, top, width - 12, kGroupHeaderHeight), Qt::AlignVCenter | Qt::AlignLeft, g.title);
        p.setFont(font());
    }

    const int firstVisible = std::max(0, rowAtY(scrollY));
    QImage scanline(std::max(1, width - kLabelWidth), 1, QImage::Format_ARGB32_Premultiplied);
    std::vector<int> highlightedRows;
    for (int row = firstVisible; row < static_cast<int>(m_rows.rows.size()); ++row) {
        const int top = kHeaderHeight + rowTop(row) - scrollY;
        if (top > height)
            break;
        if (top + kRowHeight < kHeaderHeight)
            continue;
        const auto& r = m_rows.rows[static_cast<std::size_t>(row)];
        if (r.node >= 0 && r.node % 2 == 1)
            p.fillRect(0, top, width, kRowHeight, nodeShade);
        if (r.firstOfNode) {
            p.setPen(gridColour);
            p.drawLine(0, top, width, top);
        }
        // Bars.
        const auto bars = m_index.bars(r.gpu, m_geometry);
        // Bars go into a one-pixel-high scanline that is stretched over the row in one drawImage:
        // zoomed out, a row has a bar per pixel column, and tens of thousands of fillRect calls
        // per frame cost several times more than writing the pixels.
        scanline.fill(Qt::transparent);
        auto* px = reinterpret_cast<QRgb*>(scanline.scanLine(0));
        for (const auto& b : bars) {
            QColor c = barColour(b.job);
            if (m_highlight >= 0 && b.job != m_highlight)
                c = QColor::fromHsvF(c.hsvHueF(), c.hsvSaturationF() * 0.25f, 0.92f);
            const QRgb rgb = c.rgba();
            for (int x = std::max(0, b.x0); x < std::min(b.x1, scanline.width()); ++x)
                px[x] = rgb;
        }
        p.drawImage(QRect(kLabelWidth, top + 1, scanline.width(), kRowHeight - 2), scanline);
        // Job ids inside the bars wide enough to hold them.
        p.setFont(barFont);
        for (const auto& b : bars) {
            const int x0 = std::max(0, b.x0);
            const int w = std::min(b.x1, scanline.width()) - x0;
            if (w < kMinLabelledBar || b.job < 0 || static_cast<std::size_t>(b.job) >= m_jobIds.size())
                continue;
            const QString& id = m_jobIds[static_cast<std::size_t>(b.job)];
            if (barMetrics.horizontalAdvance(id) + 4 > w)
                continue;
            QColor c = barColour(b.job);
            if (m_highlight >= 0 && b.job != m_highlight)
                c = QColor::fromHsvF(c.hsvHueF(), c.hsvSaturationF() * 0.25f, 0.92f);
            p.setPen(textColourOn(c));
            p.drawText(QRect(kLabelWidth + x0 + 2, top, w - 4, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft, id);
        }
        p.setFont(font());
        if (m_highlight >= 0) {
            for (const auto& b : bars)
                if (b.job == m_highlight) {
                    p.setPen(QPen(Qt::black, 1));
                    p.drawRect(kLabelWidth + b.x0, top + 1, std::max(1, b.x1 - b.x0 - 1), kRowHeight - 3);
                }
        }
        // Label gutter (drawn over any bar overflow).
        p.fillRect(0, top, kLabelWidth, kRowHeight,
                   r.node >= 0 && r.node % 2 == 1 ? nodeShade : palette().base().color());
        p.setPen(palette().color(QPalette::WindowText));
        if (r.firstOfNode && r.node >= 0 && static_cast<std::size_t>(r.node) < m_rows.nodeNames.size())
            p.drawText(
                QRect(6, top, kLabelWidth - 60, kRowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                fm.elidedText(m_rows.nodeNames[static_cast<std::size_t>(r.node)], Qt::ElideRight, kLabelWidth - 62));
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(QRect(kLabelWidth - 56, top, 50, kRowHeight), Qt::AlignVCenter | Qt::AlignRight,
                   tr("GPU %1").arg(r.localGpu));
    }
    // Grid lines at the axis ticks, faint, over the plot.
    p.setPen(QColor(0, 0, 0, 28));
    const double first = std::ceil(m_geometry.viewStartS / step) * step;
    for (double t = first; t <= m_geometry.viewEndS; t += step) {
        const int x = kLabelWidth + static_cast<int>(std::lround(m_geometry.timeToX(t)));
        p.drawLine(x, kHeaderHeight, x, height);
    }
    p.setPen(palette().color(QPalette::Mid));
    p.drawLine(kLabelWidth - 1, kHeaderHeight, kLabelWidth - 1, height);
}

int GanttView::jobAt(const QPoint& pos) const
{
    if (!m_index.run() || pos.x() < kLabelWidth || pos.y() < kHeaderHeight)
        return -1;
    const int row = rowAtY(pos.y() - kHeaderHeight + verticalScrollBar()->value());
    if (row < 0)
        return -1;
    const double t = m_geometry.xToTime(pos.x() - kLabelWidth + 0.5);
    const int k = m_index.intervalAt(m_rows.rows[static_cast<std::size_t>(row)].gpu, t);
    return k < 0 ? -1 : m_index.run()->intervals[static_cast<std::size_t>(k)].job;
}

QString GanttView::tooltipFor(int interval) const
{
    const auto& run = *m_index.run();
    const auto& i = run.intervals[static_cast<std::size_t>(interval)];
    const auto& job = run.jobs[static_cast<std::size_t>(i.job)];
    // GPUs this job holds during this stretch: intervals of the job with the same start.
    int gpus = 0;
    for (int k : m_index.intervalsOfJob(i.job)) {
        const auto& o = run.intervals[static_cast<std::size_t>(k)];
        if (o.startS < i.endS && i.startS < o.endS)
            ++gpus;
    }
    // Where the source reports samples per second (goodput and model jobs): what this stretch made; and the batch
    // a batch-tuning policy chose.
    QString goodput;
    if (const double samples = meanSamplesPerS(run, i.job, i.startS, i.endS); samples > 0)
        goodput = tr("<br>%1 samples/s").arg(samples, 0, 'f', 1);
    if (const QString batch = chosenBatch(run, i.job); !batch.isEmpty())
        goodput += tr("<br>batch %1 (the policy's last choice)").arg(batch.toHtmlEscaped());
    return tr("<b>%1</b> (%2%3)<br>start %4, end %5 (%6)<br>%7 GPUs%8%9")
        .arg(QString::fromStdString(job.id).toHtmlEscaped(), QString::fromStdString(job.model).toHtmlEscaped(),
             job.user.empty() ? QString() : tr(", user %1").arg(QString::fromStdString(job.user).toHtmlEscaped()),
             formatDuration(i.startS), formatDuration(i.endS), formatDuration(i.endS - i.startS))
        .arg(gpus)
        .arg(job.gpuType.empty() ? QString() : tr(" of %1").arg(QString::fromStdString(job.gpuType)), goodput);
}

bool GanttView::viewportEvent(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && m_index.run()) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QPoint pos = help->pos();
        if (pos.x() >= kLabelWidth && pos.y() >= kAxisHeight && pos.y() < kHeaderHeight) {
            const double t = timeAtX(pos.x());
            auto it = std::upper_bound(m_queue.begin(), m_queue.end(), t,
                                       [](double v, const metrics::QueuePoint& q) { return v < q.timeS; });
            const int waiting = it == m_queue.begin() ? 0 : std::prev(it)->queued;
            QToolTip::showText(help->globalPos(),
                               tr("%n job(s) waiting at %1", nullptr, waiting).arg(formatDuration(t)), viewport());
            return true;
        }
        int k = -1;
        if (pos.x() >= kLabelWidth && pos.y() >= kHeaderHeight) {
            const int row = rowAtY(pos.y() - kHeaderHeight + verticalScrollBar()->value());
            if (row >= 0)
                k = m_index.intervalAt(m_rows.rows[static_cast<std::size_t>(row)].gpu,
                                       m_geometry.xToTime(pos.x() - kLabelWidth + 0.5));
        }
        if (k >= 0)
            QToolTip::showText(help->globalPos(), tooltipFor(k), viewport());
        else
            QToolTip::hideText();
        return true;
    }
    return QAbstractScrollArea::viewportEvent(event);
}

void GanttView::wheelEvent(QWheelEvent* event)
{
    if (!m_index.run())
        return;
    const QPoint delta = event->angleDelta();
    if (event->modifiers() & Qt::ShiftModifier) {
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y() / 2);
        return;
    }
    if (delta.y() == 0) {
        setGeometry(m_geometry.panned(-delta.x() / 2.0));
        return;
    }
    const double factor = std::pow(1.0015, delta.y());
    zoomAt(std::max(0.0, event->position().x() - kLabelWidth), factor);
    event->accept();
}

void GanttView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::LeftButton) {
        m_pressPos = m_lastDragPos = event->pos();
        m_dragging = false;
        m_measuring = (event->modifiers() & Qt::ShiftModifier) && m_index.run() && event->pos().x() >= kLabelWidth;
        if (m_measuring)
            m_measureFromS = m_measureToS = timeAtX(event->pos().x());
    }
}

void GanttView::mouseMoveEvent(QMouseEvent* event)
{
    if (!(event->buttons() & Qt::LeftButton))
        return;
    if (m_measuring) {
        m_measureToS = timeAtX(event->pos().x());
        viewport()->update();
        return;
    }
    if (!m_dragging && (event->pos() - m_pressPos).manhattanLength() > 4) {
        m_dragging = true;
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
    if (m_dragging) {
        const QPoint d = event->pos() - m_lastDragPos;
        m_lastDragPos = event->pos();
        verticalScrollBar()->setValue(verticalScrollBar()->value() - d.y());
        setGeometry(m_geometry.panned(-d.x()));
    }
}

void GanttView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    if (m_measuring) {
        m_measuring = false;
        // A Shift+click without a drag clears the measure.
        if ((event->pos() - m_pressPos).manhattanLength() <= 4)
            m_measureFromS = m_measureToS = std::nan("");
        viewport()->update();
        return;
    }
    if (m_dragging) {
        m_dragging = false;
        viewport()->unsetCursor();
        return;
    }
    if (m_index.run() && event->pos().x() >= kLabelWidth) {
        setCursorTime(timeAtX(event->pos().x()));
        emit cursorMoved(m_cursorS);
    }
    const int job = jobAt(event->pos());
    setHighlightedJob(job == m_highlight ? -1 : job);
    if (job >= 0)
        emit jobClicked(job);
}

void GanttView::mouseDoubleClickEvent(QMouseEvent*)
{
    zoomToFit();
}

void GanttView::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomAt(m_geometry.widthPx / 2.0, 1.5);
        return;
    case Qt::Key_Minus:
        zoomAt(m_geometry.widthPx / 2.0, 1 / 1.5);
        return;
    case Qt::Key_0:
        zoomToFit();
        return;
    case Qt::Key_Left:
        setGeometry(m_geometry.panned(-m_geometry.widthPx / 10.0));
        return;
    case Qt::Key_Right:
        setGeometry(m_geometry.panned(m_geometry.widthPx / 10.0));
        return;
    case Qt::Key_Escape:
        setHighlightedJob(-1);
        m_measureFromS = m_measureToS = std::nan("");
        viewport()->update();
        return;
    default:
        QAbstractScrollArea::keyPressEvent(event);
    }
}

} // namespace orrery::gui
