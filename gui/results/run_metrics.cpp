#include "results/run_metrics.h"

#include "charts/chart_series.h"

#include <algorithm>
#include <cmath>

namespace orrery::gui {

static double quantile(std::vector<double>& sorted, double q)
{
    if (sorted.empty())
        return 0;
    const auto i = static_cast<std::size_t>(std::clamp(std::ceil(q * static_cast<double>(sorted.size())) - 1.0, 0.0,
                                                       static_cast<double>(sorted.size() - 1)));
    return sorted[i];
}

RunMetrics RunMetrics::of(const sim::RunResult& run)
{
    RunMetrics m;
    m.jobs = static_cast<int>(run.jobs.size());
    std::vector<double> jct;
    double queue = 0, rho = 0;
    int rhoCount = 0;
    for (const auto& j : run.jobs) {
        m.costUsd += j.costUsd;
        if (!j.finished())
            continue;
        ++m.finished;
        jct.push_back(j.jctS());
        queue += std::max(0.0, j.queueS());
        if (j.idealS > 0) {
            rho += j.jctS() / j.idealS;
            ++rhoCount;
        }
    }
    std::sort(jct.begin(), jct.end());
    if (!jct.empty()) {
        double sum = 0;
        for (double v : jct)
            sum += v;
        m.meanJctS = sum / static_cast<double>(jct.size());
        m.medianJctS = quantile(jct, 0.5);
        m.p95JctS = quantile(jct, 0.95);
        m.meanQueueS = queue / static_cast<double>(jct.size());
    }
    m.meanRho = rhoCount ? rho / rhoCount : 0;
    m.makespanS = run.makespanS;
    m.utilisation = meanUtilisation(run);
    m.jobsPerHour = run.makespanS > 0 ? m.finished / (run.makespanS / 3600.0) : 0;
    return m;
}

} // namespace orrery::gui
