#pragma once

#include "provision/layer_profile.h"
#include "provision/placement.h"
#include "provision/provision_types.h"

#include <atomic>

namespace orrery::provision {

/** Sia⁺: 2^n GPUs of a single type, every (d, k) with d k = 2^n, even layers; the cheapest meeting the SLO. */
ProvisionResult provisionSiaPlus(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                                 const ProvisionOptions& options, const std::atomic<bool>* cancel = nullptr);

/** The best stage order and layer split of a multiset under the 1F1B estimator (exhaustive, bounded). */
Placement exhaustivePlace(const PipelineModel& model, const std::vector<int>& types, double cutoffS = INFINITY);

/**
 * Worst-case size of the Optimal search once Espresso's plan bounds it: the GPU multisets whose
 * lower-bound cost is below that plan's (or, when Espresso meets no SLO, whose lower-bound time is
 * below its fastest plan's) and their distinct stage orders.
 */
struct OptimalEstimate
{
    long long multisets = 0;  ///< every multiset of every (d, k) within the quotas
    long long held = 0;       ///< those whose stages can hold the model at all
    long long candidates = 0; ///< those the bounds do not rule out against Espresso's plan
    double orders = 0;        ///< distinct stage orders of the candidates
    double seconds = 0;       ///< orders x a conservative per-order cost
};
/** Runs Espresso for the seed, then counts what its plan leaves to search. */
OptimalEstimate estimateOptimal(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source);

/**
 * Optimal: the cheapest plan meeting the SLO over every (d, k) of the BP
 * boundaries, every GPU multiset within quota, every distinct stage order
 * and every layer split (1 .. l_m layers per stage), under the same 1F1B
 * estimator. Exact: Espresso's plan seeds the incumbent and branches are cut
 * only by valid lower bounds (PipelineBounds). Throws orrery::Error before
 * starting when estimateOptimal() exceeds options.optimalBudgetS.
 */
ProvisionResult provisionOptimal(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                                 const ProvisionOptions& options, const std::atomic<bool>* cancel = nullptr);

} // namespace orrery::provision
