#include "workload/duration_distribution.h"

#include "io/error.h"
#include "io/text_table.h"
#include "util/text.h"

#include <algorithm>
#include <cmath>

namespace orrery::workload {

DurationDistribution DurationDistribution::philly()
{
    return fromQuantiles(phillyDurationQuantiles());
}

DurationDistribution DurationDistribution::fromQuantiles(std::vector<double> quantiles)
{
    if (quantiles.size() < 2)
        throw Error("an empirical distribution needs at least two points");
    for (std::size_t i = 0; i < quantiles.size(); ++i)
        if (!(quantiles[i] >= 0) || (i && quantiles[i] < quantiles[i - 1]))
            throw Error("empirical quantiles must be non-negative and non-decreasing");
    DurationDistribution d;
    d.m_points = std::move(quantiles);
    return d;
}

DurationDistribution DurationDistribution::fromCsvText(std::string_view text, const std::string& fileLabel)
{
    const io::TextTable t = io::TextTable::parse(text, fileLabel);
    int c = t.anyColumn({"runtime", "duration", "duration_s"});
    if (c < 0 && t.header().size() == 1)
        c = 0;
    if (c < 0)
        throw Error(fileLabel, std::to_string(t.headerLine()) + ": header",
                    "expected a column named runtime, duration or duration_s (or a single column)");
    const std::string name = t.header()[static_cast<std::size_t>(c)];
    std::vector<double> values;
    values.reserve(t.records().size());
    for (const auto& r : t.records())
        values.push_back(io::FieldParser(fileLabel, r.line).nonNegativeNumber(name, t.field(r, c)));
    if (values.size() < 2)
        throw Error(fileLabel, "", "expected at least two durations");
    std::sort(values.begin(), values.end());
    return fromQuantiles(std::move(values));
}

DurationDistribution DurationDistribution::fromCsvFile(const std::string& path)
{
    return fromCsvText(util::readFile(path), util::baseName(path));
}

double DurationDistribution::quantile(double u) const
{
    const double h = std::clamp(u, 0.0, 1.0) * static_cast<double>(m_points.size() - 1);
    const auto i = static_cast<std::size_t>(h);
    if (i + 1 >= m_points.size())
        return m_points.back();
    return m_points[i] + (m_points[i + 1] - m_points[i]) * (h - static_cast<double>(i));
}

} // namespace orrery::workload
