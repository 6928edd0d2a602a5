#include "sweep/workload_edits.h"

namespace orrery::sweep {

void WorkloadEdits::apply(std::vector<workload::Job>& jobs) const
{
    if (arrivalRateScale) {
        const double f = *arrivalRateScale;
        for (auto& j : jobs) {
            const double arrival = j.arrivalS / f;
            // A deadline measures the job's own urgency, not the load: it moves with the arrival.
            const double shift = arrival - j.arrivalS;
            if (j.deadlineS)
                *j.deadlineS += shift;
            for (auto& d : j.deadlines)
                d.atS += shift;
            j.arrivalS = arrival;
        }
    }
    // loadJobs() returns jobs sorted by arrival (stably), and division keeps the order.
    if (jobLimit && static_cast<long long>(jobs.size()) > *jobLimit)
        jobs.resize(static_cast<std::size_t>(*jobLimit));
}

nlohmann::json WorkloadEdits::toJson() const
{
    nlohmann::json j = nlohmann::json::object();
    if (arrivalRateScale)
        j["arrival_rate_scale"] = *arrivalRateScale;
    if (jobLimit)
        j["job_limit"] = *jobLimit;
    return j;
}

} // namespace orrery::sweep
