#pragma once

#include "sweeps/sweep_heat_map_grid.h"

#include <QWidget>

namespace orrery::gui {

/**
 * Paints a HeatMapGrid: one cell per pair of axis values coloured by its mean (viridis, low to high), the mean and
 * the number of points averaged written in it, the axes' values along the sides and a colour bar with round ticks.
 */
class SweepHeatMapView : public QWidget
{
    Q_OBJECT
public:
    explicit SweepHeatMapView(QWidget* parent = nullptr);
    void setGrid(HeatMapGrid grid, SweepMetric metric, const QString& xName, const QString& yName);
    const HeatMapGrid& grid() const { return m_grid; }
    QSize minimumSizeHint() const override { return {320, 220}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    HeatMapGrid m_grid;
    SweepMetric m_metric = SweepMetric::MeanJct;
    QString m_xName, m_yName;
};

/** The colour of t in [0, 1] on the viridis scale. */
QColor viridis(double t);

} // namespace orrery::gui
