#include "serve/serving_metrics.h"

#include <algorithm>
#include <cmath>

namespace orrery::serve {

namespace {
std::vector<double> servedLatencies(const SimResult& result)
{
    std::vector<double> v;
    for (double l : result.latencyS)
        if (!std::isnan(l))
            v.push_back(l);
    std::sort(v.begin(), v.end());
    return v;
}
double nearestRank(const std::vector<double>& sorted, double q)
{
    const auto n = sorted.size();
    const auto rank = static_cast<std::size_t>(std::ceil(q * double(n)));
    return sorted[std::min(n - 1, rank == 0 ? 0 : rank - 1)];
}
} // namespace

LatencySummary summarizeLatencies(const SimResult& result)
{
    const std::vector<double> v = servedLatencies(result);
    LatencySummary s;
    s.served = static_cast<long long>(v.size());
    if (v.empty())
        return s;
    double sum = 0;
    for (double x : v)
        sum += x;
    s.meanS = sum / double(v.size());
    s.p50S = nearestRank(v, 0.50);
    s.p90S = nearestRank(v, 0.90);
    s.p99S = nearestRank(v, 0.99);
    s.maxS = v.back();
    return s;
}

std::vector<std::pair<double, double>> latencyCdf(const SimResult& result, int points)
{
    const std::vector<double> v = servedLatencies(result);
    std::vector<std::pair<double, double>> cdf;
    if (v.empty() || points < 1)
        return cdf;
    for (int i = 1; i <= points; ++i) {
        const double q = double(i) / points;
        cdf.emplace_back(nearestRank(v, q), q);
    }
    return cdf;
}

} // namespace orrery::serve
