#pragma once

#include "sim/prepared_workload.h"
#include "sweep/sweep_plan.h"

#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace orrery::sweep {

/**
 * The prepared workloads of a sweep, shared by the points that may share one (ResolvedScenario::workloadKey):
 * preparing a workload (loading a trace, estimating every job's rate on every GPU type) often costs more than
 * simulating it under one policy. Thread-safe: the first thread to ask prepares, the others wait for it. Each
 * workload is kept until release() has been called as many times as `uses` said, so that a sweep over many
 * workloads does not hold them all.
 */
class WorkloadCache
{
public:
    /** Declares that `uses` more points will get() (and release()) the workload of `scenario`. */
    void expect(const ResolvedScenario& scenario, std::size_t uses = 1);
    /** The prepared workload (rethrows the preparation's error to every point that asks). */
    std::shared_ptr<const sim::PreparedWorkload> get(const ResolvedScenario& scenario);
    /** One point is done with it; the last one frees it. */
    void release(const ResolvedScenario& scenario);
    std::size_t held() const;

private:
    struct Entry
    {
        std::shared_future<std::shared_ptr<const sim::PreparedWorkload>> future;
        bool started = false;
        std::size_t uses = 0;
    };
    mutable std::mutex m_mutex;
    std::map<std::string, Entry> m_entries;
};

/** Prepares one resolved scenario: its jobs, with the sweep's workload edits, bound to its throughput sources. */
sim::PreparedWorkload prepareResolved(const ResolvedScenario& scenario);

} // namespace orrery::sweep
