#pragma once

#include "sim/run_result.h"

#include <string_view>
#include <utility>
#include <vector>

namespace orrery::metrics {

/**
 * Why each job waited, read from a run: the policy's reasons (`reason` job events, Decision::explain) indexed
 * per job, so a viewer asks for the reason of a queued job at any instant (docs/simulator.md, "Why a job
 * waits"). A reason holds from its event until the job next starts or the policy gives another.
 */
class WaitReasons
{
public:
    explicit WaitReasons(const sim::RunResult& run);

    /** The policy's reason for job j's wait at time t; empty when it gave none for that wait. */
    std::string_view at(int job, double timeS) const;
    /** Every reason job j was given, in time order: (time, text). */
    std::vector<std::pair<double, std::string_view>> of(int job) const;
    /** Whether the run holds any reason (a policy that explains nothing leaves the viewer to say what it can). */
    bool any() const { return !m_events.empty(); }

private:
    const sim::RunResult* m_run;
    std::vector<int> m_events;             ///< indices into jobEvents of reasons, by job then time
    std::vector<std::size_t> m_firstEvent; ///< per job + 1: where its reasons start in m_events
    std::vector<double> m_starts;          ///< allocation starts, by job then time
    std::vector<std::size_t> m_firstStart; ///< per job + 1: where its starts begin in m_starts
};

} // namespace orrery::metrics
