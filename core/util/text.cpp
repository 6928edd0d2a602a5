#include "util/text.h"

#include "io/error.h"
#include "io/limits.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace orrery::util {

std::string toLower(std::string_view s)
{
    std::string out(s);
    for (char& c : out)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string trim(std::string_view s)
{
    std::size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    return std::string(s.substr(b, e - b));
}

std::vector<std::string> split(std::string_view s, char sep)
{
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t pos = s.find(sep, start);
        out.emplace_back(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start));
        if (pos == std::string_view::npos)
            break;
        start = pos + 1;
    }
    return out;
}

std::string readFile(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto status = fs::status(path, ec);
    // A device (/dev/zero) or FIFO never ends: reading it whole would run until memory is gone.
    if (!ec && fs::exists(status) && !fs::is_regular_file(status))
        throw Error(path, "",
                    fs::is_directory(status) ? "is a directory, expected a file"
                                             : "not a regular file (a device, pipe or socket)");
    std::uintmax_t size = 0;
    if (!ec && fs::is_regular_file(status)) {
        size = fs::file_size(path, ec);
        if (ec)
            size = 0;
        else if (size > io::limits::kMaxFileBytes)
            throw Error(path, "",
                        fmt::format("file too large: {} bytes, at most {} ({} GiB) are read", size,
                                    io::limits::kMaxFileBytes, io::limits::kMaxFileBytes >> 30));
    }
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw Error(path, "", std::string("cannot open file: ") + std::strerror(errno));
    // Read into one buffer of the file's size: a stream copy grows its buffer by doubling and then copies it out,
    // touching about three times the file's size in fresh pages (a 1.2 MB throughput table: 700 page faults).
    // Room past the end for a JSON parser's padding (simdjson reads up to 64 bytes beyond the text): a large JSON file
    // is then parsed where it lies rather than copied first.
    constexpr std::size_t kParserPadding = 64;
    std::string text;
    text.reserve(static_cast<std::size_t>(size) + kParserPadding);
    text.resize(static_cast<std::size_t>(size));
    in.read(text.data(), static_cast<std::streamsize>(size));
    text.resize(static_cast<std::size_t>(in.gcount()));
    if (in) { // the file may have grown since its size was taken (or its size was unknown): the rest too
        std::ostringstream rest;
        rest << in.rdbuf();
        text += rest.str();
    }
    return text;
}

namespace {

// Length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlongs, no surrogates, <= U+10FFFF), or 0.
std::size_t utf8SequenceAt(std::string_view s, std::size_t i)
{
    const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = b(i);
    if (c < 0x80)
        return 1;
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        if (c == 0xE0)
            lo = 0xA0;
        if (c == 0xED)
            hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        if (c == 0xF0)
            lo = 0x90;
        if (c == 0xF4)
            hi = 0x8F;
    } else
        return 0;
    if (i + n > s.size())
        return 0;
    if (b(i + 1) < lo || b(i + 1) > hi)
        return 0;
    for (std::size_t k = 2; k < n; ++k)
        if (b(i + k) < 0x80 || b(i + k) > 0xBF)
            return 0;
    return n;
}

} // namespace

std::size_t invalidUtf8At(std::string_view s)
{
    for (std::size_t i = 0; i < s.size();) {
        // ASCII runs are the common case in traces: skip them without the table above.
        if (static_cast<unsigned char>(s[i]) < 0x80) {
            ++i;
            continue;
        }
        const std::size_t n = utf8SequenceAt(s, i);
        if (n == 0)
            return i;
        i += n;
    }
    return std::string_view::npos;
}

std::string sanitizeUtf8(std::string_view s)
{
    if (invalidUtf8At(s) == std::string_view::npos)
        return std::string(s);
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t n = utf8SequenceAt(s, i);
        if (n == 0) {
            out += fmt::format("\\x{:02X}", static_cast<unsigned char>(s[i]));
            ++i;
        } else {
            out.append(s.substr(i, n));
            i += n;
        }
    }
    return out;
}

std::string_view utf8Prefix(std::string_view s, std::size_t maxBytes)
{
    if (s.size() <= maxBytes)
        return s;
    std::size_t end = maxBytes;
    // Back up over continuation bytes (10xxxxxx) to the start of the character that would be split.
    while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80)
        --end;
    return s.substr(0, end);
}

std::string baseName(const std::string& path)
{
    const auto pos = path.find_last_of('/');
    return pos == std::string::npos ? path : path.substr(pos + 1);
}

} // namespace orrery::util
