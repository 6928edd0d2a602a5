#pragma once

// The inputs of one serving run (docs/serving.md, "Serving runs"): the models, the cluster, the traffic, the SLO and
// the placement method, in one value that the CLI, the GUI's Serving panel and the run store share. prepareServing
// turns it into the problem and the requests that core/serve's algorithms take.

#include "serve/arrivals.h"
#include "serve/placement.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace orrery::serve {

/** Placement methods: AlpaServe (Algorithms 1-2) and the two baselines of §6.2. */
inline constexpr const char* kMethodAlpaServe = "alpaserve";
inline constexpr const char* kMethodSelectiveReplication = "sr";
inline constexpr const char* kMethodClockwork = "clockwork++";
/** The placement variants of the §6.6 ablation (ablation_placement.h): 4-stage pipelines, models dealt round-robin
 * or placed by Algorithm 1 alone. */
inline constexpr const char* kMethodRoundRobin = "round-robin";
inline constexpr const char* kMethodGreedy = "greedy";
/** Not a method: `serve simulate` of a placement given as a file (stored runs say so). */
inline constexpr const char* kMethodGiven = "given";

/** alpaserve, sr, clockwork++: AlpaServe and the baselines of §6.2. */
const std::vector<std::string>& placementMethods();
/** round-robin, greedy: the ablation's variants (§6.6), run like the others but not offered beside them. */
const std::vector<std::string>& ablationMethods();
/** "AlpaServe", "Selective Replication", "Clockwork++", the ablation's (and "given placement"). */
std::string methodTitle(const std::string& method);

using ModelCounts = std::vector<std::pair<std::string, int>>;

/** The model sets of Table 1 by name (S1 ... S4, any case); nullopt for another name. */
std::optional<ModelCounts> modelSet(const std::string& name);
/** `bert-1.3b:32,moe-2.4b:10`, as `serve --models` takes them. */
std::string modelCountsText(const ModelCounts& counts);

struct ServingSpec
{
    std::string modelSet; ///< S1 ... S4 when the models are a set of Table 1 (then `models` is that set)
    ModelCounts models;   ///< library model -> instances
    std::string library;  ///< a serving library file; empty: the built-in Table 1 models
    std::string gpu = "v100-16gb";
    int gpus = 64;
    double memoryBudgetGB = 0; ///< 0: the GPU's memory
    bool calibrate = true;
    // Gamma traffic
    double ratePerS = 20;
    double cv = 3;
    double powerLaw = 0;
    double durationS = 600;
    std::uint64_t seed = 1;
    // Or a MAF1 trace (then the Gamma traffic's rate, cv, power law and duration are not used)
    std::string trace;
    int windowMin = 60;
    double rateScale = 1;
    double cvScale = 1;
    double sloScale = 5;
    /** Largest batch of the §6.5 batching runtime; 1: no batching (the paper's main results). */
    int maxBatch = 1;
    /** false: the equal-layer split of the §6.6 ablation instead of the stage DP. */
    bool autoPartition = true;
    // The method and its settings
    std::string method = kMethodAlpaServe;
    int beam = 1;
    double fastAbove = 2e7;
    int maxBuckets = 2;
    double windowS = 60;       ///< Clockwork++'s window for Gamma traffic (a trace's own window otherwise)
    std::string placementFile; ///< kMethodGiven: the file it came from (a label, not read again)

    bool usesTrace() const { return !trace.empty(); }
};

/** The spec as a JSON object (the store's `serving_runs.spec`); every field, so that it reloads identically. */
nlohmann::json servingSpecToJson(const ServingSpec& spec);
/** Strict: unknown keys and bad values are errors naming `file` and the JSON path. */
ServingSpec servingSpecFromJson(const nlohmann::json& doc, const std::string& file);

/** What the algorithms take. Not movable once made: the problem is pointed to by the caches built on it. */
struct ServingSetup
{
    ServingProblem problem;
    Workload workload;
    std::vector<std::vector<GammaProcess>> windows; ///< of a trace; empty for Gamma traffic
    double windowS = 0;                             ///< of a trace; 0 for Gamma traffic
    /** Clockwork++'s window: the trace's when there is one, else the spec's. */
    double clockworkWindowS(const ServingSpec& spec) const { return windowS > 0 ? windowS : spec.windowS; }
};

/**
 * The problem and the requests of `spec`: the models from the library, the GPU type from the built-in catalog, the
 * arrivals drawn (or the trace read and its windows fitted). Errors name the spec's field (`slo_scale`, `models`).
 */
std::unique_ptr<ServingSetup> prepareServing(const ServingSpec& spec);

} // namespace orrery::serve
