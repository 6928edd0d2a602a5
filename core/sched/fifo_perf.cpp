#include "sched/gavel_compat_fifo.h"
#include "sched/registry.h"

#include <algorithm>

namespace orrery::sched {

namespace {

/**
 * First come, first served, heterogeneity-aware (Gavel's FIFO_Perf): the head
 * of the queue starts on the GPU type where it runs fastest among those with
 * room for its whole demand on that type (a serverless job: its best plan
 * there, and "fastest" compares those plans' rates); a mix of types only when
 * no single type is large enough for it. Non-preemptive; the head blocks the
 * queue.
 *
 * `min_relative_speed` (Orrery's, default 0: Gavel's policy) makes it wait
 * rather than settle: a type where the head runs slower than that fraction of
 * its rate on its fastest type large enough to hold it is not taken, so the
 * head waits for a faster one (a serverless job whose best plan on a slow type
 * would take many times longer).
 */
class FifoPerf : public GavelCompatFifo
{
public:
    explicit FifoPerf(const PolicyParams& params)
        : GavelCompatFifo(true), m_minRelativeSpeed(params.number("min_relative_speed"))
    {}
    std::string name() const override { return "fifo_perf"; }

protected:
    void serveQueue(sim::Decision& decision, FifoQueue& queue) override
    {
        const auto& view = decision.view();
        const auto& w = view.workload();
        while (!queue.empty()) {
            const int j = queue.front();
            double fastest = 0; // over the types large enough for it, busy or not
            for (int t = 0; t < w.typeCount(); ++t)
                if (w.allowed(j, t) && w.gpusOfType(t) >= w.demandOn(j, t))
                    fastest = std::max(fastest, w.rate(j, t));
            int best = -1;
            bool anyLargeEnough = false;
            for (int t = 0; t < w.typeCount(); ++t) {
                const int demand = w.demandOn(j, t);
                if (!w.allowed(j, t) || w.gpusOfType(t) < demand)
                    continue;
                anyLargeEnough = true;
                if (view.freeGpus(t) >= demand && w.rate(j, t) >= m_minRelativeSpeed * fastest &&
                    (best < 0 || w.rate(j, t) > w.rate(j, best)))
                    best = t;
            }
            const bool placed = best >= 0 ? decision.place(j, best) : (!anyLargeEnough && decision.place(j, -1));
            if (!placed)
                break;
            queue.pop();
        }
    }

private:
    double m_minRelativeSpeed;
};

} // namespace

std::vector<ParamSpec> fifoPerfParams()
{
    return {{"min_relative_speed",
             ParamType::Number,
             "0",
             0,
             1,
             {},
             1,
             16,
             false,
             "the head waits rather than start on a type where it runs below this fraction of its fastest rate"}};
}

std::unique_ptr<Policy> makeFifoPerf(const PolicyParams& params)
{
    return std::make_unique<FifoPerf>(params);
}

} // namespace orrery::sched
