#pragma once

#include "io/json_reader.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string_view>

namespace simdjson::dom {
class element;
class object;
class parser;
} // namespace simdjson::dom

namespace orrery::io {

/**
 * io::parseJson's fast path: simdjson parses the text (GB/s, where nlohmann's lexer reads ~15 MB/s) and
 * the members `keep` accepts are copied into nlohmann's DOM, with nlohmann's number types
 * (non-negative integers unsigned). nullopt for anything the strict parser must judge and locate: a text
 * simdjson refuses (syntax, UTF-8, a number beyond a double or an integer beyond 64 bits, nesting deeper
 * than 1,024) or an object with a duplicate key anywhere, kept members or not.
 */
std::optional<nlohmann::json> fastParse(std::string_view text, KeepMember keep);

/**
 * The calling thread's simdjson parser, the one fastParse uses: a reader that walks simdjson's DOM itself (a large
 * table read straight into its own types) shares its buffers rather than growing a second set.
 */
simdjson::dom::parser& threadJsonParser();

/** False when an object's keys repeat (simdjson keeps both members; the strict parser refuses the text). */
bool uniqueKeys(const simdjson::dom::object& object);

/** False when any object in `value`, at any depth, repeats a key. */
bool uniqueKeysThroughout(simdjson::dom::element value);

} // namespace orrery::io
