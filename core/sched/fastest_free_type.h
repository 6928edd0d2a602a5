#pragma once

#include "sim/view.h"

namespace orrery::sched {

/**
 * The GPU type on which job j runs fastest among those it may use that have room for its whole demand on
 * that type (PreparedWorkload::demandOn: a serverless job's best plan there) now; -1 when none has. Ties go
 * to the lower type index. The type choice of the heterogeneity-aware queue policies (sjf, edf).
 */
inline int fastestFreeType(const sim::View& view, int j)
{
    const auto& w = view.workload();
    int best = -1;
    for (int t = 0; t < w.typeCount(); ++t)
        if (w.allowed(j, t) && view.freeGpus(t) >= w.demandOn(j, t) && (best < 0 || w.rate(j, t) > w.rate(j, best)))
            best = t;
    return best;
}

} // namespace orrery::sched
