#pragma once

#include "provision/layer_profile.h"
#include "provision/placement.h"
#include "provision/provision_types.h"

#include <atomic>
#include <utility>
#include <vector>

namespace orrery::provision {

/** 2^0 .. 2^floor(log2 x): the DP sizes BP allows for x GPUs (before the micro-batch check). */
std::vector<int> powerOfTwoSizes(int x);

/** Total quota x = sum of Lim_t. */
int totalQuota(const std::vector<PoolGpu>& pool);

/**
 * The pipeline sizes to search for one DP size, [first, second] inclusive
 * (empty when first > second). With BP: from the stages needed to hold the
 * model on the largest-memory type to those needed on the smallest, capped by
 * the layers and the quota; without BP: 1 .. min(L, stages the quota allows).
 */
std::pair<int, int> pipelineRange(const PipelineModel& model, bool boundaryPruning);

/** Stages of d GPUs each that type t's quota allows: floor(Lim_t / d). */
int stageQuota(const PoolGpu& gpu, int dp);

/**
 * Algorithm 1: the cost-tree search over GPU multisets for every (d, k), best
 * first by Eq. (4), with BP, CP and TCP as switched in `options`; each
 * complete plan is placed by `placer`. Throws Cancelled when `cancel` is set.
 * The result is the cheapest plan whose z * T_iter meets the SLO; when none
 * does, the fastest plan found (feasible = false).
 */
ProvisionResult allocate(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                         const ProvisionOptions& options, const Placer& placer,
                         const std::atomic<bool>* cancel = nullptr);

} // namespace orrery::provision
