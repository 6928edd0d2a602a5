#pragma once

#include "provision/layer_profile.h"
#include "provision/placement.h"
#include "provision/provision_types.h"

#include <atomic>

namespace orrery::provision {

/** Sia⁺: 2^n GPUs of a single type, every (d, k) with d k = 2^n, even layers; the cheapest meeting the SLO. */
ProvisionResult provisionSiaPlus(const ProvisionJob& job, const std::vector<PoolGpu>& pool,
                                 const ProfileSource& source, const ProvisionOptions& options,
                                 const std::atomic<bool>* cancel = nullptr);

/** The best stage order and layer split of a multiset under the 1F1B estimator (exhaustive, bounded). */
Placement exhaustivePlace(const PipelineModel& model, const std::vector<int>& types, double cutoffS = INFINITY);

/** Worst-case size of the Optimal search: GPU orders (distinct stage permutations) it may visit. */
struct OptimalEstimate
{
    double orders = 0;
    double seconds = 0; ///< orders x a conservative per-order cost
};
OptimalEstimate estimateOptimal(const ProvisionJob& job, const std::vector<PoolGpu>& pool,
                                const ProfileSource& source);

/**
 * Optimal: every (d, k) of the BP boundaries, every GPU multiset within quota,
 * every distinct stage order and every layer split, under the same 1F1B
 * estimator. Exact: branches are cut only by valid lower bounds. Throws
 * orrery::Error before starting when estimateOptimal() exceeds options.optimalBudgetS.
 */
ProvisionResult provisionOptimal(const ProvisionJob& job, const std::vector<PoolGpu>& pool,
                                 const ProfileSource& source, const ProvisionOptions& options,
                                 const std::atomic<bool>* cancel = nullptr);

} // namespace orrery::provision
