#include "sweeps/sweep_lines.h"

#include <map>

namespace orrery::gui {

SweepLines sweepLines(const sweep::SweepTable& table, const std::string& axis, SweepMetric metric)
{
    SweepLines out;
    out.axis = sweepAxisValues(table, axis);
    const auto n = static_cast<std::size_t>(out.axis.labels.size());
    std::vector<QString> policies;
    std::map<QString, std::pair<std::vector<double>, std::vector<int>>> sums;
    for (const auto& p : table.points) {
        const QString policy = QString::fromStdString(p.row.policy);
        auto [it, fresh] = sums.try_emplace(policy, std::vector<double>(n, 0.0), std::vector<int>(n, 0));
        if (fresh)
            policies.push_back(policy);
        const auto v = sweepMetricValue(p, metric);
        const int i = out.axis.indexOf(sweepAxisText(p.axes, axis));
        if (!v || i < 0)
            continue;
        it->second.first[std::size_t(i)] += *v;
        ++it->second.second[std::size_t(i)];
    }
    for (const auto& policy : policies) {
        const auto& [sum, count] = sums[policy];
        SweepLine line;
        line.policy = policy;
        for (std::size_t i = 0; i < n; ++i) {
            if (count[i] == 0)
                continue;
            line.x.push_back(out.axis.numeric ? out.axis.numbers[i] : static_cast<double>(i));
            line.mean.push_back(sum[i] / count[i]);
            line.count.push_back(count[i]);
        }
        if (!line.x.empty())
            out.lines.push_back(std::move(line));
    }
    return out;
}

} // namespace orrery::gui
