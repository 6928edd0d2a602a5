#include "sched/fifo_queue.h"
#include "sched/gavel_fifo_allocation.h"
#include "sched/gavel_rounds.h"
#include "sched/registry.h"

#include <optional>

namespace orrery::sched {

namespace {

/**
 * First come, first served, heterogeneity-aware (Gavel's FIFO_Perf): the head
 * of the queue starts on the GPU type where it runs fastest among those with
 * room for its whole demand; a mix of types only when no single type is large
 * enough for it. Non-preemptive; the head blocks the queue.
 */
class FifoPerf : public Policy
{
public:
    std::string name() const override { return "fifo_perf"; }

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
        const auto& view = decision.view();
        if (view.options().gavelCompat) {
            gavel().schedule(decision);
            return;
        }
        const auto& w = view.workload();
        while (!m_queue.empty()) {
            const int j = m_queue.front();
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
            m_queue.pop();
        }
    }

private:
    GavelRounds& gavel()
    {
        if (!m_gavel)
            m_gavel.emplace(GavelRounds::Config{1920, true, false, true},
                            [this](const sim::View& v, const std::vector<int>& jobs, std::vector<double>& x) {
                                m_allocation.allocate(v, jobs, x);
                            });
        return *m_gavel;
    }

    FifoQueue m_queue;
    GavelFifoAllocation m_allocation{true};
    std::optional<GavelRounds> m_gavel;
};

} // namespace

std::unique_ptr<Policy> makeFifoPerf() { return std::make_unique<FifoPerf>(); }

} // namespace orrery::sched
