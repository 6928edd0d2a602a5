// Reading a scenario's "options" and "policies" members: estimate error, locality, policy specs
// (docs/scenario-format.md). Internal to the scenario reader (scenario_options_reader.h).
#include "io/scenario_options_reader.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_reader.h"
#include "io/limits.h"
#include "sched/registry.h"
#include "sim/estimate_error.h"
#include "sim/locality.h"
#include "sim/switch_cost.h"
#include "util/text.h"
#include "workload/model_library.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace orrery::io::detail {

using nlohmann::json;

// How far the estimates policies read are from the truth (docs/simulator.md, "Estimates versus truth").
void readEstimateError(JsonObject& oo, ScenarioOptions& op)
{
    op.estimateError = oo.choice("estimate_error", sim::estimateErrorModes(), op.estimateError);
    op.estimateErrorScale = oo.nonNegativeNumber("estimate_error_scale", op.estimateErrorScale);
    if (op.estimateError == "uniform" && op.estimateErrorScale >= 1)
        oo.fail("estimate_error_scale",
                fmt::format("a uniform error is a half-width below 1 (estimates must stay positive), got {}",
                            op.estimateErrorScale));
    if (op.estimateError == "lognormal" && op.estimateErrorScale > 5)
        oo.fail("estimate_error_scale",
                fmt::format("expected a log-normal sigma up to 5, got {}", op.estimateErrorScale));
    if (op.estimateError == "none" && op.estimateErrorScale != 0)
        oo.fail("estimate_error_scale", "needs \"estimate_error\": \"uniform\" or \"lognormal\"");
}

/**
 * `options.locality` (docs/simulator.md, "Locality"): a model name, or {"model", "classes", "model_classes",
 * "default_class"} for by_span, {"model", "table"} for measured. Class names and slowdowns are checked when
 * the workload is prepared (sim::LocalityModel), which also reads the table.
 */
LocalityOptions readLocality(const json& value, const std::string& path)
{
    const std::vector<std::string> models = {"uniform", "by_span", "measured"};
    LocalityOptions l;
    if (value.is_string()) {
        l.model = value.get<std::string>();
        if (std::find(models.begin(), models.end(), l.model) == models.end())
            throw Error("", path,
                        "expected uniform, by_span or measured (or an object with \"model\"), got \"" + l.model + "\"");
        if (l.model == "measured")
            throw Error("", path, "the measured model needs a table: {\"model\": \"measured\", \"table\": PATH}");
        return l;
    }
    JsonObject o(value, path);
    l.model = o.choice("model", models, "uniform");
    if (const json* classes = o.member("classes")) {
        if (l.model != "by_span")
            o.fail("classes", "only the by_span model takes classes");
        if (!classes->is_object())
            o.fail("classes", "expected an object of class: {node, rack, cluster}, got " + describeJson(*classes));
        for (const auto& item : classes->items()) {
            JsonObject c(item.value(), o.childPath("classes") + "." + item.key());
            std::array<double, 3> sl{};
            const char* spans[] = {"node", "rack", "cluster"};
            for (int k = 0; k < 3; ++k) {
                sl[static_cast<std::size_t>(k)] = c.positiveNumber(spans[k]);
                if (sl[static_cast<std::size_t>(k)] < 1)
                    c.fail(spans[k], fmt::format("expected a slowdown S >= 1 (iteration time over that in one "
                                                 "node's worth of ideal scaling), got {}",
                                                 sl[static_cast<std::size_t>(k)]));
            }
            if (sl[1] < sl[0] || sl[2] < sl[1])
                c.failHere("slowdowns must not fall as the span widens (node <= rack <= cluster)");
            c.finish();
            l.classes[item.key()] = sl;
        }
    }
    if (const json* map = o.member("model_classes")) {
        if (l.model != "by_span")
            o.fail("model_classes", "only the by_span model takes model_classes");
        if (!map->is_object())
            o.fail("model_classes", "expected an object of model: class, got " + describeJson(*map));
        JsonObject mo(*map, o.childPath("model_classes"));
        for (const auto& item : map->items()) {
            const std::string key = item.key();
            l.modelClasses[key] = mo.string(key);
        }
        mo.finish();
    }
    l.defaultClass = o.string("default_class", "");
    if (!l.defaultClass.empty() && l.model != "by_span")
        o.fail("default_class", "only the by_span model takes default_class");
    l.table = o.string("table", "");
    if (l.model == "measured" && l.table.empty())
        o.fail("table", "the measured model needs a table (a Chronus model_info.json, relative to the scenario)");
    if (l.model != "measured" && !l.table.empty())
        o.fail("table", "only the measured model takes a table");
    o.finish();
    // Unknown class names fail here rather than at run time, with their JSON path.
    std::map<std::string, int> known;
    for (const auto& c : sim::LocalityModel::builtinClasses())
        known[c.first] = 1;
    for (const auto& c : l.classes)
        known[c.first] = 1;
    for (const auto& [model, cls] : l.modelClasses)
        if (!known.count(cls))
            throw Error("", path + ".model_classes." + model, "unknown locality class \"" + cls + "\"");
    if (!l.defaultClass.empty() && !known.count(l.defaultClass))
        throw Error("", path + ".default_class", "unknown locality class \"" + l.defaultClass + "\"");
    return l;
}

