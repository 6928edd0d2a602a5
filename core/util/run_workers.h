#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace orrery::util {

/** Runs `worker` (which takes its share of `work` items itself, e.g. from an atomic counter) on
 *  min(threads, work) threads, at least one, and returns when all have finished; with one, on the calling thread. */
template <typename Worker> void runWorkers(int threads, std::size_t work, Worker&& worker)
{
    const int pool = std::clamp(threads, 1, static_cast<int>(std::max<std::size_t>(work, 1)));
    if (pool == 1) {
        worker();
        return;
    }
    std::vector<std::jthread> workers;
    for (int t = 0; t < pool; ++t)
        workers.emplace_back(worker);
}

} // namespace orrery::util
