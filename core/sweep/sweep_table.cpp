#include "sweep/sweep_table.h"

#include "io/error.h"
#include "io/scenario.h"
#include "store/run_store.h"
#include "store/sqlite.h"
#include "sweep/sweep_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>

namespace orrery::sweep {

std::optional<std::size_t> plannedPointCount(const nlohmann::json& specDocument, const std::string& fileLabel)
{
    SweepSpec spec;
    try {
        spec = parseSweepSpec(specDocument, fileLabel);
    } catch (const std::exception&) {
        return std::nullopt; // a spec a newer Orrery stored, say: its size is not known here
    }
    const bool policyAxis =
        std::any_of(spec.axes.begin(), spec.axes.end(), [](const Axis& a) { return a.kind == AxisKind::Policy; });
    std::size_t count = 1;
    if (spec.explicitPoints)
        count = spec.points.size();
    else
        for (const auto& a : spec.axes)
            count *= a.values.size();
    if (policyAxis)
        return count;
    // The implicit policy axis: every policy of the base scenario. A stored spec does not say where its file was,
    // so a relative scenario path is read from the working directory, if it is there at all.
    try {
        if (spec.scenario == "default")
            return count * io::defaultScenario().policies.size();
        if (!std::filesystem::exists(spec.scenario))
            return std::nullopt;
        return count * io::loadScenario(spec.scenario).policies.size();
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

namespace {

std::vector<std::string> axesOf(store::Connection& db, const std::string& sweep,
                                const std::vector<store::SweepPointRow>& rows, std::vector<nlohmann::json>* parsed)
{
    std::vector<std::string> axes = store::sweepAxes(db, sweep);
    for (const auto& r : rows) {
        auto j = nlohmann::json::parse(r.axesJson, nullptr, false);
        if (!j.is_object())
            j = nlohmann::json::object();
        for (const auto& [k, v] : j.items())
            if (std::find(axes.begin(), axes.end(), k) == axes.end())
                axes.push_back(k);
        if (parsed)
            parsed->push_back(std::move(j));
    }
    return axes;
}

} // namespace

std::vector<SweepOverview> listSweeps(store::RunStore& store)
{
    auto& db = store.connection();
    std::map<std::string, std::string> specs;
    {
        store::Statement s(db, "SELECT name, spec FROM sweeps");
        while (s.step())
            specs[s.columnText(0)] = s.columnText(1);
    }
    std::vector<SweepOverview> out;
    for (const auto& name : store::sweepNames(db)) {
        SweepOverview o;
        o.name = name;
        const auto rows = store::sweepPoints(db, name);
        o.axes = axesOf(db, name, rows, nullptr);
        o.stored = rows.size();
        o.completed = static_cast<std::size_t>(
            std::count_if(rows.begin(), rows.end(), [](const auto& r) { return r.status == "completed"; }));
        if (const auto it = specs.find(name); it != specs.end()) {
            const auto doc = nlohmann::json::parse(it->second, nullptr, false);
            if (!doc.is_discarded())
                o.total = plannedPointCount(doc, store.path() + ": sweep " + name);
        }
        out.push_back(std::move(o));
    }
    return out;
}

SweepTable loadSweepTable(store::RunStore& store, const std::string& sweep, std::stop_token stop,
                          const std::function<void(std::size_t, std::size_t)>& onProgress)
{
    auto& db = store.connection();
    SweepTable table;
    table.sweep = sweep;
    const auto rows = store::sweepPoints(db, sweep);
    if (rows.empty())
        throw Error(store.path(), "sweep", fmt::format("no point of a sweep \"{}\" is stored", sweep));
    std::vector<nlohmann::json> axes;
    table.axes = axesOf(db, sweep, rows, &axes);
    // Points of one resolved scenario share its cluster: its price is read once.
    std::map<std::int64_t, std::optional<double>> pricePerHour;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (stop.stop_requested())
            break;
        SweepPointMetrics p;
        p.row = rows[i];
        p.axes = std::move(axes[i]);
        if (p.row.status == "completed") {
            store::StoredRun run = store.loadRun(p.row.runId, store::RunStore::RunParts::ForSummary);
            p.summary = metrics::summarize(run.result);
            auto [it, fresh] = pricePerHour.try_emplace(run.record.scenarioId);
            if (fresh) {
                try {
                    it->second = io::parseScenarioText(store.scenarioJson(run.record.scenarioId),
                                                       fmt::format("run {}", p.row.runId))
                                     .cluster.priceUsdPerHour();
                } catch (const std::exception&) {
                    it->second.reset(); // a scenario this build cannot read: no provisioned cost
                }
            }
            if (it->second)
                p.provisionedCostUsd = *it->second * p.summary->makespanS / 3600.0;
        }
        table.points.push_back(std::move(p));
        if (onProgress)
            onProgress(i + 1, rows.size());
    }
    return table;
}

} // namespace orrery::sweep
