#include "store/run_record.h"

#include "io/error.h"

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

RunStatus runStatusFromString(const std::string& name)
{
    for (auto s : {RunStatus::Running, RunStatus::Completed, RunStatus::Cancelled, RunStatus::Failed})
        if (name == toString(s))
            return s;
    throw Error("", "status", "expected running, completed, cancelled or failed, got \"" + name + "\"");
}

} // namespace orrery::store
