#include "sched/gavel_compat_fifo.h"
#include "sched/registry.h"

namespace orrery::sched {

namespace {

/**
 * First come, first served, heterogeneity-agnostic: the job at the head of
 * the queue takes its demand on the first GPU type (in cluster order) that has
 * room for its demand on that type (a serverless job: its best plan there),
 * else on a mix of types; until it can start, nobody behind it does. Non-preemptive. Under gavel_compat it is Gavel's
 * FIFO (see GavelFifoAllocation) run through Gavel's round mechanism.
 */
class Fifo : public GavelCompatFifo
{
public:
    Fifo() : GavelCompatFifo(false) {}
    std::string name() const override { return "fifo"; }

protected:
    void serveQueue(sim::Decision& decision, FifoQueue& queue) override
    {
        while (!queue.empty() && decision.place(queue.front()))
            queue.pop();
    }
};

} // namespace

std::unique_ptr<Policy> makeFifo()
{
    return std::make_unique<Fifo>();
}

} // namespace orrery::sched
