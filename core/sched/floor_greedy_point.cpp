#include "sched/floor_greedy_point.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace orrery::sched {

std::vector<double> greedyFloorPoint(const AllocationInput& in, const std::vector<double>& floor, double margin,
                                     double capacityShare)
{
    const auto J = static_cast<std::size_t>(in.jobs);
    const auto T = static_cast<std::size_t>(in.types);
    if (floor.size() != J || in.rate.size() != J * T || in.demand.size() != J * T || in.capacity.size() != T)
        throw std::invalid_argument("greedyFloorPoint: floors per job, rate and demand jobs x types");
    std::vector<double> ask(J, 0.0); // the share of its best rate the floor takes
    for (std::size_t j = 0; j < J; ++j) {
        if (!(floor[j] > 0))
            continue;
        const double best = *std::max_element(in.rate.begin() + static_cast<std::ptrdiff_t>(j * T),
                                              in.rate.begin() + static_cast<std::ptrdiff_t>((j + 1) * T));
        if (!(best > 0))
            return {}; // no type gives it any throughput
        ask[j] = floor[j] / best;
    }
    // The tightest jobs first: the one whose floor is nearly its best rate has only its fastest type to go to.
    std::vector<std::size_t> order(J);
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t p, std::size_t q) { return ask[p] > ask[q]; });
    std::vector<double> gpusLeft(T);
    for (std::size_t t = 0; t < T; ++t)
        gpusLeft[t] = in.capacity[t] * capacityShare;
    std::vector<std::size_t> types(T);
    std::vector<double> x(J * T, 0.0);
    for (const std::size_t j : order) {
        if (ask[j] == 0)
            break; // the rest ask nothing either
        const double* rate = in.rate.data() + j * T;
        std::iota(types.begin(), types.end(), std::size_t{0});
        std::stable_sort(types.begin(), types.end(), [&](std::size_t p, std::size_t q) { return rate[p] > rate[q]; });
        // Aimed above what is checked, so that rounding in the sums cannot leave a met floor a hair short.
        const double want = floor[j] * (1 + 2 * margin);
        double got = 0, timeLeft = 1;
        for (const std::size_t t : types) {
            if (!(rate[t] > 0) || got >= want || timeLeft <= 0)
                break;
            const int demand = in.demand[j * T + t];
            double share = std::min((want - got) / rate[t], timeLeft);
            if (demand > 0)
                share = std::min(share, gpusLeft[t] / demand);
            if (!(share > 0))
                continue;
            x[j * T + t] = share;
            got += rate[t] * share;
            timeLeft -= share;
            gpusLeft[t] = std::max(0.0, gpusLeft[t] - demand * share);
        }
        if (got < floor[j] * (1 + margin))
            return {};
    }
    return x;
}

} // namespace orrery::sched
