#include "sched/has_index.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace orrery::sched {

HasIndex::HasIndex(std::span<const HasNode> nodes)
{
    for (const HasNode& n : nodes) {
        m_classMemGiB.push_back(n.gpuMemoryGiB);
    }
    std::sort(m_classMemGiB.begin(), m_classMemGiB.end());
    m_classMemGiB.erase(std::unique(m_classMemGiB.begin(), m_classMemGiB.end()), m_classMemGiB.end());
    m_classIdle.assign(m_classMemGiB.size(), 0);
    m_bucket.resize(m_classMemGiB.size());

    m_slots.reserve(nodes.size());
    for (const HasNode& n : nodes) {
        const auto cls = std::lower_bound(m_classMemGiB.begin(), m_classMemGiB.end(), n.gpuMemoryGiB);
        m_slots.push_back({n.id, 0, static_cast<int>(cls - m_classMemGiB.begin())});
    }
    // Position order = id order, so a bucket's smallest position is its smallest id (the tie-break).
    std::sort(m_slots.begin(), m_slots.end(), [](const Slot& a, const Slot& b) { return a.id < b.id; });
    for (std::size_t pos = 0; pos < m_slots.size(); ++pos) {
        if (!m_posOfId.emplace(m_slots[pos].id, static_cast<int>(pos)).second) {
            throw std::invalid_argument("HasIndex: duplicate node id " + std::to_string(m_slots[pos].id));
        }
    }
    for (const HasNode& n : nodes) {
        setIdle(m_posOfId.at(n.id), std::max(0, n.idleGpus));
    }
}

void HasIndex::setIdle(int pos, int idle)
{
    Slot& s = m_slots[static_cast<std::size_t>(pos)];
    auto& buckets = m_bucket[static_cast<std::size_t>(s.sizeClass)];
    if (s.idle > 0) {
        buckets[static_cast<std::size_t>(s.idle)].erase(pos);
    }
    m_classIdle[static_cast<std::size_t>(s.sizeClass)] += idle - s.idle;
    m_totalIdle += idle - s.idle;
    s.idle = idle;
    if (idle > 0) {
        if (static_cast<std::size_t>(idle) >= buckets.size()) {
            buckets.resize(static_cast<std::size_t>(idle) + 1);
        }
        buckets[static_cast<std::size_t>(idle)].insert(pos);
        m_maxIdle = std::max(m_maxIdle, idle);
    }
}

int HasIndex::firstAdequateClass(double requiredGiB) const
{
    // gpuFits is strict: the first size greater than the requirement.
    const auto it = std::upper_bound(m_classMemGiB.begin(), m_classMemGiB.end(), requiredGiB);
    return static_cast<int>(it - m_classMemGiB.begin());
}

int HasIndex::adequateIdleGpus(double requiredGiB) const
{
    int n = 0;
    for (std::size_t c = static_cast<std::size_t>(firstAdequateClass(requiredGiB)); c < m_classIdle.size(); ++c) {
        n += m_classIdle[c];
    }
    return n;
}

int HasIndex::idleGpus(int nodeId) const
{
    return m_slots[static_cast<std::size_t>(m_posOfId.at(nodeId))].idle;
}

void HasIndex::take(int nodeId, int gpus)
{
    const int pos = m_posOfId.at(nodeId);
    const int idle = m_slots[static_cast<std::size_t>(pos)].idle;
    if (gpus < 0 || gpus > idle) {
        throw std::invalid_argument("HasIndex::take: node " + std::to_string(nodeId) + " has " + std::to_string(idle) +
                                    " idle GPUs, asked for " + std::to_string(gpus));
    }
    setIdle(pos, idle - gpus);
}

void HasIndex::release(int nodeId, int gpus)
{
    if (gpus < 0) {
        throw std::invalid_argument("HasIndex::release: negative GPU count");
    }
    const int pos = m_posOfId.at(nodeId);
    setIdle(pos, m_slots[static_cast<std::size_t>(pos)].idle + gpus);
}

void HasIndex::release(const HasPlacement& placement)
{
    for (const NodeShare& s : placement.shares) {
        release(s.node, s.gpus);
    }
}

std::vector<NodeShare> HasIndex::placeBestFit(const HasPlan& plan, SizeFilter filter)
{
    std::vector<NodeShare> shares;
    const int nClasses = static_cast<int>(m_classMemGiB.size());
    const int firstClass = firstAdequateClass(plan.requiredGiB);
    int need = plan.gpus;
    while (need > 0) {
        int lo = firstClass;
        int hi = nClasses;
        if (filter == SizeFilter::Exact) {
            while (m_classIdle[static_cast<std::size_t>(lo)] == 0) {
                ++lo;
            }
            hi = lo + 1;
        }
        // Best fit: the smallest (idle, size, id) among nodes holding the whole remainder.
        int chosen = -1;
        for (int k = need; k <= m_maxIdle && chosen < 0; ++k) {
            for (int c = lo; c < hi; ++c) {
                const auto& b = m_bucket[static_cast<std::size_t>(c)];
                if (static_cast<std::size_t>(k) < b.size() && !b[static_cast<std::size_t>(k)].empty()) {
                    chosen = *b[static_cast<std::size_t>(k)].begin();
                    break;
                }
            }
        }
        if (chosen >= 0) {
            shares.push_back({m_slots[static_cast<std::size_t>(chosen)].id, need});
            setIdle(chosen, m_slots[static_cast<std::size_t>(chosen)].idle - need);
            need = 0;
            continue;
        }
        // Greedy: the largest (idle, size, id), i.e. the last node of the ascending order, gives all.
        for (int k = std::min(need - 1, m_maxIdle); k > 0 && chosen < 0; --k) {
            for (int c = hi - 1; c >= lo; --c) {
                const auto& b = m_bucket[static_cast<std::size_t>(c)];
                if (static_cast<std::size_t>(k) < b.size() && !b[static_cast<std::size_t>(k)].empty()) {
                    chosen = *b[static_cast<std::size_t>(k)].rbegin();
                    break;
                }
            }
        }
        const int got = m_slots[static_cast<std::size_t>(chosen)].idle;
        shares.push_back({m_slots[static_cast<std::size_t>(chosen)].id, got});
        setIdle(chosen, 0);
        need -= got;
    }
    return shares;
}

std::optional<HasPlacement> HasIndex::allocate(std::span<const HasPlan> plans, const HasOptions& options)
{
    for (std::size_t i = 0; i < plans.size(); ++i) {
        const HasPlan& plan = plans[i];
        if (plan.gpus <= 0 || plan.gpus > m_totalIdle || adequateIdleGpus(plan.requiredGiB) < plan.gpus) {
            continue;
        }
        HasPlacement out;
        out.planIndex = static_cast<int>(i);
        out.shares = placeBestFit(plan, options.sizeFilter);
        return out;
    }
    return std::nullopt;
}

std::vector<QueueDecision> hasScheduleQueue(HasIndex& index, std::span<const std::span<const HasPlan>> queue,
                                            const HasOptions& options)
{
    std::vector<QueueDecision> started;
    for (std::size_t pos = 0; pos < queue.size(); ++pos) {
        if (index.totalIdleGpus() == 0) {
            break; // no later job can fit either
        }
        if (auto p = index.allocate(queue[pos], options)) {
            started.push_back({static_cast<int>(pos), std::move(*p)});
        } else if (options.strictFcfs) {
            break;
        }
    }
    return started;
}

} // namespace orrery::sched
