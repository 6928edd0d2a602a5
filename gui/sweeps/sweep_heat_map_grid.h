#pragma once

#include "sweep/sweep_table.h"
#include "sweeps/sweep_metric.h"

#include <QStringList>

#include <string>
#include <vector>

namespace orrery::gui {

/** One cell of a heat map: the mean of a metric over the points with that pair of axis values. */
struct HeatMapCell
{
    double mean = 0; ///< raw (seconds, 0..1, USD); meaningless when count is 0
    int count = 0;   ///< points averaged (those with the metric defined)
};

/**
 * A metric over two axes: cells[y][x] averages every point with the x axis's x-th value and the y axis's y-th
 * value, whatever the other axes say (the other axes are averaged over; the count says over how many points).
 * Values are ordered as sweepAxisValues orders them.
 */
struct HeatMapGrid
{
    QStringList xLabels, yLabels;
    std::vector<std::vector<HeatMapCell>> cells; ///< [y][x]
    double lo = 0, hi = 0;                       ///< range of the cell means (cells with points only)
    bool any = false;                            ///< some cell has a point
};
HeatMapGrid heatMapGrid(const sweep::SweepTable& table, const std::string& xAxis, const std::string& yAxis,
                        SweepMetric metric);

} // namespace orrery::gui
