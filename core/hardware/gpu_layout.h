#pragma once

#include <string>
#include <vector>

namespace orrery::hardware {

class Cluster;

/**
 * Where each global GPU index of a run sits: its node and type. Kept with a
 * stored run so that timelines (Gantt, Chrome trace) can group GPUs by node
 * without re-reading the scenario.
 */
struct GpuLayout
{
    std::vector<std::string> nodeNames;
    std::vector<int> gpuNode;          ///< per global GPU: index into nodeNames
    std::vector<std::string> gpuTypes; ///< per global GPU: type name

    int gpuCount() const { return static_cast<int>(gpuNode.size()); }
    /** Position of `gpu` inside its node (0 for the node's first GPU). */
    int localIndex(int gpu) const;
    bool operator==(const GpuLayout&) const = default;
};

GpuLayout gpuLayoutOf(const Cluster& cluster);

} // namespace orrery::hardware
