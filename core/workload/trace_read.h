#pragma once

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

} // namespace orrery::workload
