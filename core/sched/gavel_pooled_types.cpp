#include "sched/gavel_pooled_types.h"

#include <algorithm>
#include <limits>

namespace orrery::sched {

std::optional<PooledTypes> pooledTypes(const AllocationInput& in)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    PooledTypes pool;
    pool.rate.resize(J);
    pool.demand.resize(J);
    for (std::size_t j = 0; j < J; ++j) {
        const double rate = in.rate[j * T], demand = in.demand[j * T];
        if (!(rate > 0) || !(demand > 0))
            return std::nullopt;
        for (std::size_t t = 1; t < T; ++t)
            if (in.rate[j * T + t] != rate || in.demand[j * T + t] != demand)
                return std::nullopt;
        pool.rate[j] = rate;
        pool.demand[j] = demand;
    }
    for (const int c : in.capacity)
        pool.capacity += c;
    return pool;
}

double pooledMaxUniformScale(const PooledTypes& pool, const std::vector<double>& floor)
{
    double u = std::numeric_limits<double>::infinity();
    double gpuTime = 0; // sum_j demand_j floor_j / rate_j: the GPUs the floors take at u = 1
    for (std::size_t j = 0; j < pool.rate.size(); ++j) {
        if (!(floor[j] > 0))
            continue;
        u = std::min(u, pool.rate[j] / floor[j]);
        gpuTime += pool.demand[j] * floor[j] / pool.rate[j];
    }
    if (gpuTime > 0)
        u = std::min(u, pool.capacity / gpuTime);
    return u;
}

} // namespace orrery::sched
