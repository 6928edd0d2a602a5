#pragma once

// The byte layout of the store's column chunks (docs/database.md, "Column chunks"), header-only and
// free of SQLite so that the store and the loadable SQLite extension (app/sqlite) decode the same way.

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

namespace orrery::store {

/** Records per chunk; chunk k holds records [k * kChunkRows, (k + 1) * kChunkRows). */
inline constexpr std::size_t kChunkRows = 4096;

/** Far above any workload; a damaged job_index beyond it must not make a reader allocate gigabytes. */
inline constexpr std::int32_t kMaxJobIndex = 100'000'000;

namespace chunk {

template <typename T> T swapBytes(T value)
{
    static_assert(std::is_trivially_copyable_v<T>);
    unsigned char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    std::reverse(bytes, bytes + sizeof(T));
    std::memcpy(&value, bytes, sizeof(T));
    return value;
}

/** The stored layout is little-endian whatever the host; on little-endian hosts this is a no-op. */
template <typename T> void toOrFromLittleEndian(std::vector<T>& values)
{
    if constexpr (std::endian::native == std::endian::big) {
        for (T& v : values)
            v = swapBytes(v);
    }
}

/** A column BLOB as values; nullopt when its size is not `count` values of T. */
template <typename T> std::optional<std::vector<T>> decode(std::string_view blob, std::size_t count)
{
    if (blob.size() != count * sizeof(T))
        return std::nullopt;
    std::vector<T> out(count);
    if (count)
        std::memcpy(out.data(), blob.data(), blob.size());
    toOrFromLittleEndian(out);
    return out;
}

/**
 * A chunk's `labels` BLOB: its distinct strings, each UTF-8 and followed by one NUL byte; string
 * columns are int32 indices into it. nullopt when the BLOB does not end with NUL.
 */
inline std::optional<std::vector<std::string_view>> splitLabels(std::string_view blob)
{
    std::vector<std::string_view> out;
    if (blob.empty())
        return out;
    if (blob.back() != '\0')
        return std::nullopt;
    std::size_t start = 0;
    while (start < blob.size()) {
        const std::size_t end = blob.find('\0', start);
        out.push_back(blob.substr(start, end - start));
        start = end + 1;
    }
    return out;
}

/** Job times that did not happen (never started, unfinished) are stored as NaN. */
inline double missingTime()
{
    return std::nan("");
}

} // namespace chunk

} // namespace orrery::store
