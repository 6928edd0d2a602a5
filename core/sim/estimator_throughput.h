#pragma once

#include "sim/throughput.h"

#include <memory>

namespace orrery::io {
struct Scenario;
}

namespace orrery::sim {

/**
 * Serverless jobs (model + training config). A baseline policy sees such a
 * job as a request for its best feasible plan: demand() is the GPU count of
 * the top-ranked plan of estimate::rankPlans over the cluster's GPU types.
 * rate() on `count` GPUs of a type is 1 / iteration time from
 * estimate::estimateThroughput with the parallelism of the best plan of that
 * count on that type, 0 when no plan of that count fits in that type's
 * memory. Work is the job's iterations. Plans are cached per (model, config).
 */
std::shared_ptr<const ThroughputSource> makeEstimatorThroughput(const io::Scenario& scenario);

} // namespace orrery::sim
