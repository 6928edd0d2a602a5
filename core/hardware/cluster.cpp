#include "hardware/cluster.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace orrery::hardware {

Cluster::Cluster(std::vector<NodeGroup> groups, Link network, GpuCatalog catalog)
    : m_groups(std::move(groups)), m_network(network), m_catalog(std::move(catalog))
{
    for (std::size_t g = 0; g < m_groups.size(); ++g) {
        const NodeGroup& group = m_groups[g];
        const std::string path = fmt::format("cluster.nodes[{}]", g);
        const int typeIndex = m_catalog.indexOf(group.gpuType);
        if (typeIndex < 0) {
            try {
                m_catalog.at(group.gpuType);
            } catch (const Error& e) {
                throw Error("", path + ".gpu", e.message());
            }
        }
        if (group.count <= 0)
            throw Error("", path + ".count", fmt::format("expected a positive integer, got {}", group.count));
        if (group.gpusPerNode <= 0)
            throw Error("", path + ".gpus_per_node",
                        fmt::format("expected a positive integer, got {}", group.gpusPerNode));
        if (std::find(m_presentTypes.begin(), m_presentTypes.end(), typeIndex) == m_presentTypes.end())
            m_presentTypes.push_back(typeIndex);
        if (!group.racks.empty() && group.racks.size() != 1 &&
            group.racks.size() != static_cast<std::size_t>(group.count))
            throw Error("", path + ".rack",
                        fmt::format("expected one rack name for the group or one per node ({}), got {}", group.count,
                                    group.racks.size()));
        for (const auto& rack : group.racks)
            if (rack.empty())
                throw Error("", path + ".rack", "expected a non-empty rack name");
        const Link link = group.intraLink.value_or(m_catalog.types()[static_cast<std::size_t>(typeIndex)].intraLink);
        for (int i = 0; i < group.count; ++i) {
            Node n;
            n.id = static_cast<int>(m_nodes.size());
            n.name = group.count == 1 ? group.name : fmt::format("{}-{}", group.name, i);
            n.group = static_cast<int>(g);
            n.gpuTypeIndex = typeIndex;
            n.gpuCount = group.gpusPerNode;
            n.firstGpu = m_totalGpus;
            n.intraLink = link;
            if (!group.racks.empty()) {
                const std::string& rack = group.racks[group.racks.size() == 1 ? 0 : static_cast<std::size_t>(i)];
                const auto it = std::find(m_racks.begin(), m_racks.end(), rack);
                n.rack = static_cast<int>(it - m_racks.begin());
                if (it == m_racks.end())
                    m_racks.push_back(rack);
            }
            m_totalGpus += n.gpuCount;
            m_gpuNode.insert(m_gpuNode.end(), static_cast<std::size_t>(n.gpuCount), n.id);
            m_nodes.push_back(std::move(n));
        }
    }
}

int Cluster::gpusOfType(int typeIndex) const
{
    int n = 0;
    for (const auto& node : m_nodes)
        if (node.gpuTypeIndex == typeIndex)
            n += node.gpuCount;
    return n;
}

double Cluster::priceUsdPerHour() const
{
    double p = 0;
    for (const auto& node : m_nodes)
        p += node.gpuCount * m_catalog.types()[static_cast<std::size_t>(node.gpuTypeIndex)].priceUsdPerHour;
    return p;
}

std::string Cluster::summary() const
{
    std::string out;
    for (const auto& g : m_groups) {
        if (!out.empty())
            out += " + ";
        out += fmt::format("{}x{} {}", g.count, g.gpusPerNode, m_catalog.at(g.gpuType).name);
    }
    return out;
}

} // namespace orrery::hardware
