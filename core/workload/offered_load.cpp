#include "workload/offered_load.h"

#include <algorithm>
#include <limits>

namespace orrery::workload {

OfferedLoad offeredLoad(const std::vector<Job>& jobs, int clusterGpus)
{
    OfferedLoad load;
    double first = std::numeric_limits<double>::infinity();
    double last = -first;
    for (const Job& j : jobs) {
        first = std::min(first, j.arrivalS);
        last = std::max(last, j.arrivalS);
        if (j.kind == JobKind::Fixed && j.durationS > 0 && j.gpus > 0) {
            load.demandGpuS += static_cast<double>(j.gpus) * j.durationS;
            ++load.jobsCounted;
        } else {
            ++load.jobsWithoutDuration;
        }
    }
    if (jobs.empty())
        return load;
    load.arrivalSpanS = last - first;
    if (load.jobsCounted > 0 && load.arrivalSpanS > 0 && clusterGpus > 0)
        load.factor = load.demandGpuS / (static_cast<double>(clusterGpus) * load.arrivalSpanS);
    return load;
}

} // namespace orrery::workload
