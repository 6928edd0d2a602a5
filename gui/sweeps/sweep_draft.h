#pragma once

#include "sweep/sweep_spec.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <vector>

namespace orrery::gui {

/** One cluster edit of the sweep builder: an axis over a node group or an added GPU type. */
struct ClusterEditDraft
{
    sweep::AxisKind kind = sweep::AxisKind::ScaleNodes; ///< NodeCount, ScaleNodes, GpuType or AddNodes
    std::string target;                                 ///< the node group; for AddNodes the GPU type
    int gpusPerNode = 8;                                ///< AddNodes
    std::string values;                                 ///< as typed: "1, 3, 6", "0.5 1 2", "v100-32gb, h100-sxm"
};

/**
 * What the sweep builder's form says, as text (docs/sweeps.md, "Building a spec in the GUI"). sweepSpecDocument()
 * turns it into a spec document that core's reader takes; the form's own errors (a value that is not a number, a
 * policy spec the registry refuses) name the field, the axis and the value as the spec reader's do.
 */
struct SweepDraft
{
    std::string name;
    std::string description;
    std::string scenario = "default";  ///< "default" or the base scenario's absolute path
    std::vector<std::string> policies; ///< checked registered policies (plain names)
    std::string policyVariants;        ///< one policy spec per line, `NAME:KEY=VALUE...`
    std::string seeds;                 ///< integers and ranges `0-9`; empty: no seed axis
    std::vector<ClusterEditDraft> clusterEdits;
    std::string arrivalRateScales; ///< factors; empty: no axis
    std::string jobLimits;         ///< integers and ranges; empty: no axis
    std::string estimateErrors;    ///< `none`, `uniform:S`, `lognormal:S`; empty: no axis
    bool explicitPoints = false;
    /** Explicit points: axis name -> the label of one of that axis's values (DraftAxis::labels); an axis left out
     *  is not applied to the point. */
    std::vector<std::map<std::string, std::string>> points;
};

/** An axis of the draft with its values, parsed. */
struct DraftAxis
{
    std::string name;    ///< the spec's default axis name (`seed`, `node_count:rtx`, `add_nodes:<gpu>`)
    nlohmann::json axis; ///< the spec's axis object, without "values"
    std::vector<nlohmann::json> values;
    std::vector<std::string> labels; ///< each value as the form shows it (a point refers to a value by it)
};

/** The draft's axes in spec order: cluster edits, arrival_rate_scale, job_limit, estimate_error, policy, seed. Throws
 *  orrery::Error (location: the form field) for a value that cannot be read. */
std::vector<DraftAxis> draftAxes(const SweepDraft& draft);

/** The spec document (format, version, name, scenario, axes and, for explicit points, points); its axes carry values
 *  only for a grid. Throws orrery::Error as draftAxes, or naming the point and axis of an unknown point value. */
nlohmann::json sweepSpecDocument(const SweepDraft& draft);

/** The values of a text field split on commas and white space ("1, 3 6" -> 1, 3, 6). */
std::vector<std::string> splitValues(const std::string& text);

} // namespace orrery::gui
