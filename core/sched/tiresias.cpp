#include "sched/registry.h"

#include <fmt/format.h>

#include <algorithm>
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
 * job starts as soon as free GPUs plus those of running jobs behind it cover
 * it (those are released); when it cannot start even so, up to
 * `backfill_limit` further waiting jobs may start on free GPUs (backfill, no
 * preemption). Heterogeneity-agnostic placement.
 *
 * Parameters (docs/simulator.md, "tiresias"): `queue_thresholds_s`, the queue
 * boundaries in GPU-seconds (default 3,600 and 36,000: 1 and 10 GPU-hours,
 * three queues; the paper finds two to three queues enough and sets thresholds
 * from the job-size distribution; these bracket the Philly median and tail);
 * `preempt_same_queue`, whether a waiting job may preempt a running job of its
 * own queue that arrived later (Orrery's default; Tiresias' simulator never
 * does); `consolidate_max_gpus`, jobs of at most that many GPUs start only
 * inside one node (YARN-style placement; Tiresias' FIFO uses it, its dlas
 * does not); `backfill_limit`.
 * Presets `tiresias` and `pollux` set them as those simulators do. The paper's
 * starvation guard (PromoteKnob) is not modelled.
 *
 * Cost per decision: O(log n) per job started, preempted or demoted (ordered
 * sets of waiting and running jobs, a heap of threshold-crossing times), so a
 * decision never walks the whole queue.
 */
class Tiresias : public Policy
{
public:
    explicit Tiresias(const PolicyParams& params)
        : m_thresholdsGpuS(params.numbers("queue_thresholds_s")),
          m_queues(static_cast<int>(m_thresholdsGpuS.size()) + 1), m_backfill(params.integer("backfill_limit")),
          m_preemptSameQueue(params.boolean("preempt_same_queue")),
          m_consolidateMaxGpus(static_cast<int>(params.integer("consolidate_max_gpus")))
    {}

    std::string name() const override { return "tiresias"; }

    void onArrival(const sim::View& view, int j) override
    {
        if (m_level.empty()) {
            m_level.assign(static_cast<std::size_t>(view.jobCount()), 0);
            m_since.assign(static_cast<std::size_t>(view.jobCount()), -1);
        }
        m_waiting.insert(key(view, j));
        m_joined.push_back(j);
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
            while (level < m_queues - 1 &&
                   view.attainedGpuS(j) >= m_thresholdsGpuS[static_cast<std::size_t>(level)] - 1e-6)
                ++level;
            m_running.insert(key(view, j));
            pushCrossing(view, j);
        }

        int free = 0;
        for (int t = 0; t < view.typeCount(); ++t)
            free += view.freeGpus(t);
        long long tries = 0;
        bool headBlocked = false;
        for (auto it = m_waiting.begin(); it != m_waiting.end() && tries <= m_backfill;) {
            const Key k = *it;
            const int j = std::get<2>(k);
            const int demand = fewestGpus(view, j);
            if (demand > free && !headBlocked) {
                // Free GPUs of strictly lower-priority running jobs, lowest first.
                int freed = 0;
                std::vector<Key> victims;
                for (auto r = m_running.rbegin(); r != m_running.rend() && free + freed < demand && outranks(k, *r);
                     ++r) {
                    victims.push_back(*r);
                    freed += static_cast<int>(view.gpusOf(std::get<2>(*r)).size());
                }
                if (free + freed >= demand) {
                    for (const Key& v : victims) {
                        decision.release(std::get<2>(v));
                        m_running.erase(v);
                        m_waiting.insert(v);
                        m_joined.push_back(std::get<2>(v));
                        m_since[static_cast<std::size_t>(std::get<2>(v))] = -1;
                    }
                    free += freed;
                }
            }
            if (demand <= free && start(decision, j)) {
                it = m_waiting.erase(it);
                m_running.insert(k);
                free -= static_cast<int>(view.gpusOf(j).size());
                m_since[static_cast<std::size_t>(j)] = now;
                pushCrossing(view, j);
                continue;
            }
            decision.explain(j, reasonText(std::get<0>(k)));
            headBlocked = true;
            ++tries;
            if (free == 0)
                break;
            ++it;
        }
        // Jobs that joined the queue (arrived or preempted) and were not reached above are told their queue too:
        // a waiting job's queue does not change until it runs again, so once per wait is enough, and a long
        // queue costs nothing per decision.
        for (int j : m_joined)
            if (view.gpusOf(j).empty() && view.status(j) != sim::JobStatus::Done)
                decision.explain(j, reasonText(m_level[static_cast<std::size_t>(j)]));
        m_joined.clear();
        if (!m_crossings.empty())
            decision.wakeAt(std::get<0>(m_crossings.top()));
    }

