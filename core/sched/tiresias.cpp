#include "sched/registry.h"

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <utility>

namespace orrery::sched {

namespace {

/**
 * Tiresias' discretised two-dimensional least-attained-service (2D-LAS;
 * Gu et al., NSDI'19): a job's priority is its attained service in
 * GPU-seconds (GPUs x time held), discretised into queues; lower queues
 * first, FIFO by arrival inside a queue (the paper's choice, which avoids
 * the thrashing of continuous LAS). Preemptive: at every arrival, completion
 * and queue demotion the highest-priority jobs that fit in the cluster run,
 * the others are released. Heterogeneity-agnostic placement.
 *
 * Thresholds: 3,600 and 36,000 GPU-seconds (1 and 10 GPU-hours), three
 * queues. The paper finds two to three queues enough and sets thresholds from
 * the job-size distribution; these bracket the Philly median and tail. The
 * paper's starvation guard (PromoteKnob) is not modelled.
 */
class Tiresias : public Policy
{
public:
    static constexpr std::array<double, 2> kThresholdsGpuS = {3600.0, 36000.0};
    static constexpr int kQueues = static_cast<int>(kThresholdsGpuS.size()) + 1;

    std::string name() const override { return "tiresias"; }

    void onArrival(const sim::View& view, int j) override
    {
        if (m_level.empty()) {
            m_level.assign(static_cast<std::size_t>(view.jobCount()), 0);
            m_chosen.assign(static_cast<std::size_t>(view.jobCount()), 0);
        }
        m_queues[0].emplace(view.job(j).arrivalS, j);
    }
    void onCompletion(const sim::View& view, int j) override
    {
        m_queues[static_cast<std::size_t>(m_level[static_cast<std::size_t>(j)])].erase({view.job(j).arrivalS, j});
    }

    void schedule(sim::Decision& decision) override
    {
        const auto& view = decision.view();
        // Demote running jobs that crossed a threshold.
        for (int j : view.running()) {
            int& level = m_level[static_cast<std::size_t>(j)];
            const double attained = view.attainedGpuS(j);
            const int before = level;
            while (level < kQueues - 1 && attained >= kThresholdsGpuS[static_cast<std::size_t>(level)])
                ++level;
            if (level != before) {
                m_queues[static_cast<std::size_t>(before)].erase({view.job(j).arrivalS, j});
                m_queues[static_cast<std::size_t>(level)].emplace(view.job(j).arrivalS, j);
            }
        }
        // Highest priority first, while the cluster has room.
        int budget = view.workload().cluster().totalGpus();
        m_order.clear();
        for (const auto& queue : m_queues) {
            for (const auto& [arrival, j] : queue) {
                if (budget == 0)
                    break;
                if (view.job(j).demand <= budget) {
                    budget -= view.job(j).demand;
                    m_order.push_back(j);
                    m_chosen[static_cast<std::size_t>(j)] = 1;
                }
            }
        }
        const std::vector<int> running = view.running();
        for (int j : running)
            if (!m_chosen[static_cast<std::size_t>(j)])
                decision.release(j);
        double wake = std::numeric_limits<double>::infinity();
        for (int j : m_order) {
            m_chosen[static_cast<std::size_t>(j)] = 0;
            if (view.gpusOf(j).empty() && !decision.place(j))
                continue;
            const int level = m_level[static_cast<std::size_t>(j)];
            if (level < kQueues - 1) {
                const double toGo = kThresholdsGpuS[static_cast<std::size_t>(level)] - view.attainedGpuS(j);
                wake = std::min(wake, view.nowS() + std::max(toGo, 0.0) / static_cast<double>(view.gpusOf(j).size()));
            }
        }
        if (wake > view.nowS())
            decision.wakeAt(wake);
    }

private:
    std::vector<int> m_level;
    std::vector<char> m_chosen;
    std::vector<int> m_order;
    std::array<std::set<std::pair<double, int>>, kQueues> m_queues;
};

} // namespace

std::unique_ptr<Policy> makeTiresias() { return std::make_unique<Tiresias>(); }

} // namespace orrery::sched
