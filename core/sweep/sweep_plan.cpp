#include "sweep/sweep_plan.h"

#include "io/error.h"
#include "io/json_reader.h"
#include "io/scenario_options_reader.h"
#include "util/hash.h"
#include "util/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_map>

namespace orrery::sweep {

namespace {

using nlohmann::json;

/** A value of one axis as it takes part in a point, with where it was written (for errors). */
struct Setting
{
    const Axis* axis;
    const json* value;
    std::string path;
};

int groupIndex(const io::Scenario& base, const Axis& axis)
{
    const auto& groups = base.cluster.groups();
    for (std::size_t i = 0; i < groups.size(); ++i)
        if (groups[i].name == axis.group)
            return static_cast<int>(i);
    std::vector<std::string> names;
    for (const auto& g : groups)
        names.push_back(g.name);
    const std::string near = io::closestMatch(axis.group, names);
    throw Error("", axis.path + ".group",
                fmt::format("axis \"{}\": the scenario has no node group \"{}\"{} (its groups: {})", axis.name,
                            axis.group, near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near),
                            fmt::join(names, ", ")));
}

/** FNV-1a 64 of the point key's text up to the policy (ResolvedScenario::keyPrefixHash). */
std::uint64_t pointKeyPrefixHash(const ResolvedScenario& scenario)
{
    std::string text = "orrery-sweep-point 1\n";
    text += scenario.text;
    text += '\n';
    text += scenario.edits.toJson().dump();
    text += '\n';
    return util::fnv1a64(text);
}

/** Settings that change only the scenario's "options" member, or nothing of its document (workload edits). */
bool changesOptionsOnly(AxisKind kind)
{
    switch (kind) {
    case AxisKind::Policy:
    case AxisKind::Seed:
    case AxisKind::EstimateError:
    case AxisKind::ArrivalRateScale:
    case AxisKind::JobLimit:
        return true;
    case AxisKind::NodeCount:
    case AxisKind::ScaleNodes:
    case AxisKind::GpuType:
    case AxisKind::AddNodes:
    case AxisKind::ModelMix:
        return false;
    }
    return false;
}

/** The base scenario and what every resolution of it shares. */
struct Base
{
    const io::Scenario& scenario;
    const json& doc;
    /** scenarioToJsonText of the base with seed 0: the workload key of every point that changes only the seed. */
    std::string unseededText;
    /** The base's io::compactJobsText, which every scenario that changes only the options shares. */
    std::string jobsText;
};

/** Applies the non-policy settings to the base scenario's JSON and reads the result back, checked. */
std::shared_ptr<ResolvedScenario> applySettings(const Base& b, const std::vector<Setting>& settings)
{
    const io::Scenario& base = b.scenario;
    // Settings that touch only the options (a seed axis: hundreds of scenarios) re-read only the options against the
    // base (io::withOptions); reading the whole document again was nine tenths of resolving such a sweep.
    const bool optionsOnly = std::all_of(settings.begin(), settings.end(),
                                         [](const Setting& s) { return changesOptionsOnly(s.axis->kind); });
    json doc = optionsOnly ? json::object() : b.doc;
    if (optionsOnly)
        doc["options"] = b.doc.contains("options") ? b.doc["options"] : json::object();
    auto r = std::make_shared<ResolvedScenario>();
    for (const auto& s : settings) {
        const Axis& a = *s.axis;
        const json& v = *s.value;
        switch (a.kind) {
        case AxisKind::Policy:
            break;
        case AxisKind::Seed:
            doc["options"]["seed"] = v;
            break;
        case AxisKind::NodeCount:
            doc["cluster"]["nodes"][static_cast<std::size_t>(groupIndex(base, a))]["count"] = v.get<long long>();
            break;
        case AxisKind::ScaleNodes: {
            const int g = groupIndex(base, a);
            const double count = base.cluster.groups()[static_cast<std::size_t>(g)].count * v.get<double>();
            doc["cluster"]["nodes"][static_cast<std::size_t>(g)]["count"] =
                std::max(1LL, static_cast<long long>(std::llround(count)));
            break;
        }
        case AxisKind::GpuType:
            doc["cluster"]["nodes"][static_cast<std::size_t>(groupIndex(base, a))]["gpu"] = v;
            break;
        case AxisKind::AddNodes:
            if (v.get<long long>() > 0) {
                for (const auto& g : base.cluster.groups())
                    if (g.name == a.groupName)
                        throw Error("", a.path + ".group",
                                    fmt::format("axis \"{}\": the scenario already has a node group \"{}\"; name the "
                                                "added group otherwise (\"group\")",
                                                a.name, a.groupName));
                doc["cluster"]["nodes"].push_back({{"name", a.groupName},
                                                   {"gpu", a.gpu},
                                                   {"count", v.get<long long>()},
                                                   {"gpus_per_node", a.gpusPerNode}});
            }
            break;
        case AxisKind::ArrivalRateScale:
            r->edits.arrivalRateScale = v.get<double>();
            break;
        case AxisKind::JobLimit:
            r->edits.jobLimit = v.get<long long>();
            break;
        case AxisKind::ModelMix:
            if (!doc.contains("workload") || !doc["workload"].contains("generator"))
                throw Error(
                    "", s.path,
                    fmt::format("axis \"{}\": the scenario has no workload.generator whose mix it could set", a.name));
            doc["workload"]["generator"]["mix"] = v;
            break;
        case AxisKind::EstimateError:
            if (v.is_string()) {
                doc["options"]["estimate_error"] = "none";
                doc["options"].erase("estimate_error_scale");
            } else {
                doc["options"]["estimate_error"] = v.value("model", std::string("none"));
                doc["options"]["estimate_error_scale"] = v.value("scale", 0.0);
                if (doc["options"]["estimate_error"] == "none")
                    doc["options"].erase("estimate_error_scale");
            }
            break;
        }
    }
    const std::string label = base.sourcePath.empty() ? "default.json" : util::baseName(base.sourcePath);
    r->scenario = optionsOnly ? io::withOptions(base, doc["options"], label) : io::parseScenario(doc, label);
    r->scenario.sourcePath = base.sourcePath;
    // The jobs' text was most of the rest of resolving a seed axis: an options-only scenario has the base's jobs.
    r->text =
        optionsOnly ? io::scenarioToJsonTextWithJobs(r->scenario, b.jobsText) : io::scenarioToJsonText(r->scenario);
    // The seed reaches the jobs only through a generator without a seed of its own (io::loadJobs); elsewhere it is
    // the run's, and points that differ by it alone share one prepared workload.
    const auto& gen = r->scenario.workload.generator;
    const bool seedDrawsJobs = gen && !gen->seed;
    // Of those, every setting but an estimate error leaves the unseeded scenario the base's.
    const bool seedOnly = optionsOnly && std::none_of(settings.begin(), settings.end(), [](const Setting& s) {
                              return s.axis->kind == AxisKind::EstimateError;
                          });
    if (seedDrawsJobs) {
        r->workloadKey = r->text;
    } else if (seedOnly) {
        r->workloadKey = b.unseededText;
    } else {
        io::Scenario unseeded = r->scenario;
        unseeded.options.seed = 0;
        r->workloadKey = io::scenarioToJsonText(unseeded);
    }
    r->workloadKey += "\n" + r->edits.toJson().dump();
    r->keyPrefixHash = pointKeyPrefixHash(*r);
    return r;
}

std::string describeSetting(const Setting& s)
{
    return fmt::format("axis \"{}\" = {}", s.axis->name, io::describeJson(*s.value));
}

} // namespace

