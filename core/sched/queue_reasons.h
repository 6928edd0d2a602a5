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

} // namespace orrery::sched
