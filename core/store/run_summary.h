#pragma once

#include "sim/run_result.h"

#include <optional>

namespace orrery::store {

/** The figures a run list shows, kept in the `runs` row so listing never reads the job tables. */
struct RunSummary
{
    int jobCount = 0;
    int finishedJobCount = 0;
    std::optional<double> avgJctS; ///< over finished jobs; absent when none finished
    double makespanS = 0;
    double costUsd = 0;
    double wallS = 0;
};

RunSummary summarize(const sim::RunResult& result);

} // namespace orrery::store
