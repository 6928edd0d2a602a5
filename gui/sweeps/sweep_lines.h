#pragma once

#include "sweep/sweep_table.h"
#include "sweeps/sweep_axis_values.h"
#include "sweeps/sweep_metric.h"

#include <QString>

#include <string>
#include <vector>

namespace orrery::gui {

/** One policy's line: at each value of the axis, the mean of the metric over that policy's points there. */
struct SweepLine
{
    QString policy;
    std::vector<double> x;    ///< the axis value (numeric axes) or its index among the axis's values
    std::vector<double> mean; ///< raw metric values (seconds, 0..1, USD)
    std::vector<int> count;   ///< points averaged
};

struct SweepLines
{
    SweepAxisValues axis;
    std::vector<SweepLine> lines; ///< in order of each policy's first point
};

/** A metric along one axis, one line per policy (the points' canonical policy labels), the other axes averaged. */
SweepLines sweepLines(const sweep::SweepTable& table, const std::string& axis, SweepMetric metric);

} // namespace orrery::gui
