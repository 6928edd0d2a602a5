#pragma once

#include <cstddef>
#include <vector>

namespace orrery::sched {

/**
 * Jobs of an allocation problem grouped into classes of jobs alike: equal rows of demand and of a per-cell value
 * (throughputs, normalised throughputs). Gavel's allocation LPs are symmetric in such jobs, so one variable row per
 * class, its capacity use weighted by the class size, stands for them all (max_min_lp.cpp, gavel_ecos_point.cpp).
 * Classes are numbered in the order of their first job.
 */
struct AlikeJobs
{
    std::vector<int> classOf;       ///< per job
    std::vector<int> members;       ///< per class: how many jobs
    std::vector<std::size_t> first; ///< per class: its first job
    std::size_t count() const { return members.size(); }
};

/** `demand` and `value` are row-major jobs x types. */
AlikeJobs alikeJobs(int jobs, int types, const std::vector<int>& demand, const std::vector<double>& value);

/** Every job a class of its own (the LP unmerged). */
AlikeJobs eachJobAlone(int jobs);

} // namespace orrery::sched
