#include "metrics/apps.h"

#include "sim/prepared_workload.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace orrery::metrics {

namespace {

/** The time-average of a step function of active apps, over any window, from its running integral. */
class ActiveCount
{
public:
    explicit ActiveCount(std::vector<std::pair<double, int>> steps)
    {
        std::sort(steps.begin(), steps.end());
        int count = 0;
        double acc = 0;
        for (const auto& [t, d] : steps) {
            if (!m_times.empty())
                acc += count * (t - m_times.back());
            count += d;
            if (!m_times.empty() && m_times.back() == t) {
                m_countAfter.back() = count;
                continue;
            }
            m_times.push_back(t);
            m_integral.push_back(acc);
            m_countAfter.push_back(count);
        }
    }
    double integralAt(double t) const
    {
        const auto it = std::upper_bound(m_times.begin(), m_times.end(), t);
        if (it == m_times.begin())
            return 0.0;
        const auto k = static_cast<std::size_t>(it - m_times.begin()) - 1;
        return m_integral[k] + m_countAfter[k] * (t - m_times[k]);
    }
    /** Apps active just after t (arrivals at t counted, leavers at t not). */
    int countAt(double t) const
    {
        const auto it = std::upper_bound(m_times.begin(), m_times.end(), t);
        return it == m_times.begin() ? 0 : m_countAfter[static_cast<std::size_t>(it - m_times.begin()) - 1];
    }

private:
    std::vector<double> m_times, m_integral;
    std::vector<int> m_countAfter;
};

} // namespace

std::vector<AppRecord> appRecords(const sim::RunResult& run)
{
    std::vector<AppRecord> apps;
    std::unordered_map<std::string, std::size_t> index;
    std::vector<double> serialWork; // B: GPU-seconds at linear speedup
    std::vector<double> demand;
    std::vector<double> leaveS; // when it stops contending: its last job's end or drop
    std::vector<int> open;      // jobs neither finished nor dropped
    std::vector<int> finishedJobs;
    for (const auto& j : run.jobs) {
        // A job without an app is its own app; "#" keeps such a name apart from a declared app of the same text.
        const std::string key = j.app.empty() ? "#" + j.id : j.app;
        auto [it, added] = index.try_emplace(key, apps.size());
        if (added) {
            apps.push_back({});
            apps.back().app = j.app.empty() ? j.id : j.app;
            apps.back().arrivalS = j.arrivalS;
            serialWork.push_back(0);
            demand.push_back(0);
            leaveS.push_back(j.arrivalS);
            open.push_back(0);
            finishedJobs.push_back(0);
        }
        const std::size_t a = it->second;
        AppRecord& r = apps[a];
        ++r.jobs;
        r.arrivalS = std::min(r.arrivalS, j.arrivalS);
        r.gpuSeconds += j.gpuSeconds;
        serialWork[a] += j.idealS * j.demand;
        demand[a] += j.demand;
        if (j.finished()) {
            ++finishedJobs[a];
            leaveS[a] = std::max(leaveS[a], j.endS);
        } else if (j.dropped()) {
            leaveS[a] = std::max(leaveS[a], j.droppedS);
        } else {
            ++open[a];
        }
    }
    std::vector<std::pair<double, int>> steps;
    steps.reserve(apps.size() * 2);
    for (std::size_t a = 0; a < apps.size(); ++a) {
        steps.emplace_back(apps[a].arrivalS, +1);
        if (open[a] == 0) // an unfinished app contends until the run's end
            steps.emplace_back(leaveS[a], -1);
    }
    const ActiveCount active(std::move(steps));
    const double gpus = std::max(1, run.totalGpus);
    for (std::size_t a = 0; a < apps.size(); ++a) {
        AppRecord& r = apps[a];
        r.tClusterS = demand[a] > 0 ? serialWork[a] / std::min(gpus, demand[a]) : 0;
        if (open[a] > 0 || finishedJobs[a] == 0)
            continue;
        r.endS = leaveS[a];
        const double span = r.endS - r.arrivalS;
        r.nAvg = span > 0 ? (active.integralAt(r.endS) - active.integralAt(r.arrivalS)) / span
                          : std::max(1, active.countAt(r.arrivalS));
        r.nAvg = std::max(1.0, r.nAvg);
        if (r.tClusterS > 0)
            r.rho = span / (r.tClusterS * r.nAvg);
    }
    return apps;
}

bool hasApps(const sim::RunResult& run)
{
    return std::any_of(run.jobs.begin(), run.jobs.end(), [](const sim::JobRecord& j) { return !j.app.empty(); });
}

std::vector<double> appFinishTimeFairness(const sim::RunResult& run)
{
    std::vector<double> out;
    for (const auto& a : appRecords(run))
        if (a.finished() && a.rho >= 0)
            out.push_back(a.rho);
    return out;
}

std::vector<double> placementScores(const sim::RunResult& run, const sim::PreparedWorkload& workload)
{
    // Per job, the times its GPU set changed: every interval start and end. Between two consecutive ones it holds
    // one set, which is one allocation (consecutive stretches with the same set are merged).
    std::vector<std::vector<const sim::AllocationInterval*>> byJob(run.jobs.size());
    for (const auto& iv : run.intervals)
        if (iv.job >= 0 && static_cast<std::size_t>(iv.job) < byJob.size())
            byJob[static_cast<std::size_t>(iv.job)].push_back(&iv);
    std::vector<double> out;
    for (std::size_t j = 0; j < byJob.size(); ++j) {
        const auto& ivs = byJob[j];
        std::vector<double> cuts;
        for (const auto* iv : ivs) {
            cuts.push_back(iv->startS);
            cuts.push_back(iv->endS);
        }
        std::sort(cuts.begin(), cuts.end());
        cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
        std::vector<int> last;
        for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
            std::vector<int> gpus;
            for (const auto* iv : ivs)
                if (iv->startS <= cuts[k] && iv->endS >= cuts[k + 1] && iv->endS > iv->startS)
                    gpus.push_back(iv->gpu);
            std::sort(gpus.begin(), gpus.end());
            if (gpus.empty() || gpus == last) {
                last = std::move(gpus);
                continue;
            }
            const auto rate = workload.allocationRate(-1, gpus);
            const int key =
                static_cast<int>(j) < workload.jobCount() ? workload.job(static_cast<int>(j)).localityKey : -1;
            out.push_back(workload.locality().factor(key, static_cast<int>(gpus.size()), rate.nodes, rate.span));
            last = std::move(gpus);
        }
    }
    return out;
}

} // namespace orrery::metrics
