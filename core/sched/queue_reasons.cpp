#include "sched/queue_reasons.h"

#include <fmt/format.h>

namespace orrery::sched {

std::string needsText(const sim::View& view, int j)
{
    const auto& w = view.workload();
    std::string out;
    for (int t = 0; t < w.typeCount(); ++t) {
        if (!w.allowed(j, t))
            continue;
        if (!out.empty())
            out += " or ";
        out += fmt::format("{} x {}", w.demandOn(j, t), w.type(t).name);
    }
    return out.empty() ? fmt::format("{} GPUs", view.job(j).demand) : out;
}

void QueueReasons::explain(sim::Decision& decision, int head)
{
    const auto& view = decision.view();
    // Status changes when the decision is committed; GPUs given in this decision show at once.
    const auto waiting = [&](int j) {
        return j >= 0 && view.status(j) == sim::JobStatus::Queued && view.gpusOf(j).empty();
    };
    if (m_head != head && waiting(m_head))
        decision.explain(m_head, m_behind);
    for (int j : m_joined)
        if (j != head && waiting(j))
            decision.explain(j, m_behind);
    m_joined.clear();
    if (head != m_head && waiting(head))
        decision.explain(head,
                         fmt::format("first in {} order; waits for room: needs {}", m_order, needsText(view, head)));
    m_head = head;
}

} // namespace orrery::sched
