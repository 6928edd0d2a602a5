#pragma once

#include "sim/run_result.h"

namespace orrery::gui {

/** The figures of one run shown in the comparison table, the trade-off chart and the PDF. */
struct RunMetrics
{
    int jobs = 0;
    int finished = 0;
    double meanJctS = 0;
    double medianJctS = 0;
    double p95JctS = 0;
    double meanQueueS = 0;
    double makespanS = 0;
    double utilisation = 0; ///< 0..1, time-weighted over the makespan
    double costUsd = 0;     ///< sum over jobs
    double meanRho = 0;     ///< JCT / ideal, over jobs with an ideal time
    double jobsPerHour = 0;

    static RunMetrics of(const sim::RunResult& run);
};

} // namespace orrery::gui
