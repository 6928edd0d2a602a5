#include "sched/fastest_free_type.h"
#include "sched/queue_reasons.h"
#include "sched/registry.h"

#include <set>
#include <tuple>

namespace orrery::sched {

namespace {

/**
 * Shortest job first: the waiting job with the smallest estimated run time
 * (its work at its best single-type rate, View::estimatedDurationS: the
 * oracle's true SimJob::idealS unless the scenario sets estimate_error)
 * starts first, on the fastest type that has room; ties by arrival. Non-
 * preemptive, and the shortest waiting job blocks the others so long jobs are
 * not overtaken forever by a stream of medium ones that happen to fit.
 */
class Sjf : public Policy
{
public:
    std::string name() const override { return "sjf"; }

    void onArrival(const sim::View& view, int j) override
    {
        m_queue.emplace(view.estimatedDurationS(j), view.job(j).arrivalS, j);
        m_reasons.joined(j);
    }

    void schedule(sim::Decision& decision) override
    {
        const auto& view = decision.view();
        while (!m_queue.empty()) {
            const int j = std::get<2>(*m_queue.begin());
            if (!decision.place(j, fastestFreeType(view, j)))
                break;
            m_queue.erase(m_queue.begin());
        }
        m_reasons.explain(decision, m_queue.empty() ? -1 : std::get<2>(*m_queue.begin()));
    }

private:
    std::set<std::tuple<double, double, int>> m_queue;
    QueueReasons m_reasons{"SJF", "behind a shorter job in SJF order (the shortest waiting job blocks the others)"};
};

} // namespace

std::unique_ptr<Policy> makeSjf()
{
    return std::make_unique<Sjf>();
}

} // namespace orrery::sched
