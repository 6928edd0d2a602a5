#include "opt/solve_status.h"

namespace orrery::opt {

const char* toString(Status status)
{
    switch (status) {
    case Status::Optimal:
        return "optimal";
    case Status::Infeasible:
        return "infeasible";
    case Status::Unbounded:
        return "unbounded";
    case Status::IterationLimit:
        return "iteration limit";
    case Status::NodeLimit:
        return "node limit";
    case Status::Failed:
        break;
    }
    return "failed";
}

} // namespace orrery::opt
