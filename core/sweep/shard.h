#pragma once

#include <cstddef>
#include <string>

namespace orrery::sweep {

/**
 * One of `count` parts of a sweep's points (`--shard i/n`, i from 0 to n-1): shard i runs the contiguous block
 * [i * P / n, (i + 1) * P / n) of the P points in plan order, so the shards of a sweep cover every point once and
 * neighbouring points (which often share a prepared workload) stay together. Block sizes differ by at most one.
 */
struct Shard
{
    std::size_t index = 0;
    std::size_t count = 1;

    std::size_t begin(std::size_t points) const { return index * points / count; }
    std::size_t end(std::size_t points) const { return (index + 1) * points / count; }
};

/** Reads `i/n`; an error (naming `where`) unless 0 <= i < n <= 1,000,000. */
Shard parseShard(const std::string& text, const std::string& where = "--shard");

} // namespace orrery::sweep