std::string pointKey(const ResolvedScenario& scenario, const std::string& policy, std::uint64_t seed)
{
    const std::string rest = policy + '\n' + std::to_string(seed);
    return fmt::format("{:016x}", util::fnv1a64(rest, scenario.keyPrefixHash));
}

std::vector<std::string> SweepPlan::axisNames() const
{
    std::vector<std::string> names;
    for (const auto& a : axes)
        names.push_back(a.name);
    return names;
}

SweepPlan resolveSweep(const SweepSpec& spec)
{
    SweepPlan plan;
    plan.spec = spec;
    const std::string label = spec.fileLabel.empty() ? std::string("sweep") : spec.fileLabel;
    const io::Scenario base = [&] {
        const std::string path = spec.scenarioPath();
        try {
            return path == "default" ? io::defaultScenario() : io::loadScenario(path);
        } catch (const Error& e) {
            throw Error(label, "scenario", fmt::format("the base scenario cannot be read: {}", e.what()));
        }
    }();
    const json baseDoc = io::scenarioToJson(base);
    const Base shared{base, baseDoc,
                      [&] {
                          io::Scenario unseeded = base;
                          unseeded.options.seed = 0;
                          return io::scenarioToJsonText(unseeded);
                      }(),
                      io::compactJobsText(base)};

    plan.axes = spec.axes;
    const bool implicitPolicy =
        std::none_of(plan.axes.begin(), plan.axes.end(), [](const Axis& a) { return a.kind == AxisKind::Policy; });
    if (implicitPolicy) {
        if (base.policies.empty())
            throw Error(label, "axes",
                        "the sweep has no \"policy\" axis and its scenario lists no policies: add a policy axis");
        Axis a;
        a.kind = AxisKind::Policy;
        a.name = "policy";
        a.path = "axes";
        for (const auto& p : base.policies)
            a.values.emplace_back(p);
        // The implicit axis takes a name of its own when "policy" is an axis of another kind.
        while (std::any_of(spec.axes.begin(), spec.axes.end(), [&](const Axis& x) { return x.name == a.name; }))
            a.name += "_";
        plan.axes.push_back(std::move(a));
    }
    const std::size_t nAxes = plan.axes.size();

    // Every value once against the base scenario, so that an error names the axis and value that cause it.
    // Policies are checked by the registry and replaced by their canonical label.
    std::map<std::pair<std::size_t, std::string>, std::string> policyLabels; // (axis, value dump) -> label
    std::map<std::pair<std::size_t, std::string>, std::shared_ptr<ResolvedScenario>> single;
    const auto check = [&](std::size_t ai, const json& value, const std::string& path) {
        const Axis& a = plan.axes[ai];
        const auto key = std::make_pair(ai, value.dump());
        try {
            if (a.kind == AxisKind::Policy) {
                if (!policyLabels.count(key))
                    policyLabels[key] = io::detail::readPolicy(value, path);
            } else if (!single.count(key)) {
                single[key] = applySettings(shared, {{&a, &value, path}});
            }
        } catch (const Error& e) {
            const std::string head = fmt::format("axis \"{}\" = {}", a.name, io::describeJson(value));
            // An error at a path inside the value (a policy's parameter) keeps it; others name the value.
            if (e.location() == path || e.location().starts_with(path + "."))
                throw Error(label, e.location(), head + ": " + e.message());
            throw Error(label, path, head + ": " + e.what());
        }
    };

    // Each combination: per axis the index of its value in `values` of the combination's source, or none.
    std::vector<std::vector<Setting>> combos;
    if (!spec.explicitPoints) {
        for (std::size_t ai = 0; ai < nAxes; ++ai)
            for (std::size_t vi = 0; vi < plan.axes[ai].values.size(); ++vi)
                check(ai, plan.axes[ai].values[vi],
                      ai < spec.axes.size() ? io::indexPath(plan.axes[ai].path + ".values", vi) : "scenario policies");
        std::size_t total = 1;
        for (const auto& a : plan.axes) {
            if (total > 10000000 / std::max<std::size_t>(a.values.size(), 1))
                throw Error(label, "axes", "the grid has more than 10,000,000 points; split the sweep");
            total *= a.values.size();
        }
        std::vector<std::size_t> digit(nAxes, 0);
        for (std::size_t n = 0; n < total; ++n) {
            std::vector<Setting> c;
            for (std::size_t ai = 0; ai < nAxes; ++ai) {
                const auto& a = plan.axes[ai];
                c.push_back(
                    {&a, &a.values[digit[ai]],
                     ai < spec.axes.size() ? io::indexPath(a.path + ".values", digit[ai]) : "scenario policies"});
            }
            combos.push_back(std::move(c));
            for (std::size_t ai = nAxes; ai-- > 0;) {
                if (++digit[ai] < plan.axes[ai].values.size())
                    break;
                digit[ai] = 0;
            }
        }
    } else {
        for (std::size_t pi = 0; pi < spec.points.size(); ++pi) {
            const std::string ppath = io::indexPath("points", pi);
            std::vector<Setting> c;
            for (std::size_t ai = 0; ai < spec.axes.size(); ++ai) {
                const auto it = spec.points[pi].find(plan.axes[ai].name);
                if (it == spec.points[pi].end())
                    continue;
                const std::string path = ppath + "." + it->first;
                check(ai, it->second, path);
                c.push_back({&plan.axes[ai], &it->second, path});
            }
            const bool hasPolicy =
                std::any_of(c.begin(), c.end(), [](const Setting& s) { return s.axis->kind == AxisKind::Policy; });
            if (implicitPolicy) {
                const auto& a = plan.axes.back();
                for (std::size_t vi = 0; vi < a.values.size(); ++vi) {
                    check(nAxes - 1, a.values[vi], "scenario policies");
                    auto withPolicy = c;
                    withPolicy.push_back({&a, &a.values[vi], "scenario policies"});
                    combos.push_back(std::move(withPolicy));
                }
            } else if (!hasPolicy) {
                throw Error(label, ppath, "the point names no policy (the sweep has a policy axis: give its value)");
            } else {
                combos.push_back(std::move(c));
            }
        }
    }

    // Combinations share their resolved scenario when their non-policy settings are equal.
    std::unordered_map<std::string, std::shared_ptr<const ResolvedScenario>> scenarios;
    std::unordered_map<std::string, std::size_t> workloads;
    std::unordered_map<std::string, std::size_t> keys;
    for (auto& c : combos) {
        SweepPoint p;
        p.index = plan.points.size();
        p.axes = json::object();
        std::vector<Setting> edits;
        std::string scenarioKey;
        for (const auto& s : c) {
            if (s.axis->kind == AxisKind::Policy) {
                const auto ai = static_cast<std::size_t>(s.axis - plan.axes.data());
                p.policy = policyLabels.at({ai, s.value->dump()});
                p.axes[s.axis->name] = p.policy;
            } else {
                edits.push_back(s);
                scenarioKey += s.axis->name + '\x1f' + s.value->dump() + '\x1e';
                p.axes[s.axis->name] = *s.value;
            }
        }
        auto& resolved = scenarios[scenarioKey];
        if (!resolved && edits.size() == 1) {
            // One edit: the scenario its value was checked with above (a seed axis alone makes one per value).
            const auto ai = static_cast<std::size_t>(edits.front().axis - plan.axes.data());
            resolved = single.at({ai, edits.front().value->dump()});
        }
        if (!resolved) {
            try {
                resolved = applySettings(shared, edits);
            } catch (const Error& e) {
                // Each value alone was fine: the combination is not (e.g. too many GPUs in all).
                std::vector<std::string> parts;
                for (const auto& s : edits)
                    parts.push_back(describeSetting(s));
                throw Error(
                    label, edits.empty() ? "points" : edits.front().path,
                    fmt::format("the point with {} is not a valid scenario: {}", fmt::join(parts, ", "), e.what()));
            }
        }
        p.scenario = resolved;
        p.seed = resolved->scenario.options.seed;
        p.key = pointKey(*resolved, p.policy, p.seed);
        workloads.emplace(resolved->workloadKey, workloads.size());
        const auto [at, inserted] = keys.emplace(p.key, p.index);
        if (!inserted)
            throw Error(label, spec.explicitPoints ? "points" : "axes",
                        fmt::format("points {} ({}) and {} ({}) are the same run (key {}); remove one", at->second,
                                    plan.points[at->second].axes.dump(), p.index, p.axes.dump(), p.key));
        plan.points.push_back(std::move(p));
    }
    plan.scenarioCount = scenarios.size();
    plan.workloadCount = workloads.size();
    return plan;
}

} // namespace orrery::sweep
