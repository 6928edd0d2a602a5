#include "sched/policy_params.h"

#include "io/error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <optional>

namespace orrery::sched {

namespace {

std::optional<double> toNumber(std::string_view text)
{
    double v = 0;
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(v))
        return std::nullopt;
    return v;
}

// Shortest text that reads back to the same double, so a label names exactly the value that ran.
std::string numberText(double v)
{
    return fmt::format("{}", v);
}

std::string quoted(std::string_view text)
{
    // Messages quote what the user wrote; an absurdly long value is cut rather than echoed whole.
    constexpr std::size_t kMax = 80;
    if (text.size() <= kMax)
        return fmt::format("\"{}\"", text);
    std::size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80)
        --cut; // not inside a UTF-8 character
    return fmt::format("\"{}...\"", text.substr(0, cut));
}

} // namespace

std::string_view paramTypeName(ParamType type)
{
    switch (type) {
    case ParamType::Number:
        return "number";
    case ParamType::Integer:
        return "integer";
    case ParamType::Boolean:
        return "boolean";
    case ParamType::NumberList:
        return "number list";
    case ParamType::Choice:
        return "choice";
    }
    return "?";
}

std::string describeAllowed(const ParamSpec& spec)
{
    const auto range = [&] {
        const bool lo = std::isfinite(spec.minimum), hi = std::isfinite(spec.maximum);
        if (lo && hi)
            return fmt::format(" in [{}, {}]", numberText(spec.minimum), numberText(spec.maximum));
        if (lo)
            return fmt::format(" >= {}", numberText(spec.minimum));
        if (hi)
            return fmt::format(" <= {}", numberText(spec.maximum));
        return std::string();
    };
    switch (spec.type) {
    case ParamType::Number:
        return "a number" + range();
    case ParamType::Integer:
        return "an integer" + range();
    case ParamType::Boolean:
        return "true or false";
    case ParamType::NumberList: {
        std::string count = spec.minCount == spec.maxCount ? fmt::format("{}", spec.minCount)
                                                           : fmt::format("{} to {}", spec.minCount, spec.maxCount);
        return fmt::format("{} comma-separated number(s){}{}", count, range(),
                           spec.increasing ? ", strictly increasing" : "");
    }
    case ParamType::Choice:
        return fmt::format("one of {}", fmt::join(spec.choices, ", "));
    }
    return {};
}

std::string formatParamValue(const ParamSpec& spec, const ParamValue& value)
{
    switch (spec.type) {
    case ParamType::Number:
    case ParamType::Integer:
        return numberText(value.number);
    case ParamType::Boolean:
        return value.flag ? "true" : "false";
    case ParamType::NumberList: {
        std::string out;
        for (std::size_t i = 0; i < value.list.size(); ++i)
            out += (i ? "," : "") + numberText(value.list[i]);
        return out;
    }
    case ParamType::Choice:
        return value.text;
    }
    return {};
}

ParamValue parseParamValue(const ParamSpec& spec, std::string_view text, const std::string& policy,
                           const std::string& where)
{
    const auto bad = [&]() -> Error {
        return Error("", where,
                     fmt::format("policy {} parameter {}: expected {}, got {}", policy, spec.name,
                                 describeAllowed(spec), quoted(text)));
    };
    const auto inRange = [&](double v) { return v >= spec.minimum && v <= spec.maximum; };
    ParamValue out;
    switch (spec.type) {
    case ParamType::Number:
    case ParamType::Integer: {
        const auto v = toNumber(text);
        if (!v || !inRange(*v) || (spec.type == ParamType::Integer && std::floor(*v) != *v))
            throw bad();
        out.number = *v;
        break;
    }
    case ParamType::Boolean:
        if (text == "true" || text == "1")
            out.flag = true;
        else if (text == "false" || text == "0")
            out.flag = false;
        else
            throw bad();
        break;
    case ParamType::NumberList: {
        std::size_t start = 0;
        while (start <= text.size()) {
            const std::size_t comma = std::min(text.find(',', start), text.size());
            const auto v = toNumber(text.substr(start, comma - start));
            if (!v || !inRange(*v) || (spec.increasing && !out.list.empty() && *v <= out.list.back()))
                throw bad();
            out.list.push_back(*v);
            if (out.list.size() > static_cast<std::size_t>(spec.maxCount))
                throw bad();
            start = comma + 1;
        }
        if (out.list.size() < static_cast<std::size_t>(spec.minCount))
            throw bad();
        break;
    }
    case ParamType::Choice:
        if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end())
            throw bad();
        out.text = std::string(text);
        break;
    }
    return out;
}

PolicySpec splitPolicySpec(std::string_view text, const std::string& where)
{
    PolicySpec spec;
    const std::size_t colon = text.find(':');
    spec.name = std::string(text.substr(0, colon));
    if (spec.name.empty())
        throw Error("", where, fmt::format("expected a policy name such as \"fifo\", got {}", quoted(text)));
    if (colon == std::string_view::npos)
        return spec;
    std::size_t start = colon + 1;
    while (start <= text.size()) {
        const std::size_t next = std::min(text.find(':', start), text.size());
        const std::string_view item = text.substr(start, next - start);
        const std::size_t eq = item.find('=');
        if (eq == std::string_view::npos || eq == 0)
            throw Error("", where,
                        fmt::format("policy {}: expected parameters as name=value separated by ':', got {}", spec.name,
                                    quoted(item)));
        std::string key(item.substr(0, eq));
        for (const auto& [k, v] : spec.params)
            if (k == key)
                throw Error("", where, fmt::format("policy {}: parameter {} given twice", spec.name, key));
        spec.params.emplace_back(std::move(key), std::string(item.substr(eq + 1)));
        start = next + 1;
    }
    return spec;
}

void PolicyParams::set(std::string name, ParamValue value, bool given)
{
    for (auto& e : m_entries)
        if (e.name == name) {
            e.value = std::move(value);
            e.given = given;
            return;
        }
    m_entries.push_back({std::move(name), std::move(value), given});
}

const PolicyParams::Entry& PolicyParams::at(std::string_view name) const
{
    for (const auto& e : m_entries)
        if (e.name == name)
            return e;
    // A policy asking for a parameter its own schema lacks is a programming error, not bad input.
    throw std::logic_error(fmt::format("policy parameter \"{}\" is not in the policy's schema", name));
}

double PolicyParams::number(std::string_view name) const
{
    return at(name).value.number;
}
long long PolicyParams::integer(std::string_view name) const
{
    return static_cast<long long>(at(name).value.number);
}
bool PolicyParams::boolean(std::string_view name) const
{
    return at(name).value.flag;
}
const std::vector<double>& PolicyParams::numbers(std::string_view name) const
{
    return at(name).value.list;
}
const std::string& PolicyParams::choice(std::string_view name) const
{
    return at(name).value.text;
}
bool PolicyParams::has(std::string_view name) const
{
    return std::any_of(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.name == name; });
}
bool PolicyParams::given(std::string_view name) const
{
    return std::any_of(m_entries.begin(), m_entries.end(), [&](const Entry& e) { return e.name == name && e.given; });
}

} // namespace orrery::sched
