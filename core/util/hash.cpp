#include "util/hash.h"

#include <fmt/format.h>

namespace orrery::util {

std::uint64_t fnv1a64(std::string_view data, std::uint64_t state)
{
    std::uint64_t h = state;
    for (const char c : data) {
        h ^= static_cast<unsigned char>(c);
        h *= 0x100000001b3ULL; // FNV prime
    }
    return h;
}

std::string fnv1a64Hex(std::string_view data)
{
    return fmt::format("{:016x}", fnv1a64(data));
}

} // namespace orrery::util
