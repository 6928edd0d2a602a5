#pragma once

#include "hardware/gpu_layout.h"
#include "sim/run_result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace orrery::store {

enum class RunStatus { Running, Completed, Cancelled, Failed };

const char* toString(RunStatus status);
/** Throws orrery::Error for an unknown name. */
RunStatus runStatusFromString(const std::string& name);

/** What makes a run a point of a sweep (docs/sweeps.md): stored with the run, in the same transaction. */
struct SweepTag
{
    std::string sweep;    ///< the sweep's name
    std::string pointKey; ///< the point's key: a hash of its resolved scenario, policy, parameters and seed
    std::string axesJson; ///< the point's axis values, a JSON object keyed by axis name
};

/** What a caller knows when a run starts. */
struct RunInfo
{
    std::string scenarioName;
    std::string scenarioJson; ///< the scenario as run (normalised JSON); identical texts share one row
    std::string policy;
    std::string optionsJson = "{}"; ///< simulation options as JSON (round length, penalties, threads...)
    std::uint64_t seed = 0;
    std::vector<std::string> gpuTypes;         ///< names, in the order of UtilizationSample::busyByType
    std::vector<int> gpusByType;               ///< cluster size per type, in the order of gpuTypes
    std::vector<double> priceUsdPerHourByType; ///< per GPU, in the order of gpuTypes
    hardware::GpuLayout layout;                ///< node and type of every GPU
    std::optional<SweepTag> sweep;             ///< set for a sweep's points
};

/** The cluster part of a RunInfo (types, counts, prices, GPU layout): the cluster's types in order of first
 *  appearance, which is the order of a run's types (sim::PreparedWorkload). */
void setClusterOf(RunInfo& info, const hardware::Cluster& cluster);

/** A row of `runs`, with its scenario's name: what a run list shows. */
struct RunRecord
{
    std::int64_t id = 0;
    std::int64_t scenarioId = 0;
    std::string scenarioName;
    std::string scenarioHash;
    std::string policy;
    std::string optionsJson;
    std::uint64_t seed = 0;
    std::string orreryVersion;
    std::string startedAt;  ///< ISO 8601, UTC
    std::string finishedAt; ///< empty while running
    RunStatus status = RunStatus::Running;
    std::string error;
    int totalGpus = 0;
    std::vector<std::string> gpuTypes;
    // Summary, filled when the run ends (absent for interrupted runs).
    std::optional<int> jobCount;
    std::optional<int> finishedJobCount;
    std::optional<double> avgJctS;
    std::optional<double> makespanS;
    std::optional<double> costUsd;
    std::optional<double> simWallS;
    std::optional<std::int64_t> events;
};

/** Filters for listing runs; empty fields match everything. */
struct RunFilter
{
    std::string scenario; ///< scenario name, or a prefix of its content hash
    std::string policy;
    std::optional<RunStatus> status;
    int limit = 0; ///< 0: no limit
};

/** A run read back from the store. */
struct StoredRun
{
    RunRecord record;
    /**
     * Holds every job's record, except in an interrupted run: its writer stores a job once the job has
     * finished, so the jobs that had not are absent. Their places in result.jobs (job indices stay what
     * the intervals refer to) hold default records, and jobStored tells them apart.
     */
    sim::RunResult result;
    hardware::GpuLayout layout;
    std::vector<char> jobStored; ///< per result.jobs entry: 1 when the store holds the record
    bool partial = false;        ///< some job records are absent (the run did not end)
    std::size_t storedJobCount() const;
};

} // namespace orrery::store
