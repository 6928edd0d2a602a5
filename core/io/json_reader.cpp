#include "io/json_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace orrery::io {

using nlohmann::json;

std::string describeJson(const json& value)
{
    switch (value.type()) {
    case json::value_t::null:
        return "null";
    case json::value_t::object:
        return "an object";
    case json::value_t::array:
        return "an array";
    case json::value_t::string: {
        std::string s = value.get<std::string>();
        if (s.size() > 40)
            s = s.substr(0, 37) + "...";
        return "\"" + s + "\"";
    }
    default:
        return value.dump();
    }
}

static std::size_t editDistance(const std::string& a, const std::string& b)
{
    std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
        prev[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        cur[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
            cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
        }
        std::swap(prev, cur);
    }
    return prev[b.size()];
}

std::string closestMatch(const std::string& word, const std::vector<std::string>& candidates)
{
    std::string best;
    std::size_t bestDistance = std::max<std::size_t>(2, word.size() / 3) + 1;
    for (const auto& c : candidates) {
        const std::size_t d = editDistance(word, c);
        if (d < bestDistance) {
            bestDistance = d;
            best = c;
        }
    }
    return best;
}

std::string indexPath(const std::string& path, std::size_t index)
{
    return fmt::format("{}[{}]", path, index);
}

JsonObject::JsonObject(const json& value, std::string path) : m_value(value), m_path(std::move(path))
{
    if (!m_value.is_object())
        failHere("expected an object, got " + describeJson(m_value));
}

std::string JsonObject::childPath(const std::string& key) const
{
    return m_path.empty() ? key : m_path + "." + key;
}

bool JsonObject::has(const std::string& key) const
{
    const auto it = m_value.find(key);
    return it != m_value.end() && !it->is_null();
}

void JsonObject::know(std::string_view key)
{
    if (m_known.empty())
        m_known.reserve(24);
    m_known.emplace_back(key);
}

void JsonObject::allow(std::initializer_list<const char*> keys)
{
    for (const char* k : keys)
        know(k);
}

void JsonObject::fail(const std::string& key, const std::string& message) const
{
    throw Error("", childPath(key), message);
}

void JsonObject::failHere(const std::string& message) const
{
    throw Error("", m_path.empty() ? std::string("(top level)") : m_path, message);
}

const json& JsonObject::require(const std::string& key)
{
    know(key);
    if (!m_value.contains(key))
        fail(key, "missing required field");
    return m_value.at(key);
}

const json* JsonObject::member(const std::string& key)
{
    know(key);
    auto it = m_value.find(key);
    if (it == m_value.end() || it->is_null())
        return nullptr;
    return &*it;
}

std::string JsonObject::string(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_string())
        fail(key, "expected a string, got " + describeJson(v));
    return v.get<std::string>();
}

std::string JsonObject::string(const std::string& key, const std::string& fallback)
{
    return has(key) ? string(key) : (know(key), fallback);
}

double JsonObject::number(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_number())
        fail(key, "expected a number, got " + describeJson(v));
    const double d = v.get<double>();
    if (!std::isfinite(d))
        fail(key, "expected a finite number");
    return d;
}

double JsonObject::number(const std::string& key, double fallback)
{
    return has(key) ? number(key) : (know(key), fallback);
}

double JsonObject::positiveNumber(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_number() || !(v.get<double>() > 0))
        fail(key, "expected a positive number, got " + describeJson(v));
    return v.get<double>();
}

double JsonObject::positiveNumber(const std::string& key, double fallback)
{
    return has(key) ? positiveNumber(key) : (know(key), fallback);
}

double JsonObject::nonNegativeNumber(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_number() || !(v.get<double>() >= 0))
        fail(key, "expected a non-negative number, got " + describeJson(v));
    return v.get<double>();
}

double JsonObject::nonNegativeNumber(const std::string& key, double fallback)
{
    return has(key) ? nonNegativeNumber(key) : (know(key), fallback);
}

long long JsonObject::integer(const std::string& key, long long minimum)
{
    const json& v = require(key);
    const bool integral =
        v.is_number_integer() ||
        (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>() && std::abs(v.get<double>()) < 9e15);
    const char* what = minimum == 1 ? "a positive integer" : minimum == 0 ? "a non-negative integer" : "an integer";
    if (!integral)
        fail(key, fmt::format("expected {}, got {}", what, describeJson(v)));
    const long long n = v.is_number_integer() ? v.get<long long>() : static_cast<long long>(v.get<double>());
    if (n < minimum)
        fail(key, minimum <= 1 ? fmt::format("expected {}, got {}", what, n)
                               : fmt::format("expected an integer >= {}, got {}", minimum, n));
    return n;
}

long long JsonObject::integer(const std::string& key, long long fallback, long long minimum)
{
    return has(key) ? integer(key, minimum) : (know(key), fallback);
}

bool JsonObject::boolean(const std::string& key, bool fallback)
{
    if (!has(key)) {
        know(key);
        return fallback;
    }
    const json& v = require(key);
    if (!v.is_boolean())
        fail(key, "expected true or false, got " + describeJson(v));
    return v.get<bool>();
}

std::optional<double> JsonObject::optionalNumber(const std::string& key, double minimum)
{
    if (!has(key)) {
        know(key);
        return std::nullopt;
    }
    const double d = number(key);
    if (d < minimum)
        fail(key, fmt::format("expected a number >= {}, got {}", minimum, describeJson(m_value.at(key))));
    return d;
}

std::vector<std::string> JsonObject::stringList(const std::string& key)
{
    std::vector<std::string> out;
    const json* v = member(key);
    if (!v)
        return out;
    if (!v->is_array())
        fail(key, "expected an array of strings, got " + describeJson(*v));
    for (std::size_t i = 0; i < v->size(); ++i) {
        if (!(*v)[i].is_string())
            throw Error("", indexPath(childPath(key), i), "expected a string, got " + describeJson((*v)[i]));
        out.push_back((*v)[i].get<std::string>());
    }
    return out;
}

std::string JsonObject::choice(const std::string& key, const std::vector<std::string>& choices,
                               const std::string& fallback)
{
    if (!has(key)) {
        know(key);
        return fallback;
    }
    const std::string s = string(key);
    if (std::find(choices.begin(), choices.end(), s) != choices.end())
        return s;
    std::string msg = fmt::format("expected one of {}, got \"{}\"", fmt::join(choices, ", "), s);
    const std::string near = closestMatch(s, choices);
    if (!near.empty())
        msg += fmt::format(" (did you mean \"{}\"?)", near);
    fail(key, msg);
}

JsonObject JsonObject::object(const std::string& key)
{
    return JsonObject(require(key), childPath(key));
}

const json& JsonObject::array(const std::string& key)
{
    const json& v = require(key);
    if (!v.is_array())
        fail(key, "expected an array, got " + describeJson(v));
    return v;
}

void JsonObject::finish() const
{
    for (auto it = m_value.begin(); it != m_value.end(); ++it) {
        if (std::find(m_known.begin(), m_known.end(), it.key()) != m_known.end())
            continue;
        std::string msg = "unknown field";
        // Sorted and unique, as the set this list replaced gave them: ties resolve as before.
        std::vector<std::string> candidates = m_known;
        std::sort(candidates.begin(), candidates.end());
        candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
        const std::string near = closestMatch(it.key(), candidates);
        if (!near.empty())
            msg += fmt::format(" (did you mean \"{}\"?)", near);
        fail(it.key(), msg);
    }
}

} // namespace orrery::io
