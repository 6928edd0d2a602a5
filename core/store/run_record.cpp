#include "store/run_record.h"

#include "hardware/gpu_layout.h"
#include "io/error.h"
#include "sim/prepared_workload.h"

#include <algorithm>

namespace orrery::store {

const char* toString(RunStatus status)
{
    switch (status) {
    case RunStatus::Running:
        return "running";
    case RunStatus::Completed:
        return "completed";
    case RunStatus::Cancelled:
        return "cancelled";
    case RunStatus::Failed:
        return "failed";
    }
    return "failed";
}

void setClusterOf(RunInfo& info, const sim::PreparedWorkload& workload)
{
    info.gpuTypes.clear();
    info.gpusByType.clear();
    info.priceUsdPerHourByType.clear();
    for (int t = 0; t < workload.typeCount(); ++t) {
        info.gpuTypes.push_back(workload.type(t).name);
        info.gpusByType.push_back(workload.gpusOfType(t));
        info.priceUsdPerHourByType.push_back(workload.type(t).priceUsdPerHour);
    }
    info.layout = hardware::gpuLayoutOf(workload.cluster());
}

RunStatus runStatusFromString(const std::string& name)
{
    for (auto s : {RunStatus::Running, RunStatus::Completed, RunStatus::Cancelled, RunStatus::Failed})
        if (name == toString(s))
            return s;
    throw Error("", "status", "expected running, completed, cancelled or failed, got \"" + name + "\"");
}

std::size_t StoredRun::storedJobCount() const
{
    return static_cast<std::size_t>(std::count(jobStored.begin(), jobStored.end(), 1));
}

} // namespace orrery::store
