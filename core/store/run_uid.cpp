#include "store/run_uid.h"

#include <fmt/format.h>

#include <mutex>
#include <random>

namespace orrery::store {

std::string newRunUid()
{
    // Seeded once per process from the system's entropy; the mutex because sweep workers begin runs in parallel.
    static std::mutex mutex;
    static std::mt19937_64 rng = [] {
        std::random_device rd;
        std::seed_seq seq{rd(), rd(), rd(), rd(), rd(), rd(), rd(), rd()};
        return std::mt19937_64(seq);
    }();
    std::lock_guard lock(mutex);
    const std::uint64_t a = rng();
    const std::uint64_t b = rng();
    return fmt::format("{:016x}{:016x}", a, b);
}

} // namespace orrery::store
