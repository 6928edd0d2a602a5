#include "results/cluster_snapshot.h"

#include <algorithm>

namespace orrery::gui {

ClusterSnapshot ClusterSnapshot::at(const TimelineIndex& index, double timeS)
{
    ClusterSnapshot s;
    s.timeS = timeS;
    const auto* run = index.run();
    if (!run)
        return s;
    s.jobOnGpu.assign(static_cast<std::size_t>(index.gpuCount()), -1);
    std::vector<char> isRunning(run->jobs.size(), 0);
    for (int g = 0; g < index.gpuCount(); ++g) {
        const int k = index.intervalAt(g, timeS);
        if (k < 0)
            continue;
        const int job = run->intervals[static_cast<std::size_t>(k)].job;
        s.jobOnGpu[static_cast<std::size_t>(g)] = job;
        if (job >= 0 && static_cast<std::size_t>(job) < isRunning.size() && !isRunning[static_cast<std::size_t>(job)]) {
            isRunning[static_cast<std::size_t>(job)] = 1;
            s.running.push_back(job);
        }
    }
    for (std::size_t j = 0; j < run->jobs.size(); ++j) {
        const auto& job = run->jobs[j];
        const bool arrived = job.arrivalS <= timeS;
        // A dropped job leaves the queue at its drop, without finishing.
        const bool done = (job.finished() && job.endS <= timeS) || (job.dropped() && job.droppedS <= timeS);
        if (arrived && !done && !isRunning[j])
            s.queued.push_back(static_cast<int>(j));
    }
    std::stable_sort(s.queued.begin(), s.queued.end(), [&](int a, int b) {
        return run->jobs[static_cast<std::size_t>(a)].arrivalS < run->jobs[static_cast<std::size_t>(b)].arrivalS;
    });
    return s;
}

int ClusterSnapshot::busyGpus() const
{
    return static_cast<int>(std::count_if(jobOnGpu.begin(), jobOnGpu.end(), [](int j) { return j >= 0; }));
}

} // namespace orrery::gui
