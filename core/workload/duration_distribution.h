#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace orrery::workload {

/** The built-in Philly run-time quantiles (p = k/200, k = 0..200), from alibaba/philly_runtime.csv. */
const std::vector<double>& phillyDurationQuantiles();

/**
 * An empirical distribution of job durations, sampled by inverse CDF with
 * linear interpolation between equally spaced quantiles (or between the sorted
 * samples of a CSV file). Sampling takes a uniform number in [0, 1), so the
 * caller owns the random stream and the result is identical on every platform.
 */
class DurationDistribution
{
public:
    /** `philly`: the built-in table. */
    static DurationDistribution philly();
    /** Sorted values at equally spaced probabilities 0..1 (at least two, non-decreasing, non-negative). */
    static DurationDistribution fromQuantiles(std::vector<double> quantiles);
    /**
     * Samples from a CSV file: the column named `runtime`, `duration`, `duration_s` (first found) or the only
     * column; values in seconds, >= 0. Errors read `FILE:LINE: column: problem`.
     */
    static DurationDistribution fromCsvText(std::string_view text, const std::string& fileLabel);
    static DurationDistribution fromCsvFile(const std::string& path);

    /** The duration at cumulative probability u in [0, 1]. */
    double quantile(double u) const;
    const std::vector<double>& points() const { return m_points; }

private:
    std::vector<double> m_points;
};

} // namespace orrery::workload
