#include "io/json_fast_parse.h"

#include <simdjson.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace orrery::io {

using nlohmann::json;

namespace {

bool uniqueKeys(const simdjson::dom::object& object)
{
    std::vector<std::string_view> keys;
    keys.reserve(object.size());
    for (const auto field : object)
        keys.push_back(field.key);
    std::sort(keys.begin(), keys.end());
    return std::adjacent_find(keys.begin(), keys.end()) == keys.end();
}

// A member that is not kept is still walked: a duplicate key inside it is an error as anywhere else.
bool checkOnly(simdjson::dom::element from)
{
    if (from.is_array()) {
        for (const simdjson::dom::element item : simdjson::dom::array(from))
            if (!checkOnly(item))
                return false;
    } else if (from.is_object()) {
        const simdjson::dom::object object(from);
        if (!uniqueKeys(object))
            return false;
        for (const auto field : object)
            if (!checkOnly(field.value))
                return false;
    }
    return true;
}

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
                if (!checkOnly(field.value))
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
    // One parser per thread keeps its buffers between files (simulations parse in worker threads).
    thread_local simdjson::dom::parser parser;
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
