#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace orrery::util {

/**
 * Runs `worker` (which takes its share of `work` items itself, e.g. from an atomic counter) on min(threads, work)
 * threads, at least one, the calling thread among them, and returns when all have finished. The calling thread works
 * rather than waits: one thread fewer to start, and under glibc it allocates from the main heap, which
 * app/cli/main.cpp backs with huge pages, where a new thread's arena faults in 4 KiB at a time.
 */
template <typename Worker> void runWorkers(int threads, std::size_t work, Worker&& worker)
{
    const int pool = std::clamp(threads, 1, static_cast<int>(std::max<std::size_t>(work, 1)));
    std::vector<std::jthread> others;
    others.reserve(static_cast<std::size_t>(pool - 1));
    for (int t = 1; t < pool; ++t)
        others.emplace_back(worker);
    worker();
}

} // namespace orrery::util
