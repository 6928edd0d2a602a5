#pragma once

#include "io/error.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::io {

/**
 * Parses a JSON document strictly, for every file a user gives Orrery. Unlike nlohmann::json::parse,
 * every failure is an orrery::Error naming `fileLabel`, the JSON path and the line: syntax errors,
 * invalid UTF-8, numbers beyond a double (`1e400`), and duplicate keys, which nlohmann would resolve
 * silently by keeping the last one.
 */
nlohmann::json parseJson(std::string_view text, const std::string& fileLabel);

/**
 * Which object members to keep: `depth` is 1 for the root object's keys. A member not kept is still
 * checked (syntax, duplicate keys, numbers, UTF-8) but not stored, which saves most of the time when
 * a reader needs a small part of a large file.
 */
using KeepMember = bool (*)(int depth, std::string_view key);
nlohmann::json parseJson(std::string_view text, const std::string& fileLabel, KeepMember keep);

/** Renders a JSON value for an error message: `-2`, `"abc"`, `an object`. */
std::string describeJson(const nlohmann::json& value);

/** The closest of `candidates` to `word` when it is a plausible typo, else empty. */
std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates);

/**
 * Strict, path-aware reading of one JSON object. Every getter records the key
 * as known; finish() rejects keys nobody asked for, with a "did you mean" for
 * near misses. Errors carry the JSON path (`cluster.nodes[3].count`).
 */
class JsonObject
{
public:
    JsonObject(const nlohmann::json& value, std::string path);

    const std::string& path() const { return m_path; }
    std::string childPath(const std::string& key) const;
    bool has(const std::string& key) const;
    /** Declares keys as known without reading them (read conditionally elsewhere). */
    void allow(std::initializer_list<const char*> keys);

    std::string string(const std::string& key);
    std::string string(const std::string& key, const std::string& fallback);
    double number(const std::string& key);
    double number(const std::string& key, double fallback);
    double positiveNumber(const std::string& key);
    double positiveNumber(const std::string& key, double fallback);
    double nonNegativeNumber(const std::string& key);
    double nonNegativeNumber(const std::string& key, double fallback);
    /** An integer in [minimum, maximum]; beyond it, an error that shows the value as written. */
    long long integer(const std::string& key, long long minimum, long long maximum);
    long long integer(const std::string& key, long long fallback, long long minimum, long long maximum);
    bool boolean(const std::string& key, bool fallback);
    std::optional<double> optionalNumber(const std::string& key, double minimum);
    std::vector<std::string> stringList(const std::string& key);
    /** One of `choices`, with the list in the error otherwise. */
    std::string choice(const std::string& key, const std::vector<std::string>& choices, const std::string& fallback);

    /** The raw member (marked known), or nullptr when absent. */
    const nlohmann::json* member(const std::string& key);
    JsonObject object(const std::string& key);
    /** Array member; each element's path is `key[i]`. Throws when absent or not an array. */
    const nlohmann::json& array(const std::string& key);

    /** Throws for the first key that no getter or allow() named. */
    void finish() const;

    [[noreturn]] void fail(const std::string& key, const std::string& message) const;
    [[noreturn]] void failHere(const std::string& message) const;

private:
    const nlohmann::json& require(const std::string& key);

    /** Records that `key` is one this object may hold (for finish() and its "did you mean"). */
    void know(std::string_view key);

    const nlohmann::json& m_value;
    std::string m_path;
    // A handful of short keys per object, looked up only by finish(): a flat list costs one allocation
    // per object where a set cost one per key, which was a tenth of reading a 100,000-job trace.
    std::vector<std::string> m_known;
};

/** `path[i]` */
std::string indexPath(const std::string& path, std::size_t index);

} // namespace orrery::io
