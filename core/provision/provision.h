#pragma once

#include "provision/layer_profile.h"
#include "provision/provision_types.h"

#include <atomic>
#include <vector>

namespace orrery::provision {

/**
 * The provisioning entry point: the cheapest GPU allocation and stage
 * placement that trains `job` within its SLO, by `options.strategy`.
 *
 * Pure (no globals, no I/O), so a GUI may call it from a worker thread; it
 * polls `cancel` and throws orrery::Cancelled when set. With
 * options.recordEvaluated the result lists every complete plan evaluated
 * (cost, training time) for a cost-vs-time scatter. Bad input (no GPU types,
 * negative quotas or prices, non-positive batch, iterations or bandwidth)
 * throws orrery::Error.
 */
ProvisionResult provisionGpus(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                              const ProvisionOptions& options = {}, const std::atomic<bool>* cancel = nullptr);

/** Checks a job and pool; throws orrery::Error naming the field. */
void validate(const ProvisionJob& job, const std::vector<PoolGpu>& pool);

} // namespace orrery::provision
