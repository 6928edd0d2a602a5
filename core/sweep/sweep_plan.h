#pragma once

#include "io/scenario.h"
#include "sweep/sweep_spec.h"
#include "sweep/workload_edits.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace orrery::sweep {

/** The base scenario with one combination of a sweep's scenario edits applied. */
struct ResolvedScenario
{
    io::Scenario scenario; ///< cluster, workload and options edits applied (and checked by the scenario reader)
    WorkloadEdits edits;   ///< the edits applied to its expanded jobs
    std::string text;      ///< scenarioToJsonText(scenario): what the store keeps and the point key hashes
    /** Identifies the prepared workload: equal for points that may share one (the seed left out when no
     *  generator draws with it). */
    std::string workloadKey;
    /** FNV-1a 64 of the point key's text up to the policy (its scenario part: ~10 KB for the default scenario, hashed
     *  once rather than per point); set by resolveSweep. */
    std::uint64_t keyPrefixHash = 0;
};

/** One simulation of a sweep. */
struct SweepPoint
{
    std::size_t index = 0; ///< in SweepPlan::points
    /** 16 hex digits: FNV-1a 64 of the resolved scenario, the workload edits, the canonical policy label (which
     *  carries the parameters) and the seed. Equal keys, equal runs: what a resumed sweep skips. */
    std::string key;
    nlohmann::json axes; ///< axis name -> value (policies by canonical label); axes a point leaves out are absent
    std::shared_ptr<const ResolvedScenario> scenario;
    std::string policy; ///< canonical label
    std::uint64_t seed = 0;
};

/** A spec resolved against its base scenario: every point, checked, in order. */
struct SweepPlan
{
    SweepSpec spec;
    std::vector<Axis> axes; ///< the spec's axes, plus an implicit "policy" axis over the scenario's policies
    std::vector<SweepPoint> points;
    std::size_t scenarioCount = 0; ///< distinct resolved scenarios
    std::size_t workloadCount = 0; ///< distinct prepared workloads

    std::vector<std::string> axisNames() const;
};

/**
 * Resolves a spec: reads the base scenario, checks every axis value against it once (an error names the axis,
 * its JSON path in the spec and the value, e.g. `sweep.json: axes[1].values[2]: axis "gpu_type:rtx" = "h200x":
 * ...`), then enumerates the points: the grid (first axis slowest, last fastest) or the listed points, each
 * crossed with the implicit policy axis when the spec has none. Points that resolve to the same run (equal keys)
 * are an error naming both.
 */
SweepPlan resolveSweep(const SweepSpec& spec);

/** The key of a run of `scenario` under `policy` (canonical label) with `seed`. */
std::string pointKey(const ResolvedScenario& scenario, const std::string& policy, std::uint64_t seed);

} // namespace orrery::sweep
