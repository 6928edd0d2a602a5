#include "sweeps/sweep_axis_values.h"

#include <algorithm>
#include <numeric>

namespace orrery::gui {

QString sweepAxisText(const nlohmann::json& axes, const std::string& axis)
{
    if (!axes.is_object() || !axes.contains(axis))
        return QStringLiteral("-");
    const auto& v = axes.at(axis);
    return QString::fromStdString(v.is_string() ? v.get<std::string>() : v.dump());
}

SweepAxisValues sweepAxisValues(const sweep::SweepTable& table, const std::string& axis)
{
    SweepAxisValues out;
    bool numeric = !table.points.empty();
    std::vector<double> numbers;
    for (const auto& p : table.points) {
        const QString label = sweepAxisText(p.axes, axis);
        if (out.labels.contains(label))
            continue;
        out.labels << label;
        const bool isNumber = p.axes.contains(axis) && p.axes.at(axis).is_number();
        numeric = numeric && isNumber;
        numbers.push_back(isNumber ? p.axes.at(axis).get<double>() : 0.0);
    }
    out.numeric = numeric;
    if (numeric) {
        // Numbers in order of value, so that lines run left to right and heat-map rows go up in order.
        std::vector<std::size_t> order(numbers.size());
        std::iota(order.begin(), order.end(), std::size_t{0});
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return numbers[a] < numbers[b]; });
        QStringList labels;
        for (const std::size_t i : order) {
            labels << out.labels[static_cast<qsizetype>(i)];
            out.numbers.push_back(numbers[i]);
        }
        out.labels = labels;
    }
    return out;
}

} // namespace orrery::gui
