#pragma once

#include "sched/has.h"

#include <cstdint>
#include <optional>
#include <span>
#include <unordered_map>
#include <vector>

namespace orrery::sched {

/**
 * The cluster's idle GPUs, indexed for repeated HAS decisions: nodes are bucketed by (GPU memory
 * size, idle count) in bitmaps, so one placement round costs O(sizes + nodes / 4096) instead of a
 * sort of every node, and "does any plan fit" costs O(sizes). Answers exactly what hasPlace answers on
 * the same idle counts (a property test holds the two together).
 */
class HasIndex
{
public:
    HasIndex() = default;
    /** Node ids must be unique; idle counts are the GPUs free now. */
    explicit HasIndex(std::span<const HasNode> nodes);

    int totalIdleGpus() const { return m_totalIdle; }
    /** Idle GPUs with more than `requiredGiB` of memory. */
    int adequateIdleGpus(double requiredGiB) const;
    int idleGpus(int nodeId) const;

    /** Algorithm 1 for one job on the current idle counts; takes the GPUs it returns. */
    std::optional<HasPlacement> allocate(std::span<const HasPlan> plans, const HasOptions& options = {});
    /** Marks GPUs busy (taken by something other than allocate) or idle again. */
    void take(int nodeId, int gpus);
    void release(int nodeId, int gpus);
    void release(const HasPlacement& placement);

private:
    /**
     * A set of small integers [0, n) answering "smallest" and "largest" with a two-level bitmap:
     * no allocation on insert or erase, and a find touches n / 4096 summary words plus one word.
     */
    class OrderedBits
    {
    public:
        explicit OrderedBits(int n = 0);
        /** Makes room for [0, n), keeping the contents. */
        void grow(int n);
        int size() const { return static_cast<int>(m_words.size() * 64); }
        void insert(int i);
        void erase(int i);
        bool empty() const { return m_count == 0; }
        int first() const;
        int last() const;
        /** Smallest member >= i, or -1. Linear in words: meant for short sets. */
        int nextAtLeast(int i) const;
        /** Largest member < i, or -1. Linear in words: meant for short sets. */
        int prevBelow(int i) const;

    private:
        std::vector<std::uint64_t> m_words;
        std::vector<std::uint64_t> m_summary; ///< bit w set when m_words[w] != 0
        int m_count = 0;
    };
    struct Slot
    {
        int id = 0;
        int idle = 0;
        int sizeClass = 0;
        int local = 0; ///< rank by id among the nodes of its size class
    };
    void setIdle(int pos, int idle);
    int firstAdequateClass(double requiredGiB) const;
    std::vector<NodeShare> placeBestFit(const HasPlan& plan, SizeFilter filter);

    std::vector<double> m_classMemGiB;              // distinct GPU memory sizes, ascending
    std::vector<int> m_classIdle;                   // idle GPUs per size
    std::vector<std::vector<int>> m_classMembers;   // [size] -> slot positions, in id order
    std::vector<std::vector<OrderedBits>> m_bucket; // [size][idle] -> local ranks of nodes
    std::vector<OrderedBits> m_levels;              // [size] -> idle counts with a non-empty bucket
    std::vector<Slot> m_slots;                      // sorted by id
    std::unordered_map<int, int> m_posOfId;
    int m_totalIdle = 0;
};

/** One started job of a queue scan. */
struct QueueDecision
{
    int queuePos = 0;
    HasPlacement placement;
};

/**
 * One scheduling pass (spec A.5.4): HAS for each queued job in order, starting every job that gets
 * GPUs. A job that gets nothing keeps its place and the scan goes on (backfilling), unless
 * `options.strictFcfs`, where it stops the scan. `queue[i]` is job i's MARP plan list.
 */
std::vector<QueueDecision> hasScheduleQueue(HasIndex& index, std::span<const std::span<const HasPlan>> queue,
                                            const HasOptions& options = {});

} // namespace orrery::sched
