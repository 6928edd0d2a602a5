#pragma once

// The batching runtime of AlpaServe's §6.5 (docs/serving.md, "Batching"): a request runs at once on a group that is
// free; otherwise it waits in its model's queue, and a group that frees up takes the model whose oldest request has
// waited longest and runs as many of its queued requests in one batch as their SLOs allow.

#include "serve/request_simulator.h"

#include <vector>

namespace orrery::serve {

/** A model's replica: the group and the index of the model in that group's list. */
struct HostSlot
{
    int group = 0;
    int slot = 0;
};

/**
 * Simulates `workload` on `groups` under the batching runtime with batches of up to options.maxBatch, filling `r`
 * (its per-model and per-group vectors already sized by the caller, simulateRequests, which checked the inputs).
 * `hosts[m]` lists model m's replicas.
 */
void simulateBatched(const std::vector<SimGroup>& groups, const Workload& workload, const SimOptions& options,
                     const std::vector<std::vector<HostSlot>>& hosts, SimResult& r);

} // namespace orrery::serve
