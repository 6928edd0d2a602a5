#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace orrery::util {

/**
 * FNV-1a, 64 bits: a content fingerprint (to recognise a scenario stored
 * before), not a cryptographic hash.
 */
std::uint64_t fnv1a64(std::string_view data);
/** The hash as 16 lower-case hex digits. */
std::string fnv1a64Hex(std::string_view data);

} // namespace orrery::util
