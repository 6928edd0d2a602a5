#pragma once

#include "metrics/metrics.h"
#include "store/sweep_records.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace orrery::store {
class RunStore;
}

namespace orrery::sweep {

/** A sweep of a store at a glance (the GUI's Sweeps list). */
struct SweepOverview
{
    std::string name;
    std::vector<std::string> axes; ///< in the spec's order (from the `sweeps` row, else the points' axis keys)
    std::size_t completed = 0;     ///< points whose best run is completed
    std::size_t stored = 0;        ///< points with any run (completed, failed, cancelled, running)
    /** Points the stored spec makes; absent when the spec is not stored or its size needs a base scenario file
     *  that cannot be read here (a spec without a policy axis over a scenario file given by a relative path). */
    std::optional<std::size_t> total;
};

/** One point of a sweep with core's metrics of its best run (store::sweepPoints picks it). */
struct SweepPointMetrics
{
    store::SweepPointRow row;
    nlohmann::json axes = nlohmann::json::object(); ///< axis name -> value, parsed from row.axesJson
    /** metrics::summarize of the stored run; completed runs only. */
    std::optional<metrics::Summary> summary;
    /** The run's cluster's price per hour over the makespan (busy or idle), as the comparison view computes it. */
    std::optional<double> provisionedCostUsd;
};

/** Every point of a sweep with its metrics. */
struct SweepTable
{
    std::string sweep;
    std::vector<std::string> axes; ///< the sweep's axis names, then any other key a point's axes hold
    std::vector<SweepPointMetrics> points;
};

/**
 * How many points a spec makes, without resolving it: the grid's product (or the listed points), times the base
 * scenario's policies when no axis is a policy axis. The base scenario is read only then ("default" is the
 * embedded one); std::nullopt when it cannot be read.
 */
std::optional<std::size_t> plannedPointCount(const nlohmann::json& specDocument, const std::string& fileLabel);

/** Every sweep of the store, in name order. */
std::vector<SweepOverview> listSweeps(store::RunStore& store);

/**
 * Loads every stored point of `sweep` with its metrics: each completed run is read (what summarize needs) and
 * summarised by metrics::summarize (so mean and p95 JCT, utilisation and costs are the numbers `orrery-cli` and the
 * comparison view give). `onProgress(done, total)` after each point; a stop request ends the loading early with the
 * points loaded so far. Throws orrery::Error naming the store when no point of `sweep` is stored.
 */
SweepTable loadSweepTable(store::RunStore& store, const std::string& sweep, std::stop_token stop = {},
                          const std::function<void(std::size_t, std::size_t)>& onProgress = {});

} // namespace orrery::sweep
