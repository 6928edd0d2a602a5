#pragma once

#include <QChartView>

#include <cmath>

namespace orrery::gui {

/**
 * A chart view a reader can look closer with: drag a rectangle (or, for time charts, a horizontal band) to
 * zoom into it, the wheel zooms around the pointer, the right button or a double-click goes back to the whole
 * chart. Optionally a vertical cursor line at an x value (in the bottom axis' units), which a click moves
 * (cursorClicked), so time charts share one time cursor with the Gantt and cluster-at-t.
 */
class ZoomableChartView : public QChartView
{
    Q_OBJECT
public:
    explicit ZoomableChartView(QChart* chart, QChartView::RubberBand band, QWidget* parent = nullptr);

    /** The cursor at x (bottom axis units); NaN hides it. */
    void setCursorX(double x);
    double cursorX() const { return m_cursorX; }
    /** Whether the chart shows less than all of its data (zoomed in). */
    bool isZoomed() const { return chart()->isZoomed(); }

signals:
    /** A click (not a drag) at x, in bottom axis units. */
    void cursorClicked(double x);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void drawForeground(QPainter* painter, const QRectF& rect) override;

private:
    double m_cursorX = std::nan("");
    QPoint m_pressPos;
};

} // namespace orrery::gui
