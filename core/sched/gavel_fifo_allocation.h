#pragma once

#include "sim/view.h"
#include "util/python_random.h"

#include <vector>

namespace orrery::sched {

/**
 * The allocation of Gavel's FIFO policies (policies/fifo.py), used under
 * gavel_compat: jobs in id order get X = 1 on one GPU type while that type
 * has room. `perf` (FIFO_Perf) rebuilds it at every recomputation and picks
 * the type where the job is fastest. The agnostic mode keeps allocations
 * between recomputations, hands a finished job's slot to the head of the
 * queue, and (as Gavel's code does) takes the type that sorts last by name
 * among those with room (V100 on Gavel's cluster); once that type is full its
 * count goes negative and every further job is still put on it. Its random
 * draw (`randrange` on CPython's generator, reproduced exactly) only decides
 * which type leaves the list of types with room.
 */
class GavelFifoAllocation
{
public:
    explicit GavelFifoAllocation(bool perf) : m_perf(perf) {}
    void allocate(const sim::View& view, const std::vector<int>& active, std::vector<double>& x);

private:
    bool m_perf;
    std::vector<int> m_type;      // per job, -1 = none
    std::vector<int> m_allocated; // jobs with a type, ascending
    util::PythonRandom m_rng;     ///< Gavel's `random.Random(seed)`, draw for draw
    bool m_seeded = false;
};

} // namespace orrery::sched
