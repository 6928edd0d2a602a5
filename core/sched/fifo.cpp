#include "sched/fifo_queue.h"
#include "sched/gavel_fifo_allocation.h"
#include "sched/gavel_rounds.h"
#include "sched/registry.h"

#include <optional>

namespace orrery::sched {

namespace {

/**
 * First come, first served, heterogeneity-agnostic: the job at the head of
 * the queue takes its demand on the first GPU type (in cluster order) that has
 * room for it, else on a mix of types; until it can start, nobody behind it
 * does. Non-preemptive. Under gavel_compat it is Gavel's FIFO (see
 * GavelFifoAllocation) run through Gavel's round mechanism.
 */
class Fifo : public Policy
{
public:
    std::string name() const override { return "fifo"; }

    void onArrival(const sim::View& view, int j) override
    {
        if (view.options().gavelCompat)
            gavel().onArrival(view, j);
        else
            m_queue.push(j);
    }
    void onCompletion(const sim::View& view, int j) override
    {
        if (view.options().gavelCompat)
            gavel().onCompletion(view, j);
    }
    void schedule(sim::Decision& decision) override
    {
        if (decision.view().options().gavelCompat) {
            gavel().schedule(decision);
            return;
        }
        while (!m_queue.empty() && decision.place(m_queue.front()))
            m_queue.pop();
    }

private:
    GavelRounds& gavel()
    {
        if (!m_gavel)
            m_gavel.emplace(GavelRounds::Config{1920, true, true, true},
                            [this](const sim::View& v, const std::vector<int>& jobs, std::vector<double>& x) {
                                m_allocation.allocate(v, jobs, x);
                            });
        return *m_gavel;
    }

    FifoQueue m_queue;
    GavelFifoAllocation m_allocation{false};
    std::optional<GavelRounds> m_gavel;
};

} // namespace

std::unique_ptr<Policy> makeFifo() { return std::make_unique<Fifo>(); }

} // namespace orrery::sched
