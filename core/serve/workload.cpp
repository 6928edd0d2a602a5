#include "serve/workload.h"

#include <algorithm>

namespace orrery::serve {

std::vector<long long> Workload::countsPerModel() const
{
    std::vector<long long> counts(static_cast<std::size_t>(models), 0);
    for (const Request& r : requests)
        ++counts[static_cast<std::size_t>(r.model)];
    return counts;
}

Workload Workload::slice(double beginS, double endS) const
{
    Workload w;
    w.models = models;
    w.durationS = std::max(0.0, std::min(endS, durationS) - beginS);
    const auto lo = std::lower_bound(requests.begin(), requests.end(), beginS,
                                     [](const Request& r, double t) { return r.arrivalS < t; });
    const auto hi =
        std::lower_bound(lo, requests.end(), endS, [](const Request& r, double t) { return r.arrivalS < t; });
    w.requests.assign(lo, hi);
    return w;
}

Workload Workload::only(const std::vector<bool>& keep) const
{
    Workload w;
    w.models = models;
    w.durationS = durationS;
    for (const Request& r : requests)
        if (keep[static_cast<std::size_t>(r.model)])
            w.requests.push_back(r);
    return w;
}

} // namespace orrery::serve
