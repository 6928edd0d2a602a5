#pragma once

#include "sim/policy_options.h"
#include "sim/view.h"

#include <optional>
#include <string>

namespace orrery::sim {

/**
 * One interface for every scheduling policy, beside what it sees (View) and how it answers (Decision):
 * the engine depends on this seam only, and the policies (core/sched) on the engine's seam, never the
 * other way round. Event-driven policies (roundS() == 0) are asked to decide after arrivals and
 * completions; round-based ones every roundS() seconds. A policy keeps its own state between calls
 * (queues, leases), sees the cluster only through a read-only View, and answers through a Decision;
 * only the simulator mutates cluster state. docs/simulator.md, "Writing a policy", walks through one.
 */
class Policy
{
public:
    virtual ~Policy() = default;
    virtual std::string name() const = 0;
    /** Round length in seconds for lease-based policies; 0 for event-driven ones. */
    virtual double roundS(const PolicyOptions& /*options*/) const { return 0; }
    virtual void onArrival(const View& /*view*/, int /*job*/) {}
    virtual void onCompletion(const View& /*view*/, int /*job*/) {}
    /** Job j's profiling (Decision::profile) has ended; it waits in the queue, and schedule() follows. */
    virtual void onProfileEnd(const View& /*view*/, int /*job*/) {}
    virtual void schedule(Decision& decision) = 0;

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
    /** What the policy's parameters replace of the scenario's options (the engine applies them). */
    const Overrides& overrides() const { return m_overrides; }

private:
    std::string m_label;
    Overrides m_overrides;
};

} // namespace orrery::sim
