#include "store/run_summary.h"

namespace orrery::store {

RunSummary summarize(const sim::RunResult& result)
{
    RunSummary s;
    s.jobCount = static_cast<int>(result.jobs.size());
    double jctSum = 0;
    for (const auto& j : result.jobs) {
        s.costUsd += j.costUsd;
        if (j.finished()) {
            ++s.finishedJobCount;
            jctSum += j.jctS();
        }
    }
    if (s.finishedJobCount > 0)
        s.avgJctS = jctSum / s.finishedJobCount;
    s.makespanS = result.makespanS;
    s.wallS = result.wallS;
    return s;
}

} // namespace orrery::store
