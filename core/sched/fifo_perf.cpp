#include "sched/gavel_compat_fifo.h"
#include "sched/registry.h"

namespace orrery::sched {

namespace {

/**
 * First come, first served, heterogeneity-aware (Gavel's FIFO_Perf): the head
 * of the queue starts on the GPU type where it runs fastest among those with
 * room for its whole demand; a mix of types only when no single type is large
 * enough for it. Non-preemptive; the head blocks the queue.
 */
class FifoPerf : public GavelCompatFifo
{
public:
    FifoPerf() : GavelCompatFifo(true) {}
    std::string name() const override { return "fifo_perf"; }

protected:
    void serveQueue(sim::Decision& decision, FifoQueue& queue) override
    {
        const auto& view = decision.view();
        const auto& w = view.workload();
        while (!queue.empty()) {
            const int j = queue.front();
            const int demand = view.job(j).demand;
            int best = -1;
            bool anyLargeEnough = false;
            for (int t = 0; t < w.typeCount(); ++t) {
                if (!w.allowed(j, t) || w.gpusOfType(t) < demand)
                    continue;
                anyLargeEnough = true;
                if (view.freeGpus(t) >= demand && (best < 0 || w.rate(j, t) > w.rate(j, best)))
                    best = t;
            }
            const bool placed = best >= 0 ? decision.place(j, best) : (!anyLargeEnough && decision.place(j, -1));
            if (!placed)
                break;
            queue.pop();
        }
    }
};

} // namespace

std::unique_ptr<Policy> makeFifoPerf()
{
    return std::make_unique<FifoPerf>();
}

} // namespace orrery::sched
