#include "sched/gavel_fifo_allocation.h"

#include <algorithm>
#include <deque>

namespace orrery::sched {

void GavelFifoAllocation::allocate(const sim::View& view, const std::vector<int>& active, std::vector<double>& x)
{
    const auto& w = view.workload();
    const int nt = view.typeCount();
    if (m_type.empty())
        m_type.assign(static_cast<std::size_t>(view.jobCount()), -1);
    if (!m_seeded) {
        m_rng = util::PythonRandom(view.seed());
        m_seeded = true;
    }
    if (m_perf) {
        for (int j : m_allocated)
            m_type[static_cast<std::size_t>(j)] = -1;
        m_allocated.clear();
    }
    std::vector<int> available(static_cast<std::size_t>(nt));
    for (int t = 0; t < nt; ++t)
        available[static_cast<std::size_t>(t)] = view.totalGpus(t);
    std::deque<int> queue;
    for (int j : active)
        if (m_type[static_cast<std::size_t>(j)] < 0)
            queue.push_back(j);

    // Finished jobs hand their slot to the head of the queue (if it fits); others keep theirs.
    std::vector<int> kept;
    for (int j : m_allocated) {
        const int t = m_type[static_cast<std::size_t>(j)];
        if (view.status(j) == sim::JobStatus::Done) {
            m_type[static_cast<std::size_t>(j)] = -1;
            if (!queue.empty()) {
                const int head = queue.front();
                queue.pop_front();
                if (w.demandOn(head, t) <= available[static_cast<std::size_t>(t)]) {
                    m_type[static_cast<std::size_t>(head)] = t;
                    available[static_cast<std::size_t>(t)] -= w.demandOn(head, t);
                    kept.push_back(head);
                }
            }
        } else {
            available[static_cast<std::size_t>(t)] -= w.demandOn(j, t);
            kept.push_back(j);
        }
    }

    std::vector<int> withRoom; // types with room, by name (Gavel sorts its worker type names)
    for (int t = 0; t < nt; ++t)
        if (available[static_cast<std::size_t>(t)] > 0)
            withRoom.push_back(t);
    std::sort(withRoom.begin(), withRoom.end(), [&](int a, int b) { return w.type(a).name < w.type(b).name; });

    while (!queue.empty() && !withRoom.empty()) {
        const int j = queue.front();
        queue.pop_front();
        std::vector<std::size_t> fits; // positions in withRoom
        for (std::size_t i = 0; i < withRoom.size(); ++i)
            if (available[static_cast<std::size_t>(withRoom[i])] >= w.demandOn(j, withRoom[i]))
                fits.push_back(i);
        if (fits.empty())
            break;
        std::size_t pos = 0;
        int type = -1;
        if (m_perf) {
            double best = -1;
            for (std::size_t i : fits)
                if (w.rate(j, withRoom[i]) > best) {
                    best = w.rate(j, withRoom[i]);
                    type = withRoom[i];
                    pos = i;
                }
        } else {
            pos = fits[m_rng.below(static_cast<std::uint32_t>(fits.size()))];
            type = withRoom.back();
        }
        m_type[static_cast<std::size_t>(j)] = type;
        available[static_cast<std::size_t>(type)] -= w.demandOn(j, type);
        kept.push_back(j);
        if (available[static_cast<std::size_t>(type)] == 0)
            withRoom.erase(withRoom.begin() + static_cast<std::ptrdiff_t>(pos));
    }
    std::sort(kept.begin(), kept.end());
    m_allocated = std::move(kept);

    for (std::size_t k = 0; k < active.size(); ++k) {
        const int t = m_type[static_cast<std::size_t>(active[k])];
        if (t >= 0)
            x[k * static_cast<std::size_t>(nt) + static_cast<std::size_t>(t)] = 1.0;
    }
}

} // namespace orrery::sched
