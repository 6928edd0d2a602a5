#include "sweeps/sweep_draft.h"

#include "io/error.h"
#include "sched/registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>

namespace orrery::gui {

namespace {

using nlohmann::json;
using sweep::AxisKind;

// A range such as 0-99999 would make a grid nobody wants; the spec reader's own limits apply after this.
constexpr long long kMaxRangeValues = 10000;

std::string trim(const std::string& s)
{
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
        ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
        --b;
    return s.substr(a, b - a);
}

[[noreturn]] void fail(const std::string& field, const std::string& axis, const std::string& value,
                       const std::string& what)
{
    throw Error("", field, fmt::format("axis \"{}\" = \"{}\": {}", axis, value, what));
}

bool readInteger(const std::string& s, long long& out)
{
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
}

/** Integers and ranges `a-b` (inclusive), each a value of the axis. */
void integers(DraftAxis& axis, const std::string& text, const std::string& field)
{
    for (const auto& token : splitValues(text)) {
        long long v = 0;
        if (readInteger(token, v)) {
            axis.values.emplace_back(v);
            axis.labels.push_back(token);
            continue;
        }
        const auto dash = token.find('-', 1);
        long long lo = 0, hi = 0;
        if (dash == std::string::npos || !readInteger(token.substr(0, dash), lo) ||
            !readInteger(token.substr(dash + 1), hi))
            fail(field, axis.name, token, "expected an integer or a range such as 0-9");
        if (hi < lo || hi - lo >= kMaxRangeValues)
            fail(field, axis.name, token,
                 fmt::format("expected a range from low to high of at most {} values", kMaxRangeValues));
        for (long long i = lo; i <= hi; ++i) {
            axis.values.emplace_back(i);
            axis.labels.push_back(std::to_string(i));
        }
    }
}

/** Numbers: an integer stays an integer in the document (as a hand-written spec has it), others are doubles. */
void numbers(DraftAxis& axis, const std::string& text, const std::string& field)
{
    for (const auto& token : splitValues(text)) {
        long long i = 0;
        if (readInteger(token, i)) {
            axis.values.emplace_back(i);
        } else {
            char* end = nullptr;
            const double d = std::strtod(token.c_str(), &end);
            if (end != token.c_str() + token.size())
                fail(field, axis.name, token, "expected a number");
            axis.values.emplace_back(d);
        }
        axis.labels.push_back(token);
    }
}

void finish(DraftAxis& axis, const std::string& field, std::vector<DraftAxis>& out)
{
    if (axis.values.empty())
        throw Error("", field, fmt::format("axis \"{}\": give at least one value", axis.name));
    out.push_back(std::move(axis));
}

} // namespace

std::vector<std::string> splitValues(const std::string& text)
{
    std::vector<std::string> out;
    std::string token;
    for (const char c : text + ",") {
        if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
            if (!token.empty())
                out.push_back(std::move(token));
            token.clear();
        } else {
            token += c;
        }
    }
    return out;
}

