#include "sim/cluster_state.h"

#include "sim/prepared_workload.h"

#include <cassert>

namespace orrery::sim {

ClusterState::ClusterState(const PreparedWorkload& workload) : m_w(&workload)
{
    const auto& cluster = workload.cluster();
    const auto nGpus = static_cast<std::size_t>(cluster.totalGpus());
    m_gpuJob.assign(nGpus, -1);
    m_posInNodeFree.assign(nGpus, 0);
    m_nodeFree.resize(cluster.nodes().size());
    m_freeOfType.assign(static_cast<std::size_t>(workload.typeCount()), 0);
    m_totalOfType.assign(static_cast<std::size_t>(workload.typeCount()), 0);
    m_buckets.resize(static_cast<std::size_t>(workload.typeCount()));
    for (int t = 0; t < workload.typeCount(); ++t)
        m_buckets[static_cast<std::size_t>(t)].resize(static_cast<std::size_t>(workload.maxGpusPerNode(t)) + 1);
    m_posInBucket.assign(cluster.nodes().size(), 0);
    for (const auto& node : cluster.nodes()) {
        auto& free = m_nodeFree[static_cast<std::size_t>(node.id)];
        // Reverse order so that pop-from-back hands out the lowest-numbered GPU first.
        for (int g = node.firstGpu + node.gpuCount - 1; g >= node.firstGpu; --g) {
            m_posInNodeFree[static_cast<std::size_t>(g)] = static_cast<int>(free.size());
            free.push_back(g);
        }
        const int t = workload.typeOfNode(node.id);
        m_freeOfType[static_cast<std::size_t>(t)] += node.gpuCount;
        m_totalOfType[static_cast<std::size_t>(t)] += node.gpuCount;
        auto& bucket = m_buckets[static_cast<std::size_t>(t)][static_cast<std::size_t>(node.gpuCount)];
        m_posInBucket[static_cast<std::size_t>(node.id)] = static_cast<int>(bucket.size());
        bucket.push_back(node.id);
    }
}

void ClusterState::moveBucket(int node, int from, int to)
{
    const int t = m_w->typeOfNode(node);
    auto& buckets = m_buckets[static_cast<std::size_t>(t)];
    auto& src = buckets[static_cast<std::size_t>(from)];
    const int pos = m_posInBucket[static_cast<std::size_t>(node)];
    const int last = src.back();
    src[static_cast<std::size_t>(pos)] = last;
    m_posInBucket[static_cast<std::size_t>(last)] = pos;
    src.pop_back();
    auto& dst = buckets[static_cast<std::size_t>(to)];
    m_posInBucket[static_cast<std::size_t>(node)] = static_cast<int>(dst.size());
    dst.push_back(node);
}

void ClusterState::take(int gpu, int job)
{
    assert(isFree(gpu));
    const int node = m_w->cluster().nodeOfGpu(gpu);
    auto& free = m_nodeFree[static_cast<std::size_t>(node)];
    const int before = static_cast<int>(free.size());
    const int pos = m_posInNodeFree[static_cast<std::size_t>(gpu)];
    const int last = free.back();
    free[static_cast<std::size_t>(pos)] = last;
    m_posInNodeFree[static_cast<std::size_t>(last)] = pos;
    free.pop_back();
    moveBucket(node, before, before - 1);
    m_gpuJob[static_cast<std::size_t>(gpu)] = job;
    --m_freeOfType[static_cast<std::size_t>(m_w->typeOfNode(node))];
    ++m_busy;
}

void ClusterState::give(int gpu)
{
    assert(!isFree(gpu));
    const int node = m_w->cluster().nodeOfGpu(gpu);
    auto& free = m_nodeFree[static_cast<std::size_t>(node)];
    const int before = static_cast<int>(free.size());
    m_posInNodeFree[static_cast<std::size_t>(gpu)] = before;
    free.push_back(gpu);
    moveBucket(node, before, before + 1);
    m_gpuJob[static_cast<std::size_t>(gpu)] = -1;
    ++m_freeOfType[static_cast<std::size_t>(m_w->typeOfNode(node))];
    --m_busy;
}

std::vector<int> ClusterState::pick(int count, int type) const
{
    std::vector<int> out;
    if (count < 1 || type < 0 || type >= m_w->typeCount() || freeGpus(type) < count)
        return out;
    out.reserve(static_cast<std::size_t>(count));
    const auto& buckets = m_buckets[static_cast<std::size_t>(type)];
    const int maxK = static_cast<int>(buckets.size()) - 1;
    // Tightest single node.
    for (int k = count; k <= maxK; ++k) {
        const auto& nodes = buckets[static_cast<std::size_t>(k)];
        if (nodes.empty())
            continue;
        const auto& free = m_nodeFree[static_cast<std::size_t>(nodes.back())];
        for (int i = 0; i < count; ++i)
            out.push_back(free[free.size() - 1 - static_cast<std::size_t>(i)]);
        return out;
    }
    // Spread: fullest-free nodes first, so the job touches as few nodes as possible.
    for (int k = maxK; k >= 1 && static_cast<int>(out.size()) < count; --k)
        for (auto it = buckets[static_cast<std::size_t>(k)].rbegin();
             it != buckets[static_cast<std::size_t>(k)].rend() && static_cast<int>(out.size()) < count; ++it) {
            const auto& free = m_nodeFree[static_cast<std::size_t>(*it)];
            for (auto g = free.rbegin(); g != free.rend() && static_cast<int>(out.size()) < count; ++g)
                out.push_back(*g);
        }
    return out;
}

std::vector<int> ClusterState::pickMixed(int count, const std::vector<char>& allowedTypes) const
{
    std::vector<int> out;
    int available = 0;
    for (int t = 0; t < m_w->typeCount(); ++t)
        if (allowedTypes[static_cast<std::size_t>(t)])
            available += freeGpus(t);
    if (count < 1 || available < count)
        return out;
    int maxK = 0;
    for (const auto& b : m_buckets)
        maxK = std::max(maxK, static_cast<int>(b.size()) - 1);
    for (int k = maxK; k >= 1 && static_cast<int>(out.size()) < count; --k)
        for (int t = 0; t < m_w->typeCount() && static_cast<int>(out.size()) < count; ++t) {
            const auto& buckets = m_buckets[static_cast<std::size_t>(t)];
            if (!allowedTypes[static_cast<std::size_t>(t)] || k >= static_cast<int>(buckets.size()))
                continue;
            for (auto it = buckets[static_cast<std::size_t>(k)].rbegin();
                 it != buckets[static_cast<std::size_t>(k)].rend() && static_cast<int>(out.size()) < count; ++it) {
                const auto& free = m_nodeFree[static_cast<std::size_t>(*it)];
                for (auto g = free.rbegin(); g != free.rend() && static_cast<int>(out.size()) < count; ++g)
                    out.push_back(*g);
            }
        }
    return out;
}

} // namespace orrery::sim