/**
 * A `policies` entry: a spec string (`"tiresias"`, `"tiresias:backfill_limit=0"`) or
 * `{"name": "tiresias", "params": {"queue_thresholds_s": [3600, 36000]}}`. Checked against the policy's
 * parameter schema here, so `scenario check` refuses what `simulate` would; kept as the canonical label.
 */
std::string readPolicy(const json& entry, const std::string& path)
{
    if (entry.is_string())
        return sched::resolvePolicy(entry.get<std::string>(), path).label;
    if (!entry.is_object())
        throw Error("", path,
                    "expected a policy name such as \"fifo\" or {\"name\", \"params\"}, got " + describeJson(entry));
    JsonObject o(entry, path);
    const std::string name = o.string("name");
    if (name.find(':') != std::string::npos)
        o.fail("name", "expected a bare policy name (parameters go in \"params\"), got \"" + name + "\"");
    sched::policyInfo(name, o.childPath("name"));
    std::string spec = name;
    if (const json* params = o.member("params")) {
        if (!params->is_object())
            o.fail("params", "expected an object of parameter values, got " + describeJson(*params));
        JsonObject po(*params, o.childPath("params"));
        for (const auto& [key, value] : params->items()) {
            std::string text;
            if (value.is_boolean())
                text = value.get<bool>() ? "true" : "false";
            else if (value.is_number())
                text = fmt::format("{}", value.get<double>());
            else if (value.is_string())
                text = value.get<std::string>();
            else if (value.is_array()) {
                for (std::size_t i = 0; i < value.size(); ++i) {
                    if (!value[i].is_number())
                        throw Error("", indexPath(po.childPath(key), i),
                                    "expected a number, got " + describeJson(value[i]));
                    text += (i ? "," : "") + fmt::format("{}", value[i].get<double>());
                }
            } else
                po.fail(key,
                        "expected a number, a list of numbers, true/false or a string, got " + describeJson(value));
            // One parameter at a time, so an error carries the JSON path of the value that caused it.
            sched::resolvePolicy(name + ":" + key + "=" + text, po.childPath(key));
            spec += ":" + key + "=" + text;
        }
    }
    o.finish();
    return sched::resolvePolicy(spec, path).label;
}

void readOptions(JsonObject& oo, ScenarioOptions& op, const workload::ModelLibrary& models,
                 const hardware::GpuCatalog& catalog)
{
    op.seed = static_cast<std::uint64_t>(oo.integer("seed", 0, 0, limits::kMaxSeed));
    op.roundS = oo.positiveNumber("round_s", op.roundS);
    op.restartPenaltyS = oo.nonNegativeNumber("restart_penalty_s", op.restartPenaltyS);
    op.restartModel = oo.choice("restart_model", sim::restartModels(), op.restartModel);
    op.loadTimeS = oo.nonNegativeNumber("load_time_s", op.loadTimeS);
    if (const json* byModel = oo.member("restart_s_by_model")) {
        if (!byModel->is_object())
            oo.fail("restart_s_by_model", "expected an object of model name: seconds, got " + describeJson(*byModel));
        JsonObject bo(*byModel, oo.childPath("restart_s_by_model"));
        for (const auto& item : byModel->items()) {
            // A plain string, not a structured binding: clang 14 (the fuzz build) cannot capture those.
            const std::string name = item.key();
            if (!models.find(name))
                rethrowAt(bo, name, [&] { return models.at(name).name; });
            op.restartSByModel[models.at(name).name] = bo.nonNegativeNumber(name);
        }
    }
    op.crossNodeSlowdown = oo.positiveNumber("cross_node_slowdown", op.crossNodeSlowdown);
    if (op.crossNodeSlowdown > 1)
        oo.fail("cross_node_slowdown",
                fmt::format("expected a rate multiplier in (0, 1], got {}", op.crossNodeSlowdown));
    if (const json* loc = oo.member("locality"))
        op.locality = readLocality(*loc, oo.childPath("locality"));
    op.gavelCompat = oo.boolean("gavel_compat", false);
    readEstimateError(oo, op);
    op.throughputs = oo.string("throughputs", "");
    op.goodputProfiles = oo.string("goodput_profiles", "");
    op.referenceGpu = oo.string("reference_gpu", op.referenceGpu);
    if (!catalog.find(op.referenceGpu))
        rethrowAt(oo, "reference_gpu", [&] { return catalog.at(op.referenceGpu).name; });
    op.referenceGpu = catalog.at(op.referenceGpu).name;
    oo.finish();
}

} // namespace orrery::io::detail

namespace orrery::io {

Scenario withOptions(const Scenario& base, const nlohmann::json& options, const std::string& fileLabel)
{
    Scenario s = base;
    s.options = ScenarioOptions{};
    hardware::GpuCatalog catalog = hardware::GpuCatalog::builtin();
    for (const auto& t : base.customGpus)
        catalog.add(t);
    try {
        JsonObject oo(options, "options");
        detail::readOptions(oo, s.options, base.models(), catalog);
    } catch (const Error& e) {
        throw e.inFile(fileLabel);
    }
    return s;
}

} // namespace orrery::io
