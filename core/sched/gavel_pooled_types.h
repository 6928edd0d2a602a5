#pragma once

#include "sched/gavel_lp.h"

#include <optional>
#include <vector>

namespace orrery::sched {

/**
 * Gavel's allocation LP when its GPU types are alike for every job: each job runs at one rate on every type and
 * takes the same number of GPUs on each (the agnostic policies' reference rates on Gavel's traces). Then only a
 * job's total time share s_j = sum_t x[j][t] matters, and the per-type capacities act as one pool: shares with
 * s_j <= 1 and sum_j demand_j s_j <= sum_t capacity_t can always be laid out type by type (fill each type's GPUs
 * in turn, a job split between consecutive types), and no others can.
 */
struct PooledTypes
{
    std::vector<double> rate;   ///< per job
    std::vector<double> demand; ///< per job
    double capacity = 0;        ///< all types' GPUs
};

/** The pooled form of `in`, or nothing when some job's rate or demand differs between types (or is 0). */
std::optional<PooledTypes> pooledTypes(const AllocationInput& in);

/**
 * The largest u such that every job j can get throughput u floor_j at once (floors <= 0 ask nothing):
 * min(min_j rate_j / floor_j, capacity / sum_j demand_j floor_j / rate_j); +infinity when nothing is asked.
 * The floors are feasible exactly when this is >= 1.
 */
double pooledMaxUniformScale(const PooledTypes& pool, const std::vector<double>& floor);

} // namespace orrery::sched
