#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace orrery::store {

class Connection;

/*
 * A store's sweeps (schema version 8, docs/database.md "Sweeps"): the `sweeps` table (one row per sweep name: its
 * axis names in order and its spec) and the `sweep_points` tags that make runs points of a sweep. The tags are
 * written by RunStore::beginRun with the run (RunInfo::sweep).
 */

/** Records (or updates, when the spec changed) a sweep's axis names (a JSON array) and spec text. */
void saveSweep(Connection& db, const std::string& name, const std::string& axesJson, const std::string& specJson);

/** Keys of the sweep's points stored `completed`: what a resumed sweep does not run again. */
std::unordered_set<std::string> completedPointKeys(Connection& db, const std::string& sweep);

/** Names of the sweeps in the store, in name order (tags without a `sweeps` row included). */
std::vector<std::string> sweepNames(Connection& db);

/** The sweep's axis names in order; empty when the store has no row for it. */
std::vector<std::string> sweepAxes(Connection& db, const std::string& sweep);

/** One point of a sweep as stored: its best run (the latest completed, else the latest of any status). */
struct SweepPointRow
{
    std::int64_t runId = 0;
    std::string pointKey;
    std::string axesJson;
    std::string policy;
    std::uint64_t seed = 0;
    std::string status;
    std::string error;
    int attempts = 0; ///< runs stored for this key (a failed or cancelled try, then a completed one: 2)
    std::optional<int> jobCount;
    std::optional<int> finishedJobCount;
    std::optional<double> avgJctS;
    std::optional<double> makespanS;
    std::optional<double> costUsd;
    std::optional<double> simWallS;
};

/** Every point of `sweep` in the store, in the order of their best runs' ids. */
std::vector<SweepPointRow> sweepPoints(Connection& db, const std::string& sweep);

} // namespace orrery::store
