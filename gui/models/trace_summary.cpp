#include "models/trace_summary.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace orrery::gui {

TraceSummary TraceSummary::of(const std::vector<workload::Job>& jobs, int maxArrivalBins)
{
    TraceSummary s;
    s.jobs = static_cast<int>(jobs.size());
    // Power-of-two buckets: 1, 2, 3-4, 5-8, ... 257+, then "auto".
    static const std::vector<int> upper{1, 2, 4, 8, 16, 32, 64, 128, 256};
    for (std::size_t i = 0; i < upper.size(); ++i)
        s.demandLabels.push_back(i < 2 ? QString::number(upper[i])
                                       : QStringLiteral("%1-%2").arg(upper[i - 1] + 1).arg(upper[i]));
    s.demandLabels.push_back(QStringLiteral(">256"));
    s.demandLabels.push_back(QStringLiteral("auto"));
    s.demandCounts.assign(s.demandLabels.size(), 0);
    std::set<std::string> users, models;
    double last = 0, first = jobs.empty() ? 0 : INFINITY;
    for (const auto& j : jobs) {
        users.insert(j.user);
        if (j.kind == workload::JobKind::Serverless) {
            ++s.serverless;
            models.insert(j.model);
            ++s.demandCounts.back();
        } else {
            models.insert(j.jobType.empty() ? j.model : j.jobType);
            const auto it = std::lower_bound(upper.begin(), upper.end(), j.gpus);
            ++s.demandCounts[static_cast<std::size_t>(it - upper.begin())];
        }
        last = std::max(last, j.arrivalS);
        first = std::min(first, j.arrivalS);
    }
    s.users = static_cast<int>(users.size());
    s.models = static_cast<int>(models.size());
    s.firstArrivalS = first;
    s.lastArrivalS = last;
    // Bins of a round size (minutes, hours, days) so the x axis reads naturally.
    static const std::vector<double> sizes{60, 300, 600, 1800, 3600, 7200, 21600, 86400, 7 * 86400.0};
    s.arrivalBinS = sizes.back();
    for (double b : sizes)
        if (last / b < maxArrivalBins) {
            s.arrivalBinS = b;
            break;
        }
    s.arrivalsPerBin.assign(static_cast<std::size_t>(std::floor(last / s.arrivalBinS)) + 1, 0);
    for (const auto& j : jobs)
        ++s.arrivalsPerBin[static_cast<std::size_t>(
            std::clamp(static_cast<int>(std::floor(std::max(0.0, j.arrivalS) / s.arrivalBinS)), 0,
                       static_cast<int>(s.arrivalsPerBin.size()) - 1))];
    return s;
}

} // namespace orrery::gui
