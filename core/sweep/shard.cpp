#include "sweep/shard.h"

#include "io/error.h"

#include <fmt/format.h>

#include <charconv>

namespace orrery::sweep {

Shard parseShard(const std::string& text, const std::string& where)
{
    const auto slash = text.find('/');
    const auto number = [&](std::string_view s, std::size_t& out) {
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
        return ec == std::errc() && end == s.data() + s.size() && !s.empty();
    };
    Shard shard;
    if (slash == std::string::npos || !number(std::string_view(text).substr(0, slash), shard.index) ||
        !number(std::string_view(text).substr(slash + 1), shard.count) || shard.count == 0 || shard.count > 1000000 ||
        shard.index >= shard.count)
        throw Error(
            "", where,
            fmt::format("expected I/N with 0 <= I < N <= 1000000 (shard I of N, counted from 0), got \"{}\"", text));
    return shard;
}

} // namespace orrery::sweep
