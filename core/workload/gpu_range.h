#pragma once

#include "workload/job.h"

#include <algorithm>
#include <climits>

namespace orrery::workload {

/** Fewest GPUs the job runs on (docs/simulator.md, "Elastic jobs"); a bound not declared is a fixed job's request. */
inline int minGpusOf(const Job& job)
{
    return job.minGpus > 0 ? job.minGpus : job.kind == JobKind::Fixed ? job.gpus : 1;
}

/** Most GPUs the job can use; INT_MAX when a serverless job declares no limit. */
inline int maxGpusOf(const Job& job)
{
    return job.maxGpus > 0 ? job.maxGpus : job.kind == JobKind::Fixed ? job.gpus : INT_MAX;
}

/** Whether the job runs on exactly `count` GPUs: within its range and, when it lists counts, one of them. */
inline bool acceptsGpus(const Job& job, int count)
{
    if (count < minGpusOf(job) || count > maxGpusOf(job))
        return false;
    return job.allowedGpus.empty() || std::binary_search(job.allowedGpus.begin(), job.allowedGpus.end(), count);
}

} // namespace orrery::workload
