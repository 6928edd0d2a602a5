#include "store/run_summary_row.h"

#include "metrics/metrics.h"
#include "store/sqlite.h"

namespace orrery::store {

RunSummaryRow summaryRowOf(const sim::RunResult& result)
{
    const metrics::Summary s = metrics::summarize(result, metrics::SummaryScope::Headline);
    RunSummaryRow row;
    row.jobs = s.jobs;
    row.jobsCompleted = s.jobsCompleted;
    if (s.jobsCompleted > 0)
        row.avgJctS = s.avgJctS;
    row.makespanS = s.makespanS;
    row.costUsd = s.costUsd;
    row.wallS = s.wallS;
    row.events = static_cast<std::int64_t>(result.events);
    row.totalGpus = result.totalGpus;
    row.jobsDropped = s.jobsDropped;
    return row;
}

void bindSummaryRow(Statement& s, int first, const RunSummaryRow& row)
{
    s.bind(first, row.jobs)
        .bind(first + 1, row.jobsCompleted)
        .bind(first + 2, row.avgJctS)
        .bind(first + 3, row.makespanS)
        .bind(first + 4, row.costUsd)
        .bind(first + 5, row.wallS)
        .bind(first + 6, row.events)
        .bind(first + 7, row.totalGpus)
        .bind(first + 8, row.jobsDropped);
}

} // namespace orrery::store
