#include "io/json_text_writer.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace orrery::io {

namespace {

constexpr std::size_t kFlushBytes = 64 * 1024;
// Direct-mapped cache of formatted numbers: a run's columns repeat values (rates, round starts, zeros) often, and
// Grisu2 is most of the cost of writing a number.
constexpr int kCacheBits = 10;

std::size_t cacheSlot(std::uint64_t bits)
{
    return static_cast<std::size_t>((bits * 0x9E3779B97F4A7C15ULL) >> (64 - kCacheBits));
}

// What nlohmann's serializer writes without escaping (ensure_ascii off): printable ASCII but the quote and the
// backslash. Anything else takes its escaping routine.
bool plain(std::string_view s)
{
    for (const char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u > 0x7E || c == '"' || c == '\\')
            return false;
    }
    return true;
}

} // namespace

JsonTextWriter::JsonTextWriter(Sink sink) : m_sink(std::move(sink)), m_numbers(std::size_t{1} << kCacheBits)
{
    m_buffer.reserve(kFlushBytes + 4096);
}

JsonTextWriter::~JsonTextWriter() = default;

void JsonTextWriter::put(std::string_view s)
{
    m_buffer.append(s);
}

void JsonTextWriter::put(char c)
{
    m_buffer.push_back(c);
}

void JsonTextWriter::maybeFlush()
{
    if (m_buffer.size() >= kFlushBytes) {
        m_sink(m_buffer);
        m_buffer.clear();
    }
}

void JsonTextWriter::indent(std::size_t depth)
{
    m_buffer.append(2 * depth, ' ');
}

void JsonTextWriter::separator(Level& level)
{
    if (level.empty) {
        put('\n');
        level.empty = false;
    } else {
        put(",\n");
    }
}

void JsonTextWriter::beforeValue()
{
    if (m_levels.empty())
        return;
    Level& top = m_levels.back();
    if (top.object) {
        if (!top.keyPending)
            throw std::logic_error("JsonTextWriter: a value in an object needs its key first");
        top.keyPending = false;
        return;
    }
    separator(top);
    indent(m_levels.size());
}

void JsonTextWriter::beginObject()
{
    beforeValue();
    put('{');
    m_levels.push_back({true, true, false, {}});
}

void JsonTextWriter::beginArray()
{
    beforeValue();
    put('[');
    m_levels.push_back({false, true, false, {}});
}

void JsonTextWriter::endObject()
{
    if (m_levels.empty() || !m_levels.back().object || m_levels.back().keyPending)
        throw std::logic_error("JsonTextWriter: endObject() without an open object, or after a key");
    const bool empty = m_levels.back().empty;
    m_levels.pop_back();
    if (!empty) {
        put('\n');
        indent(m_levels.size());
    }
    put('}');
    maybeFlush();
}

void JsonTextWriter::endArray()
{
    if (m_levels.empty() || m_levels.back().object)
        throw std::logic_error("JsonTextWriter: endArray() without an open array");
    const bool empty = m_levels.back().empty;
    m_levels.pop_back();
    if (!empty) {
        put('\n');
        indent(m_levels.size());
    }
    put(']');
    maybeFlush();
}

void JsonTextWriter::key(std::string_view name)
{
    if (m_levels.empty() || !m_levels.back().object || m_levels.back().keyPending)
        throw std::logic_error("JsonTextWriter: a key outside an object, or two keys in a row");
    Level& top = m_levels.back();
    if (!top.empty && !(std::string_view(top.lastKey) < name))
        throw std::logic_error("JsonTextWriter: key \"" + std::string(name) + "\" after \"" + top.lastKey +
                               "\" (nlohmann's objects are in ascending key order)");
    separator(top);
    indent(m_levels.size());
    writeEscaped(name);
    put(": ");
    top.lastKey.assign(name);
    top.keyPending = true;
}

void JsonTextWriter::writeEscaped(std::string_view s)
{
    if (plain(s)) {
        put('"');
        put(s);
        put('"');
    } else {
        put(nlohmann::json(std::string(s)).dump());
    }
}

void JsonTextWriter::value(double v)
{
    beforeValue();
    if (!std::isfinite(v)) {
        put("null");
    } else {
        std::uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof bits);
        CachedNumber& slot = m_numbers[cacheSlot(bits)];
        if (slot.length == 0 || slot.bits != bits) {
            const char* end = nlohmann::detail::to_chars(slot.text, slot.text + sizeof slot.text, v);
            slot.length = static_cast<std::uint8_t>(end - slot.text);
            slot.bits = bits;
        }
        put(std::string_view(slot.text, slot.length));
    }
    maybeFlush();
}

void JsonTextWriter::value(bool v)
{
    beforeValue();
    put(v ? "true" : "false");
    maybeFlush();
}

void JsonTextWriter::value(std::string_view s)
{
    beforeValue();
    writeEscaped(s);
    maybeFlush();
}

void JsonTextWriter::null()
{
    beforeValue();
    put("null");
    maybeFlush();
}

void JsonTextWriter::writeSigned(std::int64_t v)
{
    beforeValue();
    char text[24];
    const auto r = std::to_chars(text, text + sizeof text, v);
    put(std::string_view(text, static_cast<std::size_t>(r.ptr - text)));
    maybeFlush();
}

void JsonTextWriter::writeUnsigned(std::uint64_t v)
{
    beforeValue();
    char text[24];
    const auto r = std::to_chars(text, text + sizeof text, v);
    put(std::string_view(text, static_cast<std::size_t>(r.ptr - text)));
    maybeFlush();
}

void JsonTextWriter::dom(const nlohmann::json& v)
{
    beforeValue();
    // dump(2) indents nested lines from column 0; here they start at this depth. Strings hold no raw newline (the
    // serializer escapes it), so every newline in the text is a line break of the layout.
    const std::string text = v.dump(2);
    const std::size_t depth = m_levels.size();
    std::size_t from = 0;
    for (std::size_t nl = text.find('\n'); nl != std::string::npos; nl = text.find('\n', from)) {
        put(std::string_view(text).substr(from, nl + 1 - from));
        indent(depth);
        from = nl + 1;
    }
    put(std::string_view(text).substr(from));
    maybeFlush();
}

void JsonTextWriter::finish()
{
    if (!m_levels.empty())
        throw std::logic_error("JsonTextWriter: finish() with an object or array still open");
    if (!m_buffer.empty())
        m_sink(m_buffer);
    m_buffer.clear();
}

void writeObject(JsonTextWriter& w, const nlohmann::json& members, std::vector<StreamedMember> streamed)
{
    if (!members.is_object())
        throw std::logic_error("writeObject: the members must be an object");
    std::sort(streamed.begin(), streamed.end(),
              [](const StreamedMember& a, const StreamedMember& b) { return a.key < b.key; });
    w.beginObject();
    std::size_t s = 0;
    for (auto it = members.cbegin(); it != members.cend(); ++it) {
        const std::string& key = it.key();
        for (; s < streamed.size() && streamed[s].key < key; ++s) {
            w.key(streamed[s].key);
            streamed[s].write(w);
        }
        if (s < streamed.size() && streamed[s].key == key)
            throw std::logic_error("writeObject: member \"" + key + "\" given twice");
        w.key(key);
        w.dom(it.value());
    }
    for (; s < streamed.size(); ++s) {
        w.key(streamed[s].key);
        streamed[s].write(w);
    }
    w.endObject();
}

} // namespace orrery::io
