#pragma once

#include "sim/throughput.h"

#include <memory>

namespace orrery::io {
struct Scenario;
}

namespace orrery::sim {

/**
 * Serverless jobs (model + training config). A baseline policy sees such a
 * job as a request for one feasible plan per GPU type: demandOn() a type is
 * the GPU count of the top-ranked plan of estimate::rankPlans on that type
 * alone (its GPUs in the cluster, its largest node and links), 0 when none
 * fits; demand() is the count of the top-ranked plan over all the types.
 * Both keep to the job's elastic range when it declares one.
 * rate() on `count` GPUs of a type is 1 / iteration time from
 * estimate::estimateThroughput with the parallelism of the best plan of that
 * count on that type, 0 when no plan of that count fits in that type's
 * memory. A count no single-type plan has (a policy mixing types, like Frenzy's HAS, may give
 * one) gets the best layout of that count that fits the type's memory, from the layouts over all
 * types (estimate::marpPlans). Memory is the itemised (Full) model: the simulator's ground truth.
 * Work is the job's iterations. Plans are cached per (model, config). model() returns the job's
 * model, for policies that plan serverless jobs themselves.
 */
std::shared_ptr<const ThroughputSource> makeEstimatorThroughput(const io::Scenario& scenario);

} // namespace orrery::sim
