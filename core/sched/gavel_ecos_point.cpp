#include "sched/gavel_lp.h"

#include "opt/homogeneous_lp.h"
#include "sched/allocation_operator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace orrery::sched {

std::vector<double> ecosFeasiblePoint(const AllocationInput& in, const std::vector<double>& floor)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    if (floor.size() != J || in.rate.size() != J * T || in.demand.size() != J * T || in.capacity.size() != T)
        throw std::invalid_argument("ecosFeasiblePoint: floors per job, rate and demand jobs x types");
    AllocationOperator g(in, true);
    const std::size_t N = J * T;
    std::vector<double> h(N + T + 2 * J, 0.0);
    for (std::size_t t = 0; t < T; ++t)
        h[N + t] = in.capacity[t];
    for (std::size_t j = 0; j < J; ++j) {
        h[N + T + j] = 1;
        h[N + T + J + j] = -floor[j];
    }
    // Gavel's objective is the constant Maximize(1): c = 0, a feasibility problem.
    const opt::HsdResult r = opt::solveHomogeneous(g, std::vector<double>(N, 0.0), h);
    if (r.status != opt::HsdStatus::Optimal)
        return {};
    std::vector<double> x = r.x;
    for (double& v : x) // Gavel clips to [0, 1]
        v = std::min(1.0, std::max(0.0, v));
    return x;
}

std::vector<double> ecosOptimalPoint(const AllocationInput& in, const std::vector<double>& objective)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    if (objective.size() != J * T || in.rate.size() != J * T || in.demand.size() != J * T || in.capacity.size() != T)
        throw std::invalid_argument("ecosOptimalPoint: objective, rate and demand jobs x types");
    AllocationOperator g(in, false);
    const std::size_t N = J * T;
    std::vector<double> h(N + T + J, 0.0);
    for (std::size_t t = 0; t < T; ++t)
        h[N + t] = in.capacity[t];
    for (std::size_t j = 0; j < J; ++j)
        h[N + T + j] = 1;
    // cvxpy's Maximize(f) is ECOS' minimise -f.
    std::vector<double> c(N);
    for (std::size_t k = 0; k < N; ++k)
        c[k] = -objective[k];
    const opt::HsdResult r = opt::solveHomogeneous(g, c, h);
    if (r.status != opt::HsdStatus::Optimal)
        return {};
    std::vector<double> x = r.x;
    for (double& v : x) // Gavel clips to [0, 1]
        v = std::min(1.0, std::max(0.0, v));
    return x;
}

} // namespace orrery::sched
