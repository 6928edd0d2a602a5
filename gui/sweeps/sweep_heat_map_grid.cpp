#include "sweeps/sweep_heat_map_grid.h"

#include "sweeps/sweep_axis_values.h"

#include <algorithm>

namespace orrery::gui {

HeatMapGrid heatMapGrid(const sweep::SweepTable& table, const std::string& xAxis, const std::string& yAxis,
                        SweepMetric metric)
{
    HeatMapGrid g;
    const auto xs = sweepAxisValues(table, xAxis);
    const auto ys = sweepAxisValues(table, yAxis);
    g.xLabels = xs.labels;
    g.yLabels = ys.labels;
    g.cells.assign(static_cast<std::size_t>(ys.labels.size()),
                   std::vector<HeatMapCell>(static_cast<std::size_t>(xs.labels.size())));
    std::vector<std::vector<double>> sums(g.cells.size(), std::vector<double>(g.xLabels.size(), 0.0));
    for (const auto& p : table.points) {
        const auto v = sweepMetricValue(p, metric);
        if (!v)
            continue;
        const int x = xs.indexOf(sweepAxisText(p.axes, xAxis));
        const int y = ys.indexOf(sweepAxisText(p.axes, yAxis));
        if (x < 0 || y < 0)
            continue;
        sums[std::size_t(y)][std::size_t(x)] += *v;
        ++g.cells[std::size_t(y)][std::size_t(x)].count;
    }
    for (std::size_t y = 0; y < g.cells.size(); ++y)
        for (std::size_t x = 0; x < g.cells[y].size(); ++x) {
            auto& c = g.cells[y][x];
            if (c.count == 0)
                continue;
            c.mean = sums[y][x] / c.count;
            g.lo = g.any ? std::min(g.lo, c.mean) : c.mean;
            g.hi = g.any ? std::max(g.hi, c.mean) : c.mean;
            g.any = true;
        }
    return g;
}

} // namespace orrery::gui
