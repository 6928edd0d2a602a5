#pragma once

#include "workload/job.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

namespace orrery::sweep {

/**
 * A sweep's edits of a scenario's expanded jobs, which a scenario file cannot express for a trace or a
 * generator: every arrival divided by a factor, and only the N earliest jobs. Applied after the jobs are
 * loaded (inline, trace and generator alike), in that order: the limit keeps the earliest of the scaled
 * arrivals, which are the earliest of the original ones.
 */
struct WorkloadEdits
{
    std::optional<double> arrivalRateScale; ///< > 0; 2 doubles the arrival rate
    std::optional<long long> jobLimit;      ///< >= 1

    bool empty() const { return !arrivalRateScale && !jobLimit; }
    /** Arrivals divided by the factor; a deadline keeps its distance to its job's arrival. */
    void apply(std::vector<workload::Job>& jobs) const;
    /** {"arrival_rate_scale": x, "job_limit": n}, members only when set: part of a point's key and stored run. */
    nlohmann::json toJson() const;
};

} // namespace orrery::sweep
