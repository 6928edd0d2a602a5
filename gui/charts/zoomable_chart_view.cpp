#include "charts/zoomable_chart_view.h"

#include <QAbstractSeries>
#include <QMouseEvent>
#include <QWheelEvent>

namespace orrery::gui {

ZoomableChartView::ZoomableChartView(QChart* chart, QChartView::RubberBand band, QWidget* parent)
    : QChartView(chart, parent)
{
    setRubberBand(band);
    setRenderHint(QPainter::Antialiasing);
    setToolTip(tr("Drag to zoom in, wheel to zoom around the pointer, right-click or double-click for the whole "
                  "chart"));
}

void ZoomableChartView::setCursorX(double x)
{
    if (x == m_cursorX || (std::isnan(x) && std::isnan(m_cursorX)))
        return;
    m_cursorX = x;
    // The cursor is drawn in the foreground layer, which Qt caches with the background.
    resetCachedContent();
    viewport()->update();
}

void ZoomableChartView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps == 0 || chart()->series().isEmpty())
        return;
    const double factor = std::pow(1.25, steps);
    // Zoom into a rectangle around the pointer: what is under it stays under it.
    const QRectF area = chart()->plotArea();
    const QPointF at = chart()->mapFromScene(mapToScene(event->position().toPoint()));
    const bool horizontalOnly = rubberBand() == QChartView::HorizontalRubberBand;
    const double w = area.width() / factor;
    const double h = horizontalOnly ? area.height() : area.height() / factor;
    const double left = at.x() - (at.x() - area.left()) / factor;
    const double top = horizontalOnly ? area.top() : at.y() - (at.y() - area.top()) / factor;
    chart()->zoomIn(QRectF(left, top, w, h));
    event->accept();
}

void ZoomableChartView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() == Qt::RightButton) {
        chart()->zoomReset();
        event->accept();
        return;
    }
    m_pressPos = event->pos();
    QChartView::mousePressEvent(event);
}

void ZoomableChartView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() == Qt::RightButton) {
        event->accept(); // QChartView would zoom out one step: the press already reset
        return;
    }
    const bool click = (event->pos() - m_pressPos).manhattanLength() <= 4;
    QChartView::mouseReleaseEvent(event);
    if (click && event->button() == Qt::LeftButton && !chart()->series().isEmpty()) {
        const QPointF value = chart()->mapToValue(chart()->mapFromScene(mapToScene(event->pos())));
        emit cursorClicked(value.x());
    }
}

void ZoomableChartView::mouseDoubleClickEvent(QMouseEvent* event)
{
    chart()->zoomReset();
    event->accept();
}

void ZoomableChartView::drawForeground(QPainter* painter, const QRectF& rect)
{
    QChartView::drawForeground(painter, rect);
    if (std::isnan(m_cursorX) || chart()->series().isEmpty())
        return;
    const QRectF area = chart()->plotArea();
    const QPointF p = chart()->mapToPosition(QPointF(m_cursorX, 0), chart()->series().front());
    if (p.x() < area.left() || p.x() > area.right())
        return;
    painter->save();
    // Dashed: a chart's own series may be red too.
    QPen pen(QColor(200, 30, 30), 1.5, Qt::DashLine);
    painter->setPen(pen);
    const QPointF top = chart()->mapToScene(QPointF(p.x(), area.top()));
    const QPointF bottom = chart()->mapToScene(QPointF(p.x(), area.bottom()));
    painter->drawLine(top, bottom);
    painter->restore();
}

} // namespace orrery::gui
