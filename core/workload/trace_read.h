#pragma once

#include "io/limits.h"
#include "io/text_table.h"
#include "workload/job.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace orrery::workload {

/** What a trace reader produced: the jobs, and what it left out and why. */
struct TraceRead
{
    std::vector<Job> jobs;
    int rows = 0;           ///< data rows (or JSON entries) read
    int skipped = 0;        ///< rows that are not GPU jobs Orrery can run (CPU-only, never ran...)
    std::string skippedWhy; ///< one line, e.g. "1088 CPU-only pods"
};

/**
 * Orders jobs by arrival (stable, so equal arrivals keep file order) and keeps
 * the `limit` earliest: for traces that are not sorted (philly.csv, openb
 * variants) "the first N jobs" means the first N to arrive, not file order.
 */
inline void sortAndLimit(std::vector<Job>& jobs, std::optional<int> limit)
{
    const auto byArrival = [](const Job& a, const Job& b) { return a.arrivalS < b.arrivalS; };
    if (!std::is_sorted(jobs.begin(), jobs.end(), byArrival))
        std::stable_sort(jobs.begin(), jobs.end(), byArrival);
    if (limit && static_cast<std::size_t>(*limit) < jobs.size())
        jobs.resize(static_cast<std::size_t>(*limit));
}

/**
 * Refuses a trace that holds more than `cap` GPU jobs (io::limits::kMaxJobs, the most a workload may hold),
 * naming the row (`location`) where the count passes it. Readers call it as they add each job, so a huge trace
 * fails before its jobs fill memory, and `import` never writes a scenario that `scenario check` would reject.
 * The cap holds whatever the limit: the earliest jobs are only known once the whole trace is read.
 */
/**
 * Refuses a node list (openb) or machine table (PAI) once its GPU nodes pass the caps a scenario's cluster has
 * (io::limits::kMaxClusterNodes, kMaxClusterGpus), naming the row; `import` would otherwise write a cluster that
 * `scenario check` rejects.
 */
void checkClusterSize(long long nodes, long long gpus, const io::FieldParser& row);

void checkTraceJobCount(std::size_t jobs, const std::string& file, const std::string& location,
                        long long cap = io::limits::kMaxJobs);

} // namespace orrery::workload
