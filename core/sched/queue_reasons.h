#pragma once

#include "sim/view.h"

#include <string>
#include <vector>

namespace orrery::sched {

/** What job j asks of the GPU types it may run on, e.g. "8 x v100-16gb or 4 x a100-40gb-sxm" (its demandOn per
 *  type, types by catalog name: short, and what scenarios and the CLI call them). */
std::string needsText(const sim::View& view, int j);

/**
 * The reasons of a queue served strictly in order (FIFO, SJF, EDF): its head waits for room, everyone else
 * waits behind the head (docs/simulator.md, "Why a job waits"). Incremental, so a long queue costs nothing
 * per decision: a job is explained when it joins, when it becomes the head, and when it stops being the
 * head; the engine records only changes.
 */
class QueueReasons
{
public:
    /** `order` names the order in the texts ("FIFO"); `behind` is what every job but the head is told. */
    QueueReasons(std::string order, std::string behind) : m_order(std::move(order)), m_behind(std::move(behind)) {}

    void joined(int j) { m_joined.push_back(j); }
    /** After serving: `head` is the first job still waiting, -1 when the queue is empty. */
    void explain(sim::Decision& decision, int head);

private:
    std::string m_order;
    std::string m_behind;
    std::vector<int> m_joined;
    int m_head = -1;
};

/**
 * For policies that decide every job each round (Gavel's rounds, Sia, Optimus, Themis): remembers which kind of
 * reason each waiting job was last given, so that its text is made and handed to the engine only when the kind
 * changes (formatting is what costs when hundreds of jobs wait through thousands of rounds). A kind is any
 * small non-negative key a policy chooses, e.g. a reason and the GPU type it names.
 */
class ReasonMemo
{
public:
    /** Job j holds GPUs: whatever it is told next is news. */
    void running(int j)
    {
        if (static_cast<std::size_t>(j) < m_last.size())
            m_last[static_cast<std::size_t>(j)] = -1;
    }
    /** Job j waits for reason `kind`: true when it was not told that kind last (and records that it is now). */
    bool changed(int j, int kind)
    {
        if (static_cast<std::size_t>(j) >= m_last.size())
            m_last.resize(static_cast<std::size_t>(j) + 1, -1);
        int& last = m_last[static_cast<std::size_t>(j)];
        if (last == kind)
            return false;
        last = kind;
        return true;
    }

private:
    std::vector<int> m_last;
};

} // namespace orrery::sched
