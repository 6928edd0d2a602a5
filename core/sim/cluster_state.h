#pragma once

#include <vector>

namespace orrery::sim {

class PreparedWorkload;

/**
 * Who runs on which GPU, with incremental free-GPU bookkeeping: per node its
 * free GPUs, per type its free count and its nodes bucketed by free count, so
 * that finding GPUs for a job costs O(GPUs per node + GPUs taken), not O(cluster).
 * Only the simulator mutates it.
 */
class ClusterState
{
public:
    explicit ClusterState(const PreparedWorkload& workload);

    int jobOnGpu(int gpu) const { return m_gpuJob[static_cast<std::size_t>(gpu)]; }
    bool isFree(int gpu) const { return jobOnGpu(gpu) < 0; }
    int freeGpus(int type) const { return m_freeOfType[static_cast<std::size_t>(type)]; }
    int freeGpusOfNode(int node) const { return static_cast<int>(m_nodeFree[static_cast<std::size_t>(node)].size()); }
    int busyGpus() const { return m_busy; }
    int busyGpus(int type) const { return m_totalOfType[static_cast<std::size_t>(type)] - freeGpus(type); }

    /**
     * `count` free GPUs of `type`, on as few nodes as possible: the node that
     * fits them most tightly, else the fullest-free nodes first. Empty when
     * the type has fewer free GPUs.
     */
    std::vector<int> pick(int count, int type) const;
    /** Like pick(), over several types (fullest-free nodes first); `allowedTypes[t]` says which may be used. */
    std::vector<int> pickMixed(int count, const std::vector<char>& allowedTypes) const;

    void take(int gpu, int job);
    void give(int gpu);

private:
    void moveBucket(int node, int from, int to);

    const PreparedWorkload* m_w;
    std::vector<int> m_gpuJob;
    std::vector<std::vector<int>> m_nodeFree; // free GPUs per node
    std::vector<int> m_posInNodeFree;         // per GPU
    std::vector<int> m_freeOfType;
    std::vector<int> m_totalOfType;
    // per type, per free count k: nodes of that type with exactly k free GPUs
    std::vector<std::vector<std::vector<int>>> m_buckets;
    std::vector<int> m_posInBucket; // per node
    int m_busy = 0;
};

} // namespace orrery::sim
