#include "sweep/sweep_spec.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace orrery::sweep {

namespace {

using nlohmann::json;

struct KindName
{
    AxisKind kind;
    const char* name;
};

constexpr KindName kKinds[] = {
    {AxisKind::Policy, "policy"},
    {AxisKind::Seed, "seed"},
    {AxisKind::NodeCount, "node_count"},
    {AxisKind::ScaleNodes, "scale_nodes"},
    {AxisKind::GpuType, "gpu_type"},
    {AxisKind::AddNodes, "add_nodes"},
    {AxisKind::ArrivalRateScale, "arrival_rate_scale"},
    {AxisKind::JobLimit, "job_limit"},
    {AxisKind::ModelMix, "model_mix"},
    {AxisKind::EstimateError, "estimate_error"},
};

// Largest count a value may ask for; the scenario reader then applies its own limits (docs/scenario-format.md).
constexpr long long kMaxCount = 2000000;

/** Checks one axis value's form; `where` is its JSON path. */
void checkValue(const Axis& axis, const json& v, const std::string& where)
{
    const auto fail = [&](const std::string& expected) {
        throw Error("", where,
                    fmt::format("axis \"{}\": expected {}, got {}", axis.name, expected, io::describeJson(v)));
    };
    const auto integer = [&](long long lo, long long hi, const std::string& expected) {
        if (!v.is_number_integer() &&
            !(v.is_number_float() && v.get<double>() == static_cast<long long>(v.get<double>())))
            fail(expected);
        const double d = v.get<double>();
        if (d < static_cast<double>(lo) || d > static_cast<double>(hi))
            fail(expected);
    };
    switch (axis.kind) {
    case AxisKind::Policy:
        if (!v.is_string() && !v.is_object())
            fail("a policy spec (\"tiresias:backfill_limit=0\") or {\"name\", \"params\"}");
        break;
    case AxisKind::Seed:
        if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<long long>() >= 0))
            fail("a seed, an integer from 0 to 9223372036854775807");
        if (v.is_number_unsigned() && v.get<std::uint64_t>() > 9223372036854775807ULL)
            fail("a seed, an integer from 0 to 9223372036854775807");
        break;
    case AxisKind::NodeCount:
        integer(1, 100000, "a node count from 1 to 100000");
        break;
    case AxisKind::AddNodes:
        integer(0, 100000, "a number of nodes from 0 to 100000");
        break;
    case AxisKind::JobLimit:
        integer(1, kMaxCount, "a job count from 1 to 2000000");
        break;
    case AxisKind::ScaleNodes:
    case AxisKind::ArrivalRateScale:
        if (!v.is_number() || !(v.get<double>() > 0) || v.get<double>() > 1e6)
            fail("a positive factor (at most 1e6)");
        break;
    case AxisKind::GpuType:
        if (!v.is_string() || v.get<std::string>().empty())
            fail("a GPU type name (orrery-cli gpus)");
        break;
    case AxisKind::ModelMix:
        if (!v.is_array() || v.empty())
            fail("a generator mix: a non-empty array of {\"weight\", \"model\", \"batches\"} or {\"weight\", "
                 "\"gpus\"}");
        break;
    case AxisKind::EstimateError:
        if (v.is_string() && v.get<std::string>() == "none")
            break;
        if (!v.is_object())
            fail("\"none\" or {\"model\": \"uniform\" or \"lognormal\", \"scale\": S}");
        {
            io::JsonObject o(v, where);
            o.choice("model", {"none", "uniform", "lognormal"}, "none");
            o.nonNegativeNumber("scale", 0);
            o.finish();
        }
        break;
    }
}

Axis readAxis(const json& value, const std::string& path, bool valuesRequired)
{
    io::JsonObject o(value, path);
    Axis a;
    a.path = path;
    std::vector<std::string> names;
    for (const auto& k : kKinds)
        names.emplace_back(k.name);
    const std::string kind = o.choice("kind", names, "");
    if (kind.empty())
        o.fail("kind", "missing required field (one of " + fmt::format("{}", fmt::join(names, ", ")) + ")");
    for (const auto& k : kKinds)
        if (kind == k.name)
            a.kind = k.kind;
    switch (a.kind) {
    case AxisKind::NodeCount:
    case AxisKind::ScaleNodes:
    case AxisKind::GpuType:
        a.group = o.string("group");
        a.name = o.string("name", kind + ":" + a.group);
        break;
    case AxisKind::AddNodes:
        a.gpu = o.string("gpu");
        a.gpusPerNode = static_cast<int>(o.integer("gpus_per_node", 8, 1, 64));
        a.groupName = o.string("group", "added-" + a.gpu);
        a.name = o.string("name", kind + ":" + a.gpu);
        break;
    default:
        a.name = o.string("name", kind);
        break;
    }
    if (a.name.empty())
        o.fail("name", "expected a non-empty name");
    if (const json* values = o.member("values")) {
        if (!values->is_array() || values->empty())
            o.fail("values", "expected a non-empty array, got " + io::describeJson(*values));
        const std::string vpath = o.childPath("values");
        for (std::size_t i = 0; i < values->size(); ++i) {
            checkValue(a, (*values)[i], io::indexPath(vpath, i));
            for (std::size_t j = 0; j < i; ++j)
                if ((*values)[j] == (*values)[i])
                    throw Error("", io::indexPath(vpath, i),
                                fmt::format("axis \"{}\": value {} is listed twice (also at {})", a.name,
                                            io::describeJson((*values)[i]), io::indexPath(vpath, j)));
            a.values.push_back((*values)[i]);
        }
    } else if (valuesRequired) {
        o.fail("values", "missing required field (a grid needs the values of every axis)");
    }
    o.finish();
    return a;
}

