#pragma once
// Checks on Gavel-style allocations (x[j * types + t]: job j's time share on type t) for the allocation tests.

#include "sched/gavel_lp.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace orrery::test {

inline bool near(double got, double want, double tolerance = 1e-6)
{
    return std::abs(got - want) <= tolerance * std::max(1.0, std::abs(want));
}

inline double throughput(const sched::AllocationInput& in, const std::vector<double>& x, int j)
{
    double r = 0;
    for (int t = 0; t < in.types; ++t)
        r += in.rate[static_cast<std::size_t>(j * in.types + t)] * x[static_cast<std::size_t>(j * in.types + t)];
    return r;
}

// Gavel's base constraints hold: x in [0, 1], time per job <= 1, GPUs per type <= capacity (each to `tolerance`).
inline bool feasible(const sched::AllocationInput& in, const std::vector<double>& x, double tolerance = 1e-7)
{
    for (int j = 0; j < in.jobs; ++j) {
        double time = 0;
        for (int t = 0; t < in.types; ++t) {
            const double v = x[static_cast<std::size_t>(j * in.types + t)];
            if (v < -1e-9 || v > 1 + 1e-9)
                return false;
            time += v;
        }
        if (time > 1 + tolerance)
            return false;
    }
    for (int t = 0; t < in.types; ++t) {
        double used = 0;
        for (int j = 0; j < in.jobs; ++j)
            used +=
                in.demand[static_cast<std::size_t>(j * in.types + t)] * x[static_cast<std::size_t>(j * in.types + t)];
        if (used > in.capacity[static_cast<std::size_t>(t)] + tolerance)
            return false;
    }
    return true;
}

} // namespace orrery::test
