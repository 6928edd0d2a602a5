#include "serve/clockwork.h"

#include "io/error.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace orrery::serve {

ClockworkResult clockworkPlusPlus(ProfileCache& cache, const Workload& workload, double windowS,
                                  const SearchOptions& options, const util::Progress* progress, bool recordLatencies)
{
    if (!(windowS > 0))
        throw Error("", "window", fmt::format("expected a positive window length, got {}", windowS));
    ClockworkResult result;
    const double segment = 2 * windowS;
    const int segments = std::max(1, static_cast<int>(std::ceil(workload.durationS / segment)));
    // Only the stop token goes into each segment's search, so that Cancel ends it within one simulation; its
    // progress is this loop's.
    util::Progress stopOnly;
    if (progress)
        stopOnly.stop = progress->stop;
    for (int k = 0; k < segments; ++k) {
        const double begin = k * segment;
        // The last segment also takes any request drawn past the nominal duration.
        const double end = k + 1 == segments ? std::numeric_limits<double>::infinity() : begin + segment;
        Workload part = workload.slice(begin, end);
        part.durationS = std::min(segment, std::max(0.0, workload.durationS - begin));
        const SearchResult placed = selectiveReplication(cache, part, options, progress ? &stopOnly : nullptr);
        SimResult sim = evaluatePlacement(cache, placed.placement, part, recordLatencies);
        result.placements.push_back(placed.placement);
        result.requests += sim.requests;
        result.served += sim.served;
        result.simulations += placed.simulations + 1;
        result.segments.push_back(std::move(sim));
        if (progress) {
            if (progress->stopRequested())
                throw Cancelled();
            (*progress)(double(k + 1) / segments);
        }
    }
    return result;
}

} // namespace orrery::serve
