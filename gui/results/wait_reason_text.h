#pragma once

#include "metrics/wait_reasons.h"
#include "results/cluster_snapshot.h"

#include <QString>

namespace orrery::gui {

/**
 * Why queued job `job` waits at the snapshot's time, in words: the policy's recorded reason (if it gave one)
 * and what the cluster had free then, per GPU type ("free now: 2 x v100-16gb", or "no GPU free now"). The free
 * counts are read from the snapshot, not recorded, so a reason never goes stale with them.
 */
QString waitReasonText(const sim::RunResult& run, const metrics::WaitReasons& reasons, const ClusterSnapshot& snapshot,
                       int job);

/** Idle GPUs of the snapshot per type of `run.gpuTypes`, in that order. */
std::vector<int> freeGpusByType(const sim::RunResult& run, const ClusterSnapshot& snapshot);

} // namespace orrery::gui