std::vector<DraftAxis> draftAxes(const SweepDraft& d)
{
    std::vector<DraftAxis> out;
    for (std::size_t i = 0; i < d.clusterEdits.size(); ++i) {
        const auto& e = d.clusterEdits[i];
        const std::string field = fmt::format("cluster edit {}", i + 1);
        DraftAxis a;
        const std::string kind = sweep::toString(e.kind);
        if (e.target.empty())
            throw Error("", field,
                        e.kind == AxisKind::AddNodes ? "choose the GPU type of the nodes to add"
                                                     : "choose the node group to edit");
        a.axis = {{"kind", kind}};
        if (e.kind == AxisKind::AddNodes) {
            a.axis["gpu"] = e.target;
            a.axis["gpus_per_node"] = e.gpusPerNode;
        } else {
            a.axis["group"] = e.target;
        }
        a.name = kind + ":" + e.target;
        switch (e.kind) {
        case AxisKind::NodeCount:
        case AxisKind::AddNodes:
            integers(a, e.values, field);
            break;
        case AxisKind::ScaleNodes:
            numbers(a, e.values, field);
            break;
        case AxisKind::GpuType:
            for (const auto& token : splitValues(e.values)) {
                a.values.emplace_back(token);
                a.labels.push_back(token);
            }
            break;
        default:
            throw Error("", field, fmt::format("\"{}\" is not a cluster edit", kind));
        }
        finish(a, field, out);
    }
    if (!trim(d.arrivalRateScales).empty()) {
        DraftAxis a{"arrival_rate_scale", {{"kind", "arrival_rate_scale"}}, {}, {}};
        numbers(a, d.arrivalRateScales, "arrival-rate scale");
        finish(a, "arrival-rate scale", out);
    }
    if (!trim(d.jobLimits).empty()) {
        DraftAxis a{"job_limit", {{"kind", "job_limit"}}, {}, {}};
        integers(a, d.jobLimits, "job limit");
        finish(a, "job limit", out);
    }
    if (!trim(d.estimateErrors).empty()) {
        DraftAxis a{"estimate_error", {{"kind", "estimate_error"}}, {}, {}};
        for (const auto& token : splitValues(d.estimateErrors)) {
            if (token == "none") {
                a.values.emplace_back("none");
            } else {
                const auto colon = token.find(':');
                const std::string model = token.substr(0, colon);
                char* end = nullptr;
                const std::string scale = colon == std::string::npos ? "" : token.substr(colon + 1);
                const double s = std::strtod(scale.c_str(), &end);
                if ((model != "uniform" && model != "lognormal") || scale.empty() ||
                    end != scale.c_str() + scale.size())
                    fail("estimate error", a.name, token, "expected none, uniform:SCALE or lognormal:SCALE");
                long long i = 0;
                a.values.push_back(json{{"model", model}, {"scale", readInteger(scale, i) ? json(i) : json(s)}});
            }
            a.labels.push_back(token);
        }
        finish(a, "estimate error", out);
    }
    {
        DraftAxis a{"policy", {{"kind", "policy"}}, {}, {}};
        for (const auto& p : d.policies) {
            a.values.emplace_back(p);
            a.labels.push_back(p);
        }
        std::size_t line = 0, start = 0;
        const std::string& text = d.policyVariants;
        while (start <= text.size()) {
            const auto nl = text.find('\n', start);
            const std::string spec = trim(text.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
            ++line;
            start = nl == std::string::npos ? text.size() + 1 : nl + 1;
            if (spec.empty())
                continue;
            try {
                static_cast<void>(sched::resolvePolicy(spec, fmt::format("policy variants, line {}", line)));
            } catch (const Error& e) {
                throw Error("", e.location(), fmt::format("axis \"policy\" = \"{}\": {}", spec, e.message()));
            }
            a.values.emplace_back(spec);
            a.labels.push_back(spec);
        }
        // No policy at all: the spec has no policy axis and runs the scenario's policies (the reader's rule).
        if (!a.values.empty())
            out.push_back(std::move(a));
    }
    if (!trim(d.seeds).empty()) {
        DraftAxis a{"seed", {{"kind", "seed"}}, {}, {}};
        integers(a, d.seeds, "seeds");
        finish(a, "seeds", out);
    }
    return out;
}

json sweepSpecDocument(const SweepDraft& d)
{
    const auto axes = draftAxes(d);
    json doc = {{"format", "orrery-sweep"}, {"version", sweep::kSweepSpecVersion}, {"name", trim(d.name)}};
    if (!trim(d.description).empty())
        doc["description"] = trim(d.description);
    doc["scenario"] = d.scenario;
    json axesJson = json::array();
    for (const auto& a : axes) {
        json axis = a.axis;
        if (!d.explicitPoints)
            axis["values"] = a.values;
        axesJson.push_back(std::move(axis));
    }
    doc["axes"] = std::move(axesJson);
    if (d.explicitPoints) {
        json points = json::array();
        for (std::size_t i = 0; i < d.points.size(); ++i) {
            json point = json::object();
            for (const auto& [name, label] : d.points[i]) {
                const auto axis =
                    std::find_if(axes.begin(), axes.end(), [&](const DraftAxis& a) { return a.name == name; });
                const std::string where = fmt::format("point {}", i + 1);
                if (axis == axes.end())
                    throw Error("", where, fmt::format("no axis is named \"{}\"", name));
                const auto v = std::find(axis->labels.begin(), axis->labels.end(), label);
                if (v == axis->labels.end())
                    throw Error("", where,
                                fmt::format("axis \"{}\" = \"{}\": not one of the axis's values", name, label));
                point[name] = axis->values[static_cast<std::size_t>(v - axis->labels.begin())];
            }
            points.push_back(std::move(point));
        }
        doc["points"] = std::move(points);
    }
    return doc;
}

} // namespace orrery::gui
