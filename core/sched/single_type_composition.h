#pragma once

#include "sim/prepared_workload.h"
#include "sim/throughput.h"

namespace orrery::sched {

/**
 * The composition the engine (PreparedWorkload::allocationRate) would make of `gpus` GPUs of type t spanning
 * `nodes` nodes for job j, the locality factor aside: what the goodput policies (sia, optimus, pollux) hand the
 * throughput source to ask for a plan's rate or the best plan of a shape they are weighing.
 */
inline sim::Composition singleTypeComposition(const sim::PreparedWorkload& w, int j, int t, int gpus, int nodes)
{
    sim::Composition comp;
    const int used = w.usableGpus(j, gpus);
    const double packed = used > 0 ? w.rate(j, t, used) : 0;
    comp.parts.push_back({&w.type(t), t, gpus, packed});
    comp.gpus = gpus;
    comp.usedGpus = used;
    comp.nodes = nodes;
    comp.packedRate = packed;
    return comp;
}

} // namespace orrery::sched
