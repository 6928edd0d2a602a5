#pragma once

#include "io/scenario.h"
#include "workload/job.h"

#include <memory>
#include <vector>

namespace orrery::workload {
class GavelThroughputTable;
}

namespace orrery::io {

/**
 * Every job of a scenario, expanded: the inline jobs, then the trace (path
 * resolved against the scenario file, `limit` honoured), then the generator
 * (seeded with its own seed or the scenario's). Ids are unique: an inline id is
 * kept, and a trace or generated job whose id is already taken gets `~2`, `~3`...
 * appended. The result is sorted by arrival, stably (ties keep that order).
 * Trace and generator problems are orrery::Errors naming their file.
 */
std::vector<workload::Job> loadJobs(const Scenario& s);
/** The same with the Gavel table `options.throughputs` names already read (nullptr: none). */
std::vector<workload::Job> loadJobs(const Scenario& s,
                                    const std::shared_ptr<const workload::GavelThroughputTable>& gavelTable);

/** Keeps the first job of each id and renames later ones `<id>~2`, `<id>~3`... (never to a taken id). */
void assignUniqueIds(std::vector<workload::Job>& jobs);

} // namespace orrery::io
