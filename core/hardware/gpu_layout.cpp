#include "hardware/gpu_layout.h"

#include "hardware/cluster.h"

namespace orrery::hardware {

int GpuLayout::localIndex(int gpu) const
{
    int local = 0;
    const int node = gpuNode.at(static_cast<std::size_t>(gpu));
    for (int g = gpu - 1; g >= 0 && gpuNode[static_cast<std::size_t>(g)] == node; --g)
        ++local;
    return local;
}

GpuLayout gpuLayoutOf(const Cluster& cluster)
{
    GpuLayout layout;
    layout.gpuNode.resize(static_cast<std::size_t>(cluster.totalGpus()));
    layout.gpuTypes.resize(layout.gpuNode.size());
    for (const auto& node : cluster.nodes()) {
        layout.nodeNames.push_back(node.name);
        const std::string& type = cluster.gpuTypeOfNode(node.id).name;
        for (int g = node.firstGpu; g < node.firstGpu + node.gpuCount; ++g) {
            layout.gpuNode[static_cast<std::size_t>(g)] = static_cast<int>(layout.nodeNames.size()) - 1;
            layout.gpuTypes[static_cast<std::size_t>(g)] = type;
        }
    }
    return layout;
}

} // namespace orrery::hardware