private:
    using Key = std::tuple<int, double, int>; // (queue, arrival, job)

    // One stable text per queue (docs/simulator.md, "Why a job waits"), made once.
    const std::string& reasonText(int level)
    {
        if (m_reasons.empty())
            for (int q = 0; q < m_queues; ++q)
                m_reasons.push_back(fmt::format("queue {} of {} by attained GPU time (Tiresias' 2D-LAS): waits for "
                                                "room, on one node if it is small, and no lower-priority job to "
                                                "preempt",
                                                q + 1, m_queues));
        return m_reasons[static_cast<std::size_t>(std::clamp(level, 0, m_queues - 1))];
    }
    using Crossing = std::tuple<double, int, double>; // (time, job, allocated since)

    // Lower keys run first; with preempt_same_queue off only a strictly lower queue takes GPUs away.
    bool outranks(const Key& waiting, const Key& running) const
    {
        return m_preemptSameQueue ? waiting < running : std::get<0>(waiting) < std::get<0>(running);
    }

    // The fewest GPUs job j can start on: its demand, or for a serverless job its smallest plan over the
    // types it may use (Tiresias counts GPUs, not types).
    static int fewestGpus(const sim::View& view, int j)
    {
        const auto& w = view.workload();
        int fewest = view.job(j).demand;
        for (int t = 0; t < w.typeCount(); ++t)
            if (w.allowed(j, t))
                fewest = std::min(fewest, w.demandOn(j, t));
        return fewest;
    }

    bool start(sim::Decision& decision, int j) const
    {
        const auto& view = decision.view();
        if (fewestGpus(view, j) > m_consolidateMaxGpus || !fitsOneNode(view, j))
            return decision.place(j);
        // A small job waits for one node with room rather than spreading (Tiresias' consolidated placement);
        // each type is tried, since the first type with room may only have it spread over nodes.
        const auto& w = view.workload();
        const auto& cluster = w.cluster();
        for (int t = 0; t < w.typeCount(); ++t) {
            if (!w.allowed(j, t) || view.freeGpus(t) < w.demandOn(j, t))
                continue;
            const std::vector<int> gpus = decision.findGpus(j, t);
            if (gpus.empty())
                continue;
            const bool oneNode = std::all_of(gpus.begin(), gpus.end(), [&](int g) {
                return cluster.nodeOfGpu(g) == cluster.nodeOfGpu(gpus.front());
            });
            // A serverless job's plan on this type may be larger than the consolidation limit: free placement.
            if (oneNode || w.demandOn(j, t) > m_consolidateMaxGpus) {
                decision.assign(j, gpus);
                return true;
            }
        }
        return false;
    }

    // A job larger than every node it may use could never start inside one: it is placed as usual.
    static bool fitsOneNode(const sim::View& view, int j)
    {
        const auto& w = view.workload();
        for (int t = 0; t < w.typeCount(); ++t)
            if (w.allowed(j, t) && w.maxGpusPerNode(t) >= w.demandOn(j, t))
                return true;
        return false;
    }

    Key key(const sim::View& view, int j) const
    {
        return {m_level[static_cast<std::size_t>(j)], view.job(j).arrivalS, j};
    }

    void pushCrossing(const sim::View& view, int j)
    {
        const int level = m_level[static_cast<std::size_t>(j)];
        if (level >= m_queues - 1)
            return;
        const double toGo = m_thresholdsGpuS[static_cast<std::size_t>(level)] - view.attainedGpuS(j);
        const auto gpus = static_cast<double>(view.gpusOf(j).size());
        m_crossings.emplace(view.nowS() + std::max(toGo, 0.0) / gpus, j, m_since[static_cast<std::size_t>(j)]);
    }

    std::vector<double> m_thresholdsGpuS;
    int m_queues;
    long long m_backfill;
    bool m_preemptSameQueue;
    int m_consolidateMaxGpus;
    std::vector<int> m_level;
    std::vector<std::string> m_reasons;
    std::vector<int> m_joined; ///< jobs that joined the waiting set since the last decision
    std::vector<double> m_since;
    std::set<Key> m_waiting;
    std::set<Key> m_running;
    std::priority_queue<Crossing, std::vector<Crossing>, std::greater<>> m_crossings;
};

} // namespace

std::vector<ParamSpec> tiresiasParams()
{
    return {
        {"queue_thresholds_s",
         ParamType::NumberList,
         "3600,36000",
         0,
         1e12,
         {},
         1,
         16,
         true,
         "attained-service boundaries between the priority queues, in GPU-seconds (n values: n+1 queues)"},
        {"backfill_limit",
         ParamType::Integer,
         "64",
         0,
         1e9,
         {},
         1,
         16,
         false,
         "how many waiting jobs behind a blocked head may start on free GPUs (0: none)"},
        {"preempt_same_queue",
         ParamType::Boolean,
         "true",
         0,
         0,
         {},
         1,
         16,
         false,
         "a waiting job may preempt a running job of its own queue that arrived after it"},
        {"consolidate_max_gpus",
         ParamType::Integer,
         "0",
         0,
         1e6,
         {},
         1,
         16,
         false,
         "jobs of at most this many GPUs start only within one node (0: no constraint)"},
    };
}

std::vector<PolicyPreset> tiresiasPresets()
{
    return {
        {"tiresias",
         "Tiresias' simulator (dlas-gpu): 3,250/7,200 GPU-s, no same-queue preemption, GPUs counted "
         "(no consolidation), no backfill limit",
         // Its dlas schedulers count free GPUs and never call the YARN placement that its FIFO uses:
         // consolidating here moved the 60-job trace's average JCT 5% off (docs/validation.md, "Peers").
         {{"queue_thresholds_s", "3250,7200"},
          {"preempt_same_queue", "false"},
          {"consolidate_max_gpus", "0"},
          {"backfill_limit", "1000000000"}}},
        {"pollux", "Pollux's simulator's tiresias: one queue split at 57,600 GPU-s", {{"queue_thresholds_s", "57600"}}},
    };
}

std::unique_ptr<Policy> makeTiresias(const PolicyParams& params)
{
    return std::make_unique<Tiresias>(params);
}

} // namespace orrery::sched
