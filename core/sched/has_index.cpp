#include "sched/has_index.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

namespace orrery::sched {

HasIndex::OrderedBits::OrderedBits(int n)
    : m_words(static_cast<std::size_t>((n + 63) / 64), 0), m_summary((m_words.size() + 63) / 64, 0)
{}

void HasIndex::OrderedBits::grow(int n)
{
    const auto words = static_cast<std::size_t>((n + 63) / 64);
    if (words > m_words.size()) {
        m_words.resize(words, 0);
        m_summary.resize((words + 63) / 64, 0);
    }
}

int HasIndex::OrderedBits::nextAtLeast(int i) const
{
    auto w = static_cast<std::size_t>(std::max(i, 0)) / 64;
    if (w >= m_words.size()) {
        return -1;
    }
    std::uint64_t bits = m_words[w] & (~std::uint64_t(0) << (static_cast<unsigned>(std::max(i, 0)) % 64));
    while (bits == 0) {
        if (++w == m_words.size()) {
            return -1;
        }
        bits = m_words[w];
    }
    return static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
}

int HasIndex::OrderedBits::prevBelow(int i) const
{
    const int top = std::min(i, size()) - 1; // largest candidate
    if (top < 0) {
        return -1;
    }
    auto w = static_cast<std::size_t>(top) / 64;
    const unsigned b = static_cast<unsigned>(top) % 64;
    std::uint64_t bits = m_words[w] & (b == 63 ? ~std::uint64_t(0) : (std::uint64_t(1) << (b + 1)) - 1);
    while (bits == 0) {
        if (w == 0) {
            return -1;
        }
        bits = m_words[--w];
    }
    return static_cast<int>(w * 64 + 63 - static_cast<std::size_t>(std::countl_zero(bits)));
}

void HasIndex::OrderedBits::insert(int i)
{
    const auto w = static_cast<std::size_t>(i) / 64;
    const std::uint64_t bit = std::uint64_t(1) << (static_cast<unsigned>(i) % 64);
    if (!(m_words[w] & bit)) {
        m_words[w] |= bit;
        m_summary[w / 64] |= std::uint64_t(1) << (w % 64);
        ++m_count;
    }
}

void HasIndex::OrderedBits::erase(int i)
{
    const auto w = static_cast<std::size_t>(i) / 64;
    const std::uint64_t bit = std::uint64_t(1) << (static_cast<unsigned>(i) % 64);
    if (m_words[w] & bit) {
        m_words[w] &= ~bit;
        if (m_words[w] == 0) {
            m_summary[w / 64] &= ~(std::uint64_t(1) << (w % 64));
        }
        --m_count;
    }
}

int HasIndex::OrderedBits::first() const
{
    for (std::size_t s = 0; s < m_summary.size(); ++s) {
        if (m_summary[s] != 0) {
            const std::size_t w = s * 64 + static_cast<std::size_t>(std::countr_zero(m_summary[s]));
            return static_cast<int>(w * 64 + static_cast<std::size_t>(std::countr_zero(m_words[w])));
        }
    }
    return -1;
}

int HasIndex::OrderedBits::last() const
{
    for (std::size_t s = m_summary.size(); s-- > 0;) {
        if (m_summary[s] != 0) {
            const std::size_t w = s * 64 + 63 - static_cast<std::size_t>(std::countl_zero(m_summary[s]));
            return static_cast<int>(w * 64 + 63 - static_cast<std::size_t>(std::countl_zero(m_words[w])));
        }
    }
    return -1;
}

HasIndex::HasIndex(std::span<const HasNode> nodes)
{
    for (const HasNode& n : nodes) {
        m_classMemGiB.push_back(n.gpuMemoryGiB);
    }
    std::sort(m_classMemGiB.begin(), m_classMemGiB.end());
    m_classMemGiB.erase(std::unique(m_classMemGiB.begin(), m_classMemGiB.end()), m_classMemGiB.end());
    m_classIdle.assign(m_classMemGiB.size(), 0);
    m_bucket.resize(m_classMemGiB.size());
    m_classMembers.resize(m_classMemGiB.size());
    m_levels.resize(m_classMemGiB.size());

    m_slots.reserve(nodes.size());
    for (const HasNode& n : nodes) {
        const auto cls = std::lower_bound(m_classMemGiB.begin(), m_classMemGiB.end(), n.gpuMemoryGiB);
        m_slots.push_back({n.id, 0, static_cast<int>(cls - m_classMemGiB.begin()), 0});
    }
    // Ranks follow ids, so a bucket's smallest rank is its smallest id (the tie-break).
    std::sort(m_slots.begin(), m_slots.end(), [](const Slot& a, const Slot& b) { return a.id < b.id; });
    for (std::size_t pos = 0; pos < m_slots.size(); ++pos) {
        Slot& slot = m_slots[pos];
        if (!m_posOfId.emplace(slot.id, static_cast<int>(pos)).second) {
            throw std::invalid_argument("HasIndex: duplicate node id " + std::to_string(slot.id));
        }
        auto& members = m_classMembers[static_cast<std::size_t>(slot.sizeClass)];
        slot.local = static_cast<int>(members.size());
        members.push_back(static_cast<int>(pos));
    }
    for (const HasNode& n : nodes) {
        setIdle(m_posOfId.at(n.id), std::max(0, n.idleGpus));
    }
}

void HasIndex::setIdle(int pos, int idle)
{
    Slot& s = m_slots[static_cast<std::size_t>(pos)];
    const auto cls = static_cast<std::size_t>(s.sizeClass);
    auto& buckets = m_bucket[cls];
    if (s.idle > 0) {
        auto& b = buckets[static_cast<std::size_t>(s.idle)];
        b.erase(s.local);
        if (b.empty()) {
            m_levels[cls].erase(s.idle);
        }
    }
    m_classIdle[static_cast<std::size_t>(s.sizeClass)] += idle - s.idle;
    m_totalIdle += idle - s.idle;
    s.idle = idle;
    if (idle > 0) {
        if (static_cast<std::size_t>(idle) >= buckets.size()) {
            buckets.resize(static_cast<std::size_t>(idle) + 1,
                           OrderedBits(static_cast<int>(m_classMembers[cls].size())));
        }
        buckets[static_cast<std::size_t>(idle)].insert(s.local);
        m_levels[cls].grow(idle + 1);
        m_levels[cls].insert(idle);
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
        // Best fit: the smallest (idle, size, id) among nodes holding the whole remainder. Per size,
        // the smallest sufficient idle count with any node; then the smallest id in that bucket.
        int bestK = -1;
        int bestC = -1;
        for (int c = lo; c < hi; ++c) {
            const int k = m_levels[static_cast<std::size_t>(c)].nextAtLeast(need);
            if (k >= 0 && (bestK < 0 || k < bestK)) {
                bestK = k;
                bestC = c;
            }
        }
        if (bestK >= 0) {
            const auto c = static_cast<std::size_t>(bestC);
            const int chosen =
                m_classMembers[c][static_cast<std::size_t>(m_bucket[c][static_cast<std::size_t>(bestK)].first())];
            shares.push_back({m_slots[static_cast<std::size_t>(chosen)].id, need});
            setIdle(chosen, m_slots[static_cast<std::size_t>(chosen)].idle - need);
            need = 0;
            continue;
        }
        // Greedy: the largest (idle, size, id), i.e. the last node of the ascending order, gives all.
        for (int c = hi - 1; c >= lo; --c) {
            const int k = m_levels[static_cast<std::size_t>(c)].prevBelow(need);
            if (k > 0 && k > bestK) {
                bestK = k;
                bestC = c;
            }
        }
        const auto c = static_cast<std::size_t>(bestC);
        const int chosen =
            m_classMembers[c][static_cast<std::size_t>(m_bucket[c][static_cast<std::size_t>(bestK)].last())];
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
