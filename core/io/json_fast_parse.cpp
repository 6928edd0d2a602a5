#include "io/json_fast_parse.h"

#include <simdjson.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace orrery::io {

using nlohmann::json;

namespace {

constexpr std::size_t kSmallObject = 64;

// Sorting an object's keys themselves cost more than the rest of the copy for Gavel's throughput table (500 objects
// of ~27 keys that share a 25-byte prefix); their hashes are sorted instead, and only keys whose hashes meet are
// compared. Objects past kSmallObject keys take the plain sort.
bool uniqueLargeObjectKeys(const simdjson::dom::object& object)
{
    std::vector<std::string_view> keys;
    keys.reserve(object.size());
    for (const auto field : object)
        keys.push_back(field.key);
    std::sort(keys.begin(), keys.end());
    return std::adjacent_find(keys.begin(), keys.end()) == keys.end();
}

} // namespace

bool uniqueKeys(const simdjson::dom::object& object)
{
    const std::size_t n = object.size();
    if (n < 2)
        return true;
    if (n > kSmallObject)
        return uniqueLargeObjectKeys(object);
    struct Key
    {
        std::size_t hash;
        std::string_view text;
    };
    std::array<Key, kSmallObject> keys;
    std::size_t count = 0;
    for (const auto field : object)
        keys[count++] = {std::hash<std::string_view>{}(field.key), field.key};
    std::sort(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(count),
              [](const Key& a, const Key& b) { return a.hash < b.hash; });
    for (std::size_t i = 1; i < count; ++i)
        for (std::size_t j = i; j > 0 && keys[j - 1].hash == keys[i].hash; --j)
            if (keys[j - 1].text == keys[i].text)
                return false;
    return true;
}

// A member that is not kept is still walked: a duplicate key inside it is an error as anywhere else.
bool uniqueKeysThroughout(simdjson::dom::element from)
{
    if (from.is_array()) {
        for (const simdjson::dom::element item : simdjson::dom::array(from))
            if (!uniqueKeysThroughout(item))
                return false;
    } else if (from.is_object()) {
        const simdjson::dom::object object(from);
        if (!uniqueKeys(object))
            return false;
        for (const auto field : object)
            if (!uniqueKeysThroughout(field.value))
                return false;
    }
    return true;
}

simdjson::dom::parser& threadJsonParser()
{
    // One parser per thread keeps its buffers between files (simulations parse in worker threads).
    thread_local simdjson::dom::parser parser;
    return parser;
}

namespace {

// simdjson's DOM, copied into nlohmann's for the members kept. False for anything the strict
// parser must judge: here, an object with a duplicate key (simdjson keeps both).
bool copyValue(simdjson::dom::element from, json& to, KeepMember keep, int depth)
{
    using simdjson::dom::element_type;
    switch (from.type()) {
    case element_type::ARRAY: {
        to = json::array();
        for (const simdjson::dom::element item : simdjson::dom::array(from)) {
            to.push_back(json());
            if (!copyValue(item, to.back(), keep, depth))
                return false;
        }
        return true;
    }
    case element_type::OBJECT: {
        to = json::object();
        const simdjson::dom::object object(from);
        if (!uniqueKeys(object))
            return false;
        for (const auto field : object) {
            if (keep && !keep(depth + 1, field.key)) {
                if (!uniqueKeysThroughout(field.value))
                    return false;
                continue;
            }
            if (!copyValue(field.value, to[std::string(field.key)], keep, depth + 1))
                return false;
        }
        return true;
    }
    case element_type::INT64: {
        // nlohmann types every non-negative integer as unsigned; readers test for it.
        const std::int64_t v = from.get_int64().value_unsafe();
        if (v >= 0)
            to = static_cast<json::number_unsigned_t>(v);
        else
            to = static_cast<json::number_integer_t>(v);
        return true;
    }
    case element_type::UINT64:
        to = static_cast<json::number_unsigned_t>(from.get_uint64().value_unsafe());
        return true;
    case element_type::DOUBLE:
        to = from.get_double().value_unsafe();
        return true;
    case element_type::STRING:
        to = std::string(from.get_string().value_unsafe());
        return true;
    case element_type::BOOL:
        to = from.get_bool().value_unsafe();
        return true;
    case element_type::NULL_VALUE:
        to = nullptr;
        return true;
    }
    return false;
}

} // namespace

std::optional<json> fastParse(std::string_view text, KeepMember keep)
{
    simdjson::dom::parser& parser = threadJsonParser();
    const simdjson::padded_string padded(text);
    simdjson::dom::element doc;
    // Refused: syntax, UTF-8, a number beyond a double or an integer beyond 64 bits, nesting
    // deeper than 1,024.
    if (parser.parse(padded).get(doc) != simdjson::SUCCESS)
        return std::nullopt;
    json out;
    if (!copyValue(doc, out, keep, 0))
        return std::nullopt;
    return out;
}

} // namespace orrery::io
