#pragma once

#include "io/scenario.h"
#include "sim/view.h"

#include <optional>
#include <string>

namespace orrery::sched {

/**
 * One interface for every scheduling policy. Event-driven policies (roundS()
 * == 0) are asked to decide after arrivals and completions; round-based ones
 * every roundS() seconds. A policy keeps its own state between calls (queues,
 * leases), sees the cluster only through a read-only sim::View, and answers
 * through a sim::Decision; only the simulator mutates cluster state.
 */
class Policy
{
public:
    virtual ~Policy() = default;
    virtual std::string name() const = 0;
    /** Round length in seconds for lease-based policies; 0 for event-driven ones. */
    virtual double roundS(const io::ScenarioOptions& /*options*/) const { return 0; }
    virtual void onArrival(const sim::View& /*view*/, int /*job*/) {}
    virtual void onCompletion(const sim::View& /*view*/, int /*job*/) {}
    /** Job j's profiling (Decision::profile) has ended; it waits in the queue, and schedule() follows. */
    virtual void onProfileEnd(const sim::View& /*view*/, int /*job*/) {}
    virtual void schedule(sim::Decision& decision) = 0;

    /** Scenario options a policy's parameters replace for its own run (round_s, restart_penalty_s). */
    struct Overrides
    {
        std::optional<double> roundS;
        std::optional<double> restartPenaltyS;
        std::optional<std::string> restartModel;
        std::optional<double> loadTimeS;
    };
    /** Set by makePolicy(): the canonical spec the run is stored under, and the options it overrides. */
    void configure(std::string label, Overrides overrides)
    {
        m_label = std::move(label);
        m_overrides = std::move(overrides);
    }
    /** `tiresias:backfill_limit=0`; the bare name when no parameter differs from its default. */
    std::string label() const { return m_label.empty() ? name() : m_label; }
    /** The options this run simulates under: the scenario's, with the policy's overrides. */
    io::ScenarioOptions effectiveOptions(io::ScenarioOptions options) const
    {
        if (m_overrides.roundS)
            options.roundS = *m_overrides.roundS;
        if (m_overrides.restartPenaltyS)
            options.restartPenaltyS = *m_overrides.restartPenaltyS;
        if (m_overrides.restartModel)
            options.restartModel = *m_overrides.restartModel;
        if (m_overrides.loadTimeS)
            options.loadTimeS = *m_overrides.loadTimeS;
        return options;
    }

private:
    std::string m_label;
    Overrides m_overrides;
};

} // namespace orrery::sched
