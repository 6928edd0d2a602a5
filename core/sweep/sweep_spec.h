#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace orrery::sweep {

inline constexpr int kSweepSpecVersion = 1;

/** What an axis varies (docs/sweeps.md, "Axes"). */
enum class AxisKind {
    Policy,           ///< a policy spec, with parameters
    Seed,             ///< the scenario seed (generator draws, estimate errors) and the run seed
    NodeCount,        ///< a node group's node count
    ScaleNodes,       ///< a node group's node count times a factor, rounded, at least 1
    GpuType,          ///< a node group's GPU type
    AddNodes,         ///< N nodes of a GPU type added as a new group (0: none)
    ArrivalRateScale, ///< every arrival time divided by the factor (deadlines keep their distance to it)
    JobLimit,         ///< the N earliest jobs
    ModelMix,         ///< the generator's mix
    EstimateError,    ///< options.estimate_error and estimate_error_scale
};

const char* toString(AxisKind kind);

struct Axis
{
    AxisKind kind = AxisKind::Policy;
    std::string name;  ///< unique in the spec; default: the kind, with the group or GPU type for cluster edits
    std::string group; ///< NodeCount, ScaleNodes, GpuType: the node group's name
    // AddNodes: the nodes added
    std::string gpu;
    int gpusPerNode = 8;
    std::string groupName;              ///< name of the added group (default "added-<gpu>")
    std::vector<nlohmann::json> values; ///< as written (checked); empty in a points spec that lists none
    std::string path;                   ///< JSON path of the axis (`axes[2]`), for errors
};

/** A parsed sweep spec (docs/sweeps.md; schema data/sweep.schema.json). */
struct SweepSpec
{
    std::string name;
    std::string description;
    std::string scenario = "default"; ///< "default" or a path, relative to the spec file
    std::vector<Axis> axes;
    /** Explicit points (axis name -> value), each with its JSON path; empty: the full grid of the axes. */
    std::vector<std::map<std::string, nlohmann::json>> points;
    bool explicitPoints = false;

    std::string sourcePath;  ///< the spec file ("" for text given in memory)
    std::string fileLabel;   ///< how errors name it
    nlohmann::json document; ///< the spec as read (stored with the sweep's runs)

    /** The base scenario's path resolved against the spec's directory ("default" stays). */
    std::string scenarioPath() const;
};

/**
 * Parses a spec strictly (unknown keys, wrong types, values out of range and duplicate axis names or values are
 * orrery::Errors naming `fileLabel`, the JSON path and the value). Values are checked for their form here;
 * whether they fit the base scenario (a group that exists, a GPU type the catalog knows) is checked when the
 * points are resolved (resolveSweep), with the same kind of error.
 */
SweepSpec parseSweepSpec(const nlohmann::json& doc, const std::string& fileLabel);
SweepSpec loadSweepSpec(const std::string& path);

} // namespace orrery::sweep
