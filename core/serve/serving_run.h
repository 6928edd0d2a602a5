#pragma once

// One serving run as Orrery keeps it (docs/serving.md, "Serving runs"; docs/database.md, "Serving runs"): its inputs
// (a ServingSpec), the placement it chose (device groups with their parallel configuration, the model replicas on
// each; one placement per re-placement for Clockwork++) and what the request simulator measured on it (SLO
// attainment overall and per model, latency percentiles, the latency CDF). The CLI's `serve place|simulate --db`,
// the GUI's Serving panel and the run store all use this one value.

#include "serve/serving_metrics.h"
#include "serve/serving_spec.h"
#include "util/progress.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace orrery::serve {

/** Points of the latency CDF a run keeps: enough for a smooth curve, a few kilobytes in the store. */
inline constexpr int kStoredCdfPoints = 200;

/** One device group of a run's placement. */
struct RunGroup
{
    int segment = 0; ///< Clockwork++: the re-placement (two windows each) it belongs to; 0 otherwise
    ParallelConfig config;
    std::vector<std::string> models; ///< instance names (`bert-1.3b#0`), the group's replicas
    double utilisation = 0;          ///< busy stage-seconds over stages x span in its segment
};

/** One model instance's outcome. */
struct RunModel
{
    std::string name; ///< `bert-1.3b#0`
    std::string kind; ///< `bert-1.3b`
    double sloS = 0;
    long long requests = 0;
    long long served = 0;
    double attainment() const { return requests ? double(served) / double(requests) : 1.0; }
};

struct ServingRun
{
    // Set by the store (0 / empty until stored).
    std::int64_t id = 0;
    std::string uid;
    std::string createdAt;
    std::string orreryVersion;

    ServingSpec spec;
    std::vector<RunGroup> groups; ///< in segment, then group order
    int segments = 1;
    std::vector<RunModel> models;
    long long requests = 0;
    long long served = 0;
    long long rejected = 0;
    long long unplaced = 0; ///< part of rejected: requests for models no group hosts
    LatencySummary latency;
    std::vector<std::pair<double, double>> cdf; ///< (latency_s, fraction of served requests at most that)
    double searchS = 0;                         ///< wall seconds of the placement search (0 for a given placement)
    int simulations = 0;                        ///< of the search (the final simulation not counted)
    int candidates = 0;                         ///< (bucket, devices, group size, configuration) choices tried

    double attainment() const { return requests ? double(served) / double(requests) : 1.0; }
    /** The groups of one segment. */
    std::vector<RunGroup> segmentGroups(int segment) const;
};

/** What a method chose for a setup's traffic, before it is described as a run. */
struct ServingSearch
{
    std::vector<Placement> placements; ///< one, or one per Clockwork++ segment
    std::vector<SimResult> sims;       ///< each placement simulated on its traffic, with per-request latencies
    double searchS = 0;
    int simulations = 0;
    int candidates = 0;
};

/**
 * Runs `spec.method` (alpaserve, sr, clockwork++, or the ablation's round-robin and greedy) on the setup's problem
 * and traffic. `stopAt`: AlpaServe and SR end their search at the first placement reaching this attainment
 * (SearchOptions::stopAt; above 1: a full search).
 */
ServingSearch searchServing(const ServingSpec& spec, ServingSetup& setup, ProfileCache& cache,
                            const util::Progress* progress = nullptr, double stopAt = 2.0);

/**
 * Runs `spec.method` (alpaserve, sr or clockwork++) on the spec's problem and traffic and simulates the result with
 * per-request latencies. `progress` reports the search's fraction and stops it (orrery::Cancelled).
 */
ServingRun runServing(const ServingSpec& spec, const util::Progress* progress = nullptr);
/** The same on a setup already prepared from `spec`. */
ServingRun runServing(const ServingSpec& spec, ServingSetup& setup, const util::Progress* progress = nullptr);

/** A segment's groups as a Placement of `problem`'s instances (by name); Error for a name the problem lacks. */
Placement placementOf(const ServingRun& run, int segment, const ServingProblem& problem);

/**
 * A run from placements and their simulations (one per segment, simulated with recordLatencies), as runServing
 * describes it: groups with utilisation, per-model counts summed over segments, latencies over every served request.
 */
ServingRun describeServingRun(const ServingSpec& spec, ProfileCache& cache, const std::vector<Placement>& placements,
                              const std::vector<SimResult>& sims);

} // namespace orrery::serve
