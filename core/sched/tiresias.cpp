#include "sched/registry.h"

#include <array>
#include <functional>
#include <queue>
#include <set>
#include <tuple>
#include <vector>

namespace orrery::sched {

namespace {

/**
 * Tiresias' discretised two-dimensional least-attained-service (2D-LAS;
 * Gu et al., NSDI'19): a job's priority is its attained service in
 * GPU-seconds (GPUs x time held), discretised into queues; lower queues
 * first, FIFO by arrival inside a queue (the paper's choice, which avoids
 * the thrashing of continuous LAS). Preemptive: the highest-priority waiting
 * job starts as soon as free GPUs plus those of strictly lower-priority
 * running jobs cover it (those are released); when it cannot start even so,
 * up to 64 further waiting jobs may start on free GPUs (backfill, no
 * preemption). Heterogeneity-agnostic placement.
 *
 * Thresholds: 3,600 and 36,000 GPU-seconds (1 and 10 GPU-hours), three
 * queues. The paper finds two to three queues enough and sets thresholds from
 * the job-size distribution; these bracket the Philly median and tail. The
 * paper's starvation guard (PromoteKnob) is not modelled.
 *
 * Cost per decision: O(log n) per job started, preempted or demoted (ordered
 * sets of waiting and running jobs, a heap of threshold-crossing times), so a
 * decision never walks the whole queue.
 */
class Tiresias : public Policy
{
public:
    static constexpr std::array<double, 2> kThresholdsGpuS = {3600.0, 36000.0};
    static constexpr int kQueues = static_cast<int>(kThresholdsGpuS.size()) + 1;
    static constexpr int kBackfill = 64;

    std::string name() const override { return "tiresias"; }

    void onArrival(const sim::View& view, int j) override
    {
        if (m_level.empty()) {
            m_level.assign(static_cast<std::size_t>(view.jobCount()), 0);
            m_since.assign(static_cast<std::size_t>(view.jobCount()), -1);
        }
        m_waiting.insert(key(view, j));
    }
    void onCompletion(const sim::View& view, int j) override
    {
        m_running.erase(key(view, j));
        m_since[static_cast<std::size_t>(j)] = -1;
    }

    void schedule(sim::Decision& decision) override
    {
        const auto& view = decision.view();
        const double now = view.nowS();
        // Demote running jobs whose attained service crossed their queue's threshold.
        while (!m_crossings.empty() && std::get<0>(m_crossings.top()) <= now + 1e-9) {
            const auto [t, j, since] = m_crossings.top();
            m_crossings.pop();
            if (m_since[static_cast<std::size_t>(j)] != since)
                continue; // preempted or finished since
            m_running.erase(key(view, j));
            int& level = m_level[static_cast<std::size_t>(j)];
            while (level < kQueues - 1 && view.attainedGpuS(j) >= kThresholdsGpuS[static_cast<std::size_t>(level)] - 1e-6)
                ++level;
            m_running.insert(key(view, j));
            pushCrossing(view, j);
        }

        int free = 0;
        for (int t = 0; t < view.typeCount(); ++t)
            free += view.freeGpus(t);
        int tries = 0;
        bool headBlocked = false;
        for (auto it = m_waiting.begin(); it != m_waiting.end() && tries <= kBackfill;) {
            const Key k = *it;
            const int j = std::get<2>(k);
            const int demand = view.job(j).demand;
            if (demand > free && !headBlocked) {
                // Free GPUs of strictly lower-priority running jobs, lowest first.
                int freed = 0;
                std::vector<Key> victims;
                for (auto r = m_running.rbegin(); r != m_running.rend() && free + freed < demand && k < *r; ++r) {
                    victims.push_back(*r);
                    freed += view.job(std::get<2>(*r)).demand;
                }
                if (free + freed >= demand) {
                    for (const Key& v : victims) {
                        decision.release(std::get<2>(v));
                        m_running.erase(v);
                        m_waiting.insert(v);
                        m_since[static_cast<std::size_t>(std::get<2>(v))] = -1;
                    }
                    free += freed;
                }
            }
            if (demand <= free && decision.place(j)) {
                it = m_waiting.erase(it);
                m_running.insert(k);
                free -= static_cast<int>(view.gpusOf(j).size());
                m_since[static_cast<std::size_t>(j)] = now;
                pushCrossing(view, j);
                continue;
            }
            headBlocked = true;
            ++tries;
            if (free == 0)
                break;
            ++it;
        }
        if (!m_crossings.empty())
            decision.wakeAt(std::get<0>(m_crossings.top()));
    }

private:
    using Key = std::tuple<int, double, int>; // (queue, arrival, job)
    using Crossing = std::tuple<double, int, double>; // (time, job, allocated since)

    Key key(const sim::View& view, int j) const { return {m_level[static_cast<std::size_t>(j)], view.job(j).arrivalS, j}; }

    void pushCrossing(const sim::View& view, int j)
    {
        const int level = m_level[static_cast<std::size_t>(j)];
        if (level >= kQueues - 1)
            return;
        const double toGo = kThresholdsGpuS[static_cast<std::size_t>(level)] - view.attainedGpuS(j);
        const auto gpus = static_cast<double>(view.gpusOf(j).size());
        m_crossings.emplace(view.nowS() + std::max(toGo, 0.0) / gpus, j, m_since[static_cast<std::size_t>(j)]);
    }

    std::vector<int> m_level;
    std::vector<double> m_since;
    std::set<Key> m_waiting;
    std::set<Key> m_running;
    std::priority_queue<Crossing, std::vector<Crossing>, std::greater<>> m_crossings;
};

} // namespace

std::unique_ptr<Policy> makeTiresias() { return std::make_unique<Tiresias>(); }

} // namespace orrery::sched
