#include "workload/job.h"

#include <algorithm>

namespace orrery::workload {

std::vector<Deadline> Job::allDeadlines() const
{
    std::vector<Deadline> out = deadlines;
    if (deadlineS)
        out.push_back({*deadlineS, reward});
    std::stable_sort(out.begin(), out.end(), [](const Deadline& a, const Deadline& b) { return a.atS < b.atS; });
    return out;
}

} // namespace orrery::workload