SweepSpec parse(const json& doc)
{
    io::JsonObject o(doc, "");
    SweepSpec s;
    s.document = doc;
    if (o.string("format") != "orrery-sweep")
        o.fail("format", "expected \"orrery-sweep\"");
    const long long version = o.integer("version", 1, 2147483647);
    if (version > kSweepSpecVersion)
        o.fail("version",
               fmt::format("sweep spec version {} is newer than this Orrery reads ({})", version, kSweepSpecVersion));
    s.name = o.string("name");
    if (s.name.empty())
        o.fail("name", "expected a non-empty name (it identifies the sweep's runs in a store)");
    s.description = o.string("description", "");
    s.scenario = o.string("scenario", "default");
    if (s.scenario.empty())
        o.fail("scenario", "expected \"default\" or a scenario file's path");
    s.explicitPoints = o.has("points");
    const json& axes = o.array("axes");
    std::set<std::string> names;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        Axis a = readAxis(axes[i], io::indexPath("axes", i), !s.explicitPoints);
        if (!names.insert(a.name).second)
            throw Error("", io::indexPath("axes", i) + ".name",
                        fmt::format("two axes are named \"{}\"; give one a \"name\" of its own", a.name));
        s.axes.push_back(std::move(a));
    }
    const auto countKind = [&](AxisKind k) {
        return std::count_if(s.axes.begin(), s.axes.end(), [k](const Axis& a) { return a.kind == k; });
    };
    // Two axes setting the same thing would make one of them meaningless for half the grid.
    for (AxisKind k : {AxisKind::Policy, AxisKind::Seed, AxisKind::ArrivalRateScale, AxisKind::JobLimit,
                       AxisKind::ModelMix, AxisKind::EstimateError})
        if (countKind(k) > 1)
            o.fail("axes", fmt::format("more than one \"{}\" axis", toString(k)));
    for (std::size_t i = 0; i < s.axes.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (!s.axes[i].group.empty() && s.axes[i].group == s.axes[j].group)
                throw Error(
                    "", s.axes[i].path + ".group",
                    fmt::format("node group \"{}\" is already edited by axis \"{}\"", s.axes[i].group, s.axes[j].name));
    if (s.explicitPoints) {
        const json& points = o.array("points");
        if (points.empty())
            o.fail("points", "expected at least one point");
        for (std::size_t i = 0; i < points.size(); ++i) {
            const std::string path = io::indexPath("points", i);
            if (!points[i].is_object())
                throw Error("", path, "expected an object of axis name -> value, got " + io::describeJson(points[i]));
            std::map<std::string, json> point;
            for (auto it = points[i].begin(); it != points[i].end(); ++it) {
                const auto axis =
                    std::find_if(s.axes.begin(), s.axes.end(), [&](const Axis& a) { return a.name == it.key(); });
                if (axis == s.axes.end()) {
                    std::vector<std::string> axisNames(names.begin(), names.end());
                    const std::string near = io::closestMatch(it.key(), axisNames);
                    throw Error("", path + "." + it.key(),
                                fmt::format("no axis is named \"{}\"{}", it.key(),
                                            near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near)));
                }
                checkValue(*axis, it.value(), path + "." + it.key());
                point[it.key()] = it.value();
            }
            s.points.push_back(std::move(point));
        }
    }
    o.finish();
    return s;
}

} // namespace

const char* toString(AxisKind kind)
{
    for (const auto& k : kKinds)
        if (k.kind == kind)
            return k.name;
    return "policy";
}

std::string SweepSpec::scenarioPath() const
{
    if (scenario == "default" || scenario.front() == '/' || sourcePath.empty())
        return scenario;
    const auto slash = sourcePath.find_last_of('/');
    return slash == std::string::npos ? scenario : sourcePath.substr(0, slash + 1) + scenario;
}

SweepSpec parseSweepSpec(const json& doc, const std::string& fileLabel)
{
    try {
        SweepSpec s = parse(doc);
        s.fileLabel = fileLabel;
        return s;
    } catch (const Error& e) {
        throw e.inFile(fileLabel);
    }
}

SweepSpec loadSweepSpec(const std::string& path)
{
    const std::string label = util::baseName(path);
    SweepSpec s = parseSweepSpec(io::parseJson(util::readFile(path), label), label);
    s.sourcePath = path;
    return s;
}

} // namespace orrery::sweep
