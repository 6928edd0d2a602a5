#pragma once

// What AlpaServe reports of a run (§6): SLO attainment, the latency distribution, per-group utilisation. The
// 99%-attainment thresholds (maximum rate, CV, minimum SLO scale or devices) are threshold_search.h's.

#include "serve/request_simulator.h"

#include <utility>
#include <vector>

namespace orrery::serve {

struct LatencySummary
{
    long long served = 0;
    double meanS = 0;
    double p50S = 0;
    double p90S = 0;
    double p99S = 0;
    double maxS = 0;
};

/** Over the served requests of a run simulated with recordLatencies (nearest-rank percentiles). */
LatencySummary summarizeLatencies(const SimResult& result);

/** `points` (latency, fraction of served requests at most that latency) pairs, evenly spaced in rank. */
std::vector<std::pair<double, double>> latencyCdf(const SimResult& result, int points);

} // namespace orrery::serve
