#pragma once

#include "io/error.h"
#include "provision/placement.h"
#include "provision/provision_types.h"

#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <vector>

namespace orrery::provision {

/** Bookkeeping shared by every strategy: the incumbent, the fastest plan, the scatter and the counters. */
class SearchState
{
public:
    SearchState(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProvisionOptions& options,
                const std::atomic<bool>* cancel)
        : m_job(job), m_pool(pool), m_options(options), m_cancel(cancel), m_start(std::chrono::steady_clock::now())
    {
        m_result.strategy = options.strategy;
    }

    /** Per-iteration SLO t_SLO = T_SLO / z; infinite without a deadline. */
    double iterationSloS() const { return m_job.sloS > 0 ? m_job.sloS / m_job.iterations : INFINITY; }
    double bestCost() const { return m_result.feasible ? m_result.plan.cost : INFINITY; }
    bool hasFeasible() const { return m_result.feasible; }

    /** Considers a placed complete plan; returns true when it became the incumbent. */
    bool offer(const Placement& p, int dp)
    {
        if (!p.valid)
            return false;
        ProvisionPlan plan;
        plan.dp = dp;
        plan.stages = p.stages;
        plan.iterationS = p.iterationS;
        plan.totalS = p.iterationS * m_job.iterations;
        plan.cost = planCost(m_pool, p.stages, dp, p.iterationS, m_job.iterations);
        const bool meets = p.iterationS <= iterationSloS() * (1 + 1e-12);
        if (m_options.recordEvaluated)
            m_result.evaluated.push_back(
                {plan.gpuCounts(m_pool.size()), dp, plan.pp(), plan.iterationS, plan.totalS, plan.cost, meets});
        if (!m_fastestSet || plan.iterationS < m_fastest.iterationS ||
            (plan.iterationS == m_fastest.iterationS && plan.cost < m_fastest.cost)) {
            m_fastest = plan;
            m_fastestSet = true;
        }
        if (meets && plan.cost < bestCost()) {
            m_result.plan = std::move(plan);
            m_result.feasible = true;
            m_result.hasPlan = true;
            return true;
        }
        return false;
    }

    void checkCancel() const
    {
        if (m_cancel && m_cancel->load(std::memory_order_relaxed))
            throw Cancelled();
        // The clock is read every 4,096 checks: search nodes take tens of nanoseconds.
        if (m_limitS > 0 && (++m_checks & 4095U) == 0 &&
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_limitFrom).count() > m_limitS)
            throw Error("", "strategy",
                        fmt::format("{}: the search did not finish within its time limit of {:g} s ({} stage "
                                    "placements expanded); use espresso, relax the SLO, lower the quotas, or raise "
                                    "the limit (--optimal-time-limit-s)",
                                    toString(m_options.strategy), m_limitS, m_result.stats.expanded));
    }

    /** From now on checkCancel() throws orrery::Error once `seconds` (> 0) have passed since `from`. */
    void setTimeLimit(double seconds, std::chrono::steady_clock::time_point from)
    {
        m_limitS = seconds;
        m_limitFrom = from;
    }

    SearchStats& stats() { return m_result.stats; }
    /** Set for the no-deadline re-run that looks for the fastest plan rather than the cheapest. */
    bool seekFastest = false;
    /** The fastest valid plan seen so far, SLO or not; nullptr when none. */
    const ProvisionPlan* fastest() const { return m_fastestSet ? &m_fastest : nullptr; }

    ProvisionResult finish()
    {
        if (!m_result.feasible && m_fastestSet) {
            m_result.plan = m_fastest;
            m_result.hasPlan = true;
        }
        m_result.stats.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
        return std::move(m_result);
    }

private:
    const ProvisionJob& m_job;
    const std::vector<PoolGpu>& m_pool;
    const ProvisionOptions& m_options;
    const std::atomic<bool>* m_cancel;
    std::chrono::steady_clock::time_point m_start;
    ProvisionResult m_result;
    ProvisionPlan m_fastest;
    bool m_fastestSet = false;
    double m_limitS = 0;
    std::chrono::steady_clock::time_point m_limitFrom;
    mutable std::uint32_t m_checks = 0;
};

} // namespace orrery::provision
