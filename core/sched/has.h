#pragma once

#include "estimate/marp_plans.h"

#include <optional>
#include <span>
#include <vector>

namespace orrery::sched {

/** A node as Frenzy's HAS sees it: its idle GPUs, all of one memory size. */
struct HasNode
{
    int id = 0;
    int idleGpus = 0;
    double gpuMemoryGiB = 0;
};

/** One MARP plan as HAS needs it: `gpus` GPUs, each with more than `requiredGiB` of memory. */
using HasPlan = estimate::GpuDemand;
using estimate::gpuFits;

/**
 * Which nodes Algorithm 1's line 15 admits (docs/models/frenzy.md):
 * - AtLeast: every node whose GPUs are large enough for the plan (the prose's reading, default);
 * - Exact: only the smallest adequate memory size that still has idle GPUs, widening to the next
 *   size once that one is used up.
 */
enum class SizeFilter { AtLeast, Exact };

struct HasOptions
{
    SizeFilter sizeFilter = SizeFilter::AtLeast;
    bool strictFcfs = false; ///< queue scans stop at the first job that does not fit
};

/** GPUs taken from one node. */
struct NodeShare
{
    int node = 0;
    int gpus = 0;
    bool operator==(const NodeShare&) const = default;
};

/** HAS's answer for one job: the plan it settled for and where its GPUs are. */
struct HasPlacement
{
    int planIndex = -1;            ///< into the job's plan list
    std::vector<NodeShare> shares; ///< in the order HAS took them
    int gpus() const;
    bool operator==(const HasPlacement&) const = default;
};

/**
 * Frenzy's Algorithm 1 for one job, as a pure function written the way the paper reads.
 * Plan retrieval: the first plan (in MARP order) whose GPU count the idle adequate GPUs cover.
 * Placement, repeated until the plan is covered: among the candidate nodes sorted by (idle GPUs,
 * GPU memory, id) ascending, the first that holds the whole remainder (best fit); if none does,
 * the last one (most idle GPUs) gives all its idle GPUs. Returns nullopt when no plan fits now.
 * Node ids must be unique.
 */
std::optional<HasPlacement> hasPlace(std::span<const HasNode> nodes, std::span<const HasPlan> plans,
                                     const HasOptions& options = {});

} // namespace orrery::sched
