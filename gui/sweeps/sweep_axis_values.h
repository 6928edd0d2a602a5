#pragma once

#include "sweep/sweep_table.h"

#include <QString>
#include <QStringList>

#include <string>
#include <vector>

namespace orrery::gui {

/** An axis value as the tables show it: a string as it is, anything else as compact JSON; "-" when a point leaves
 *  the axis out (an explicit point that keeps the base scenario's value). */
QString sweepAxisText(const nlohmann::json& axes, const std::string& axis);

/** The distinct values an axis takes over a sweep's points, in the order charts show them. */
struct SweepAxisValues
{
    QStringList labels;          ///< sweepAxisText of each value
    std::vector<double> numbers; ///< the values, when `numeric`
    bool numeric = false;        ///< every point gives a number: ordered by value (else by first appearance)
    int indexOf(const QString& label) const { return static_cast<int>(labels.indexOf(label)); }
};
SweepAxisValues sweepAxisValues(const sweep::SweepTable& table, const std::string& axis);

} // namespace orrery::gui
