#pragma once

#include <nlohmann/json_fwd.hpp>

#include <concepts>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::io {

/**
 * Writes JSON text exactly as nlohmann::json::dump(2) writes the same document, byte for byte, without building
 * the document: a run's columns (a few hundred thousand numbers for `simulate --json`) cost a tenth of what a DOM
 * costs to build and dump (docs/performance.md). Numbers are formatted by nlohmann's own routine (Grisu2, with its
 * ".0" for integral values and "null" for non-finite ones); a value repeated in a column is formatted once.
 *
 * Object keys must come in nlohmann's order (its objects are std::maps: byte-wise ascending). A key out of that
 * order, or a second value where a key is due, throws std::logic_error: the text would differ from the DOM's.
 */
class JsonTextWriter
{
public:
    /** Gets the text in pieces of about 64 KiB while writing, and the rest at finish(). */
    using Sink = std::function<void(std::string_view)>;

    explicit JsonTextWriter(Sink sink);
    ~JsonTextWriter();
    JsonTextWriter(const JsonTextWriter&) = delete;
    JsonTextWriter& operator=(const JsonTextWriter&) = delete;

    void beginObject();
    void endObject();
    void beginArray();
    void endArray();
    void key(std::string_view name);

    void value(double v);
    void value(bool v);
    void value(std::string_view s);
    void value(const char* s) { value(std::string_view(s)); }
    void value(const std::string& s) { value(std::string_view(s)); }
    template <std::integral I>
    requires(!std::same_as<I, bool>) void value(I v)
    {
        if constexpr (std::signed_integral<I>)
            writeSigned(static_cast<std::int64_t>(v));
        else
            writeUnsigned(static_cast<std::uint64_t>(v));
    }
    void null();
    /** A document value, written as dump(2) writes it at this depth. */
    void dom(const nlohmann::json& v);
    /** An array of the values. */
    template <typename T> void array(const std::vector<T>& values)
    {
        beginArray();
        for (const auto& v : values)
            value(v);
        endArray();
    }

    /** Hands what is left to the sink; the document must be complete. */
    void finish();

private:
    struct Level
    {
        bool object = false;
        bool empty = true;
        bool keyPending = false;
        std::string lastKey;
    };
    struct CachedNumber
    {
        std::uint64_t bits = 0;
        std::uint8_t length = 0; // 0: empty slot
        char text[31] = {};
    };

    void beforeValue();
    void separator(Level& level);
    void indent(std::size_t depth);
    void put(std::string_view s);
    void put(char c);
    void writeSigned(std::int64_t v);
    void writeUnsigned(std::uint64_t v);
    void writeEscaped(std::string_view s);
    void maybeFlush();

    Sink m_sink;
    std::string m_buffer;
    std::vector<Level> m_levels;
    std::vector<CachedNumber> m_numbers;
};

/** A member of an object written by writeObject() from a function rather than from the document. */
struct StreamedMember
{
    std::string_view key;
    std::function<void(JsonTextWriter&)> write;
};

/**
 * Writes the object `members` (a document object) with the `streamed` members merged in at their places in
 * nlohmann's key order, as dump(2) writes the object holding all of them. A key in both throws std::logic_error.
 */
void writeObject(JsonTextWriter& w, const nlohmann::json& members, std::vector<StreamedMember> streamed = {});

} // namespace orrery::io
