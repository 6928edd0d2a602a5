#include "sched/fastest_free_type.h"
#include "sched/queue_reasons.h"
#include "sched/registry.h"

#include <algorithm>
#include <limits>
#include <set>
#include <tuple>

namespace orrery::sched {

namespace {

/**
 * Earliest deadline first with admission control: the waiting job with the earliest deadline starts
 * first (jobs without one after all that have, by arrival), on the fastest type with room for its
 * demand; the head blocks the others, as in sjf. With `drop_late` (the default) a waiting job that can
 * no longer meet its last deadline even if it started now on its best allocation (now + its estimated
 * run time, View::estimatedDurationS) is dropped: it frees the queue for jobs that still can. The check
 * is optimistic (a job may start on a slower type and still miss), and it reads estimates, which are the
 * truth unless the scenario sets estimate_error: an oracle by default. Non-preemptive.
 */
class Edf : public Policy
{
public:
    explicit Edf(const PolicyParams& params) : m_dropLate(params.boolean("drop_late")) {}

    std::string name() const override { return "edf"; }

    void onArrival(const sim::View& view, int j) override
    {
        const auto& d = view.deadlines(j);
        const double first = d.empty() ? kNone : d.front().atS;
        m_queue.emplace(first, view.job(j).arrivalS, j);
        m_reasons.joined(j);
    }

    void schedule(sim::Decision& decision) override
    {
        const auto& view = decision.view();
        if (m_dropLate)
            dropLate(decision, false);
        while (!m_queue.empty()) {
            const int j = std::get<2>(*m_queue.begin());
            if (!decision.place(j, fastestFreeType(view, j)))
                break;
            m_queue.erase(m_queue.begin());
        }
        m_reasons.explain(decision, m_queue.empty() ? -1 : std::get<2>(*m_queue.begin()));
        // A job still waiting at its last chance to start will miss; decide again at the next one's.
        if (m_dropLate) {
            dropLate(decision, true);
            double next = std::numeric_limits<double>::infinity();
            for (const auto& entry : m_queue)
                next = std::min(next, lastStart(view, std::get<2>(entry)));
            decision.wakeAt(next);
        }
    }

private:
    static constexpr double kNone = std::numeric_limits<double>::infinity();

    static double lastStart(const sim::View& view, int j)
    {
        const auto& d = view.deadlines(j);
        return d.empty() ? kNone : d.back().atS - view.estimatedDurationS(j);
    }

    void dropLate(sim::Decision& decision, bool atLastChance)
    {
        const auto& view = decision.view();
        for (auto it = m_queue.begin(); it != m_queue.end();) {
            const int j = std::get<2>(*it);
            const double last = lastStart(view, j);
            if (view.nowS() > last || (atLastChance && view.nowS() >= last)) {
                decision.drop(j, "cannot meet its deadline");
                it = m_queue.erase(it);
            } else {
                ++it;
            }
        }
    }

    bool m_dropLate;
    std::set<std::tuple<double, double, int>> m_queue;
    QueueReasons m_reasons{"EDF", "behind a job with an earlier deadline in EDF order (the head blocks the others)"};
};

} // namespace

std::vector<ParamSpec> edfParams()
{
    return {{"drop_late",
             ParamType::Boolean,
             "true",
             0,
             0,
             {},
             1,
             16,
             false,
             "drop a waiting job that cannot meet its last deadline even if it started now (estimated run time)"}};
}

std::unique_ptr<Policy> makeEdf(const PolicyParams& params)
{
    return std::make_unique<Edf>(params);
}

} // namespace orrery::sched
