#pragma once

#include "hardware/cluster.h"
#include "workload/model_library.h"
#include "workload/workload.h"

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace orrery::io {

inline constexpr int kScenarioVersion = 1;

/** How placement slows a job down (docs/simulator.md, "Locality"; sim/locality.h). */
struct LocalityOptions
{
    std::string model = "uniform"; ///< uniform (cross_node_slowdown), by_span, measured
    /// by_span: iteration-time slowdown S (>= 1) at span node, rack, cluster per class, over the built-in classes
    std::map<std::string, std::array<double, 3>> classes;
    std::map<std::string, std::string> modelClasses; ///< by_span: model -> class, over the built-in map
    std::string defaultClass;                        ///< by_span: class of unlisted models; empty = "default"
    std::string table;                               ///< measured: a Chronus model_info.json (path)

    bool operator==(const LocalityOptions&) const = default;
};

/** Simulation knobs. Defaults are Orrery's own; `gavelCompat` switches to Gavel's semantics. */
struct ScenarioOptions
{
    std::uint64_t seed = 0;
    double roundS = 360;         ///< lease length of round-based policies
    double restartPenaltyS = 30; ///< paid whenever a running job's allocation changes (restart_model constant)
    std::string restartModel = "constant";         ///< constant, chronus, unisched, by_model (sim/switch_cost.h)
    std::map<std::string, double> restartSByModel; ///< by_model: pause per model name
    double loadTimeS = 0;                          ///< paid once, at a job's first start
    double crossNodeSlowdown = 0.9;                ///< rate multiplier for a job spread over several nodes
    LocalityOptions locality;                      ///< replaces crossNodeSlowdown unless "uniform"
    bool gavelCompat = false;
    std::string throughputs;     ///< Gavel-format throughput table (path, relative to the scenario)
    std::string goodputProfiles; ///< goodput jobs' profile directory (sia/profiles), relative to the scenario
    std::string referenceGpu = "v100-16gb"; ///< where trace durations were measured
    std::string estimateError = "none";     ///< none, uniform, lognormal: what policies' estimates miss by
    double estimateErrorScale = 0;          ///< uniform: half-width (0.2 = +-20%); lognormal: sigma

    bool operator==(const ScenarioOptions&) const = default;
};

/** A what-if: a cluster, a workload, the policies to compare, and options. */
struct Scenario
{
    std::string name;
    std::string description;
    std::vector<hardware::GpuType> customGpus;
    hardware::Cluster cluster; ///< built against the catalog plus customGpus
    workload::Workload workload;
    std::vector<std::string> policies;
    ScenarioOptions options;

    std::string sourcePath; ///< where it was loaded from (not saved); resolves relative paths

    /** The built-in model library plus the scenario's custom models. */
    workload::ModelLibrary models() const;
    /** A path from the scenario, resolved against the scenario's directory. */
    std::string resolvePath(const std::string& path) const;
};

/**
 * Parses and validates a scenario. Every error is an orrery::Error naming
 * `fileLabel`, the JSON path and what was expected. Trace references and
 * generators are validated, not expanded (see workload import).
 */
Scenario parseScenario(const nlohmann::json& doc, const std::string& fileLabel);
/**
 * `base` with its "options" member replaced by `options` and read as parseScenario reads it: what parsing base's
 * document with that member would give, without reading the cluster and the workload again (a sweep's seed axis
 * resolves hundreds of scenarios that differ only there). Errors as parseScenario's.
 */
Scenario withOptions(const Scenario& base, const nlohmann::json& options, const std::string& fileLabel);
Scenario parseScenarioText(const std::string& text, const std::string& fileLabel);
Scenario loadScenario(const std::string& path);
/** The scenario embedded in the binaries (data/scenarios/default.json). */
Scenario defaultScenario();

nlohmann::json scenarioToJson(const Scenario& scenario);
/** The "options" member of scenarioToJson(). */
nlohmann::json scenarioOptionsToJson(const ScenarioOptions& options);
/**
 * scenarioToJson(scenario).dump(indent), byte for byte, about 3x faster on large workloads (the
 * jobs are written as text, not built as a tree): the run store keeps and hashes the compact text
 * of every run's scenario, and saveScenario() writes the indented one.
 */
std::string scenarioToJsonText(const Scenario& scenario, int indent = -1);
/** The compact jobs part of scenarioToJsonText(scenario): the elements of its "jobs" array, comma-separated. */
std::string compactJobsText(const Scenario& scenario);
/**
 * scenarioToJsonText(scenario) given compactJobsText of its jobs, computed once for scenarios that share them (a
 * sweep's points that differ only in their options).
 */
std::string scenarioToJsonTextWithJobs(const Scenario& scenario, std::string_view jobsText);
/** Writes atomically (temp file + rename). */
void saveScenario(const Scenario& scenario, const std::string& path);

} // namespace orrery::io
