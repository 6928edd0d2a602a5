#pragma once

#include "workload/job.h"
#include "workload/model_spec.h"

#include <optional>
#include <string>
#include <vector>

namespace orrery::workload {

/** A trace file to import when the scenario is loaded. */
struct TraceRef
{
    std::string format;       ///< gavel | openb | pai | helios | philly
    std::string path;         ///< relative to the scenario file
    std::optional<int> limit; ///< first N jobs
    std::string referenceGpu; ///< GPU type on which trace durations were measured

    bool operator==(const TraceRef&) const = default;
};

/** One class of synthetic jobs in a generator's mix. */
struct MixEntry
{
    double weight = 1.0;
    // serverless entries
    std::string model;
    std::vector<int> batches; ///< a batch drawn uniformly from these
    // fixed entries
    std::vector<int> gpus; ///< a GPU demand drawn uniformly from these

    bool operator==(const MixEntry&) const = default;
};

/** Poisson arrivals of a job mix; durations from an empirical distribution. */
struct GeneratorSpec
{
    int jobs = 100;
    double ratePerHour = 60;          ///< Poisson arrival rate; 0 = every job at t = 0
    std::optional<int> seed;          ///< defaults to the scenario seed
    std::string durations = "philly"; ///< `philly` (built-in empirical CDF) or a CSV path
    double minDurationS = 60;
    double maxDurationS = 7 * 86400.0;
    std::vector<MixEntry> mix;

    bool operator==(const GeneratorSpec&) const = default;
};

/**
 * Themis' hyper-parameter apps (NSDI'20, Workload 2's pattern; docs/scenario-format.md, `hyperband`): Poisson app
 * arrivals, each app a Hyperband search of n = 2..maxConfigs configurations run by successive halving, its model
 * drawn from the paper's Table 4 mix.
 */
struct HyperbandSpec
{
    int apps = 40;
    double appsPerHour = 30;          ///< Poisson app arrivals; 0 = every app at t = 0
    double budgetGpuHours = 4;        ///< mean serial GPU-hours per app (each app uniform in 0.5x..2x of it)
    int maxConfigs = 32;              ///< a power of two >= 2: configurations per app are 2^U{1..log2 maxConfigs}
    std::optional<int> seed;          ///< defaults to the scenario seed
    std::string referenceGpu = "k80"; ///< where the jobs' durations are measured
    std::string prefix = "a";         ///< apps are named prefix0, prefix1...; jobs prefix0-c0...
    /** Figure 15's knob: this fraction of the apps (rounded) gets a network-intensive model, the rest a
     *  compute-intensive one, instead of the Table 4 mix; unset keeps the mix. */
    std::optional<double> networkShare;

    bool operator==(const HyperbandSpec&) const = default;
};

/** Jobs to run: listed inline, imported from a trace, or generated. */
struct Workload
{
    std::vector<ModelSpec> customModels;
    std::vector<Job> jobs;
    std::optional<TraceRef> trace;
    std::optional<GeneratorSpec> generator;
    std::optional<HyperbandSpec> hyperband;

    bool operator==(const Workload&) const = default;
};

} // namespace orrery::workload
