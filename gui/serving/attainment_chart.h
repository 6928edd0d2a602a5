#pragma once

#include "serve/attainment_curves.h"

#include <QWidget>

class QChartView;
class QLineSeries;

namespace orrery::gui {

/**
 * SLO attainment (%) along one input (rate, CV or SLO scale), one line per placement method with its points marked:
 * AlpaServe against Selective Replication and Clockwork++, as AlpaServe's Figures 11-12 draw them. A dashed line
 * marks the 99% goal.
 */
class AttainmentChart : public QWidget
{
    Q_OBJECT
public:
    explicit AttainmentChart(QWidget* parent = nullptr);
    void setCurves(const serve::AttainmentCurves& curves);
    void clear();
    QChartView* chartView() const { return m_view; }
    /** The method lines (the 99% line not counted). */
    int lineCount() const;
    /** The line of `method` (its title), or nullptr. */
    QLineSeries* line(const QString& methodTitle) const;

private:
    QChartView* m_view;
};

} // namespace orrery::gui
