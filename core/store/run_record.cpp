#include "store/run_record.h"

#include "hardware/cluster.h"
#include "hardware/gpu_layout.h"
#include "io/error.h"

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

void setClusterOf(RunInfo& info, const hardware::Cluster& cluster)
{
    info.gpuTypes.clear();
    info.gpusByType.clear();
    info.priceUsdPerHourByType.clear();
    for (int t : cluster.presentTypes()) {
        const hardware::GpuType& type = cluster.catalog().types()[static_cast<std::size_t>(t)];
        info.gpuTypes.push_back(type.name);
        info.gpusByType.push_back(cluster.gpusOfType(t));
        info.priceUsdPerHourByType.push_back(type.priceUsdPerHour);
    }
    info.layout = hardware::gpuLayoutOf(cluster);
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
