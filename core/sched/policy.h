#pragma once

#include "io/scenario.h"
#include "sim/view.h"

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
    virtual void schedule(sim::Decision& decision) = 0;
};

} // namespace orrery::sched
