#pragma once

#include "sched/fifo_queue.h"
#include "sched/gavel_fifo_allocation.h"
#include "sched/gavel_rounds.h"
#include "sched/queue_reasons.h"
#include "sim/policy.h"

#include <optional>

namespace orrery::sched {

/**
 * The shared shape of fifo and fifo_perf: an arrival-ordered queue served by
 * the subclass, or, under gavel_compat, Gavel's FIFO allocation run through
 * Gavel's round mechanism (heterogeneity-aware or not, as `perf` says).
 */
class GavelCompatFifo : public sim::Policy
{
public:
    explicit GavelCompatFifo(bool perf)
        : m_perf(perf), m_allocation(perf),
          m_reasons("FIFO", "behind an earlier job in FIFO order (the head blocks the queue)")
    {}

    void onArrival(const sim::View& view, int j) override
    {
        if (view.options().gavelCompat)
            gavel().onArrival(view, j);
        else {
            m_queue.push(j);
            m_reasons.joined(j);
        }
    }
    void onCompletion(const sim::View& view, int j) override
    {
        if (view.options().gavelCompat)
            gavel().onCompletion(view, j);
    }
    void schedule(sim::Decision& decision) override
    {
        if (decision.view().options().gavelCompat)
            gavel().schedule(decision);
        else {
            serveQueue(decision, m_queue);
            m_reasons.explain(decision, m_queue.empty() ? -1 : m_queue.front());
        }
    }

protected:
    /** Starts jobs from the head of `queue` (popping them) until the head cannot start. */
    virtual void serveQueue(sim::Decision& decision, FifoQueue& queue) = 0;

private:
    GavelRounds& gavel()
    {
        if (!m_gavel)
            m_gavel.emplace(GavelRounds::Config{1920, true, !m_perf, true},
                            [this](const sim::View& v, const std::vector<int>& jobs, std::vector<double>& x) {
                                m_allocation.allocate(v, jobs, x);
                            });
        return *m_gavel;
    }

    bool m_perf;
    FifoQueue m_queue;
    GavelFifoAllocation m_allocation;
    std::optional<GavelRounds> m_gavel;
    QueueReasons m_reasons;
};

} // namespace orrery::sched
