#pragma once

#include "hardware/gpu_catalog.h"
#include "hardware/link.h"

#include <optional>
#include <string>
#include <vector>

namespace orrery::hardware {

/** `count` identical nodes, as a scenario describes them. */
struct NodeGroup
{
    std::string name;    ///< prefix of the node names (`rtx` -> `rtx-0`, `rtx-1`...)
    std::string gpuType; ///< catalog name or alias, as written
    int count = 1;
    int gpusPerNode = 8;
    std::optional<Link> intraLink; ///< defaults to the GPU type's own link
    /// Racks of its nodes: none (the nodes belong to no rack), one name for every node, or one per node.
    std::vector<std::string> racks = {};

    bool operator==(const NodeGroup&) const = default;
};

/** One machine. GPUs of the cluster are numbered globally: node n owns [firstGpu, firstGpu + gpuCount). */
struct Node
{
    int id = 0;
    std::string name;
    int group = 0;
    int gpuTypeIndex = 0; ///< into Cluster::catalog().types()
    int gpuCount = 0;
    int firstGpu = 0;
    Link intraLink;
    int rack = -1; ///< into Cluster::racks(), -1 when the node belongs to no rack
};

/**
 * Nodes of (possibly) mixed GPU types, with an inter-node network. Immutable
 * once built; the simulator keeps who-runs-where separately.
 */
class Cluster
{
public:
    Cluster() = default;
    /** Resolves every group's GPU type in `catalog`; throws Error (path `nodes[i].gpu`) when unknown, and
     *  (path `nodes[i].rack`) when a group lists racks for some but not all of its nodes or an empty name. */
    Cluster(std::vector<NodeGroup> groups, Link network, GpuCatalog catalog);

    const std::vector<NodeGroup>& groups() const { return m_groups; }
    const std::vector<Node>& nodes() const { return m_nodes; }
    const Link& network() const { return m_network; }
    const GpuCatalog& catalog() const { return m_catalog; }

    int totalGpus() const { return m_totalGpus; }
    int nodeOfGpu(int gpu) const { return m_gpuNode[static_cast<std::size_t>(gpu)]; }
    const GpuType& gpuTypeOfNode(int node) const
    {
        return m_catalog.types()[static_cast<std::size_t>(m_nodes[static_cast<std::size_t>(node)].gpuTypeIndex)];
    }
    const GpuType& gpuTypeOfGpu(int gpu) const { return gpuTypeOfNode(nodeOfGpu(gpu)); }
    /** Rack names, in order of first appearance; nodes refer to them by index (Node::rack). */
    const std::vector<std::string>& racks() const { return m_racks; }
    int rackOfNode(int node) const { return m_nodes[static_cast<std::size_t>(node)].rack; }
    /** Catalog indices of the GPU types present, in order of first appearance. */
    const std::vector<int>& presentTypes() const { return m_presentTypes; }
    int gpusOfType(int typeIndex) const;
    double priceUsdPerHour() const;

    /** `3x8 rtx2080ti + 2x8 a100-40gb-sxm`, for summaries. */
    std::string summary() const;

private:
    std::vector<NodeGroup> m_groups;
    Link m_network;
    GpuCatalog m_catalog;
    std::vector<Node> m_nodes;
    std::vector<int> m_gpuNode;
    std::vector<int> m_presentTypes;
    std::vector<std::string> m_racks;
    int m_totalGpus = 0;
};

} // namespace orrery::hardware
