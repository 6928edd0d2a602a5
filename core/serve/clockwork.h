#pragma once

// Clockwork++ (§6.2's strongest baseline): every two windows, re-place the models with Selective Replication
// for exactly the traffic of those two windows (an oracle), at zero swap cost: an upper bound on Clockwork.

#include "serve/placement_search.h"

namespace orrery::serve {

struct ClockworkResult
{
    std::vector<Placement> placements; ///< one per segment of two windows
    std::vector<SimResult> segments;   ///< each segment's simulation on its placement, in order
    long long requests = 0;
    long long served = 0;
    int simulations = 0;
    double attainment() const { return requests ? double(served) / double(requests) : 1.0; }
};

/**
 * Segments [2kW, 2(k+1)W) are placed and simulated independently: a segment starts with empty queues (no
 * request carries across a re-placement, which can only favour the baseline). Throws orrery::Error on windowS <= 0.
 * With `recordLatencies`, each segment's SimResult has its per-request latencies (request indices are the
 * segment's own, in arrival order).
 */
ClockworkResult clockworkPlusPlus(ProfileCache& cache, const Workload& workload, double windowS,
                                  const SearchOptions& options = {}, const util::Progress* progress = nullptr,
                                  bool recordLatencies = false);

} // namespace orrery::serve
