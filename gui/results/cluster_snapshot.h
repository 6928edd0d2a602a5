#pragma once

#include "sim/run_result.h"
#include "timeline/timeline_index.h"

#include <vector>

namespace orrery::gui {

/** Who runs where at one instant of a run, and who waits. */
struct ClusterSnapshot
{
    double timeS = 0;
    std::vector<int> jobOnGpu; ///< per GPU: job index or -1 when idle
    std::vector<int> running;  ///< job indices, by first GPU
    std::vector<int> queued;   ///< arrived, not finished, holding no GPU; by arrival

    static ClusterSnapshot at(const TimelineIndex& index, double timeS);
    int busyGpus() const;
};

} // namespace orrery::gui
