#pragma once

#include "workload/job.h"

#include <QString>

#include <vector>

namespace orrery::gui {

/** The figures the workload editor shows for a job list (inline or imported trace). */
struct TraceSummary
{
    int jobs = 0;
    int users = 0;
    int models = 0;
    int serverless = 0;
    double firstArrivalS = 0;
    double lastArrivalS = 0;
    /** GPU-demand histogram: labels "1", "2", "3-4", ..., "auto" (serverless: Orrery decides). */
    std::vector<QString> demandLabels;
    std::vector<int> demandCounts;
    /** Arrivals per bin of `arrivalBinS` seconds from 0. */
    double arrivalBinS = 3600;
    std::vector<int> arrivalsPerBin;

    static TraceSummary of(const std::vector<workload::Job>& jobs, int maxArrivalBins = 48);
};

} // namespace orrery::gui
