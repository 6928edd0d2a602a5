#pragma once

#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orrery::sched {

enum class ParamType { Number, Integer, Boolean, NumberList, Choice };

/**
 * One tunable of a policy, as `orrery-cli policies --json` lists it. Values travel as text in a
 * policy spec (`tiresias:queue_thresholds_s=3600,36000`) and are checked against this schema before
 * a policy is made, so a run is a function of (scenario, policy, parameters, seed).
 */
struct ParamSpec
{
    std::string name;
    ParamType type = ParamType::Number;
    /** Canonical text of the default; empty for an optional parameter that falls back to a scenario option. */
    std::string defaultValue;
    double minimum = -std::numeric_limits<double>::infinity(); ///< Number, Integer, each NumberList element
    double maximum = std::numeric_limits<double>::infinity();
    std::vector<std::string> choices; ///< Choice only
    int minCount = 1;                 ///< NumberList element counts
    int maxCount = 16;
    bool increasing = false; ///< NumberList: strictly increasing
    std::string help;        ///< one line
};

/** A checked value; which member is meaningful follows the ParamSpec's type. */
struct ParamValue
{
    double number = 0; ///< Number, Integer
    bool flag = false;
    std::vector<double> list;
    std::string text; ///< Choice

    bool operator==(const ParamValue&) const = default;
};

std::string_view paramTypeName(ParamType type);
/** "3600,36000", "64", "true", "orrery": the form a spec and the run label use. */
std::string formatParamValue(const ParamSpec& spec, const ParamValue& value);
/**
 * Parses and range-checks `text` for `spec`. Throws orrery::Error at location `where` naming the
 * policy, the parameter and what is allowed.
 */
ParamValue parseParamValue(const ParamSpec& spec, std::string_view text, const std::string& policy,
                           const std::string& where);
/** "a number in [0, 1e+12]", "one of orrery, tiresias, pollux": for help and error messages. */
std::string describeAllowed(const ParamSpec& spec);

/** A policy spec as written, split but not checked: `name[:key=value]...`. */
struct PolicySpec
{
    std::string name;
    std::vector<std::pair<std::string, std::string>> params;
};
/** Splits `text`; throws orrery::Error at `where` for an empty name, a missing `=` or a key given twice. */
PolicySpec splitPolicySpec(std::string_view text, const std::string& where);

/** The checked parameters a policy is made from: every parameter of its schema, given or defaulted. */
class PolicyParams
{
public:
    void set(std::string name, ParamValue value, bool given);

    double number(std::string_view name) const;
    long long integer(std::string_view name) const;
    bool boolean(std::string_view name) const;
    const std::vector<double>& numbers(std::string_view name) const;
    const std::string& choice(std::string_view name) const;
    /** True when the parameter holds a value (optional ones hold none unless given). */
    bool has(std::string_view name) const;
    /** True when the spec named it (or a preset set it). */
    bool given(std::string_view name) const;

private:
    struct Entry
    {
        std::string name;
        ParamValue value;
        bool given = false;
    };
    const Entry& at(std::string_view name) const;
    std::vector<Entry> m_entries;
};

} // namespace orrery::sched
