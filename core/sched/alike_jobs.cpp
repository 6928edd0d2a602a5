#include "sched/alike_jobs.h"

#include <algorithm>
#include <map>

namespace orrery::sched {

AlikeJobs alikeJobs(int jobs, int types, const std::vector<int>& demand, const std::vector<double>& value)
{
    const auto T = static_cast<std::size_t>(types);
    // Keyed by a job standing for its rows, so that a lookup copies no row.
    const auto rowsLess = [&](std::size_t a, std::size_t b) {
        const auto da = demand.begin() + static_cast<std::ptrdiff_t>(a * T);
        const auto db = demand.begin() + static_cast<std::ptrdiff_t>(b * T);
        const auto stop = static_cast<std::ptrdiff_t>(T);
        if (!std::equal(da, da + stop, db))
            return std::lexicographical_compare(da, da + stop, db, db + stop);
        const auto va = value.begin() + static_cast<std::ptrdiff_t>(a * T);
        const auto vb = value.begin() + static_cast<std::ptrdiff_t>(b * T);
        return std::lexicographical_compare(va, va + stop, vb, vb + stop);
    };
    std::map<std::size_t, int, decltype(rowsLess)> index(rowsLess);
    AlikeJobs classes;
    classes.classOf.resize(static_cast<std::size_t>(jobs));
    for (std::size_t j = 0; j < classes.classOf.size(); ++j) {
        const auto [it, added] = index.try_emplace(j, static_cast<int>(classes.members.size()));
        if (added) {
            classes.members.push_back(0);
            classes.first.push_back(j);
        }
        ++classes.members[static_cast<std::size_t>(it->second)];
        classes.classOf[j] = it->second;
    }
    return classes;
}

AlikeJobs eachJobAlone(int jobs)
{
    AlikeJobs classes;
    for (int j = 0; j < jobs; ++j) {
        classes.classOf.push_back(j);
        classes.members.push_back(1);
        classes.first.push_back(static_cast<std::size_t>(j));
    }
    return classes;
}

} // namespace orrery::sched
