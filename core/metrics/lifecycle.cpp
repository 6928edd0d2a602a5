#include "metrics/metrics.h"

#include <algorithm>

namespace orrery::metrics {

void addLifecycle(Summary& s, const sim::RunResult& run)
{
    double usedS = 0, heldS = 0;
    for (const auto& j : run.jobs) {
        heldS += j.gpuSeconds;
        usedS += j.usedGpuSeconds();
        s.suspensions += j.suspensions;
        if (j.dropped())
            ++s.jobsDropped;
        if (j.deadlines.empty())
            continue;
        ++s.sloJobs;
        if (deadlineMet(j, j.deadlines.front()))
            ++s.sloJobsMet;
        for (const auto& d : j.deadlines) {
            ++s.deadlines;
            if (deadlineMet(j, d)) {
                ++s.deadlinesMet;
                s.reward += d.reward;
            }
        }
    }
    s.gpuHoursBilled = heldS / 3600.0;
    s.gpuHoursUsed = usedS / 3600.0;
}

std::vector<SloClassAttainment> sloAttainmentByClass(const sim::RunResult& run)
{
    std::vector<SloClassAttainment> out;
    for (const auto& j : run.jobs) {
        if (j.sloClass.empty() || j.deadlines.empty())
            continue;
        auto it = std::find_if(out.begin(), out.end(), [&](const auto& c) { return c.sloClass == j.sloClass; });
        if (it == out.end())
            it = out.insert(out.end(), SloClassAttainment{j.sloClass, 0, 0, 0});
        ++it->jobs;
        if (deadlineMet(j, j.deadlines.front()))
            ++it->jobsMet;
        for (const auto& d : j.deadlines)
            if (deadlineMet(j, d))
                it->reward += d.reward;
    }
    return out;
}

} // namespace orrery::metrics
