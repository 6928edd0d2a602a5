#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace orrery::util {

/**
 * FNV-1a, 64 bits: a content fingerprint (to recognise a scenario stored
 * before), not a cryptographic hash.
 */
constexpr std::uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;
/** `state`: the hash of what comes before `data`, to hash a text in parts (a shared prefix once). */
std::uint64_t fnv1a64(std::string_view data, std::uint64_t state = kFnv1a64Offset);
/** The hash as 16 lower-case hex digits. */
std::string fnv1a64Hex(std::string_view data);

} // namespace orrery::util
