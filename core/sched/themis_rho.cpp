#include "sched/themis_rho.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>

namespace orrery::sched::themis {

double phaseTimeS(const std::vector<JobInfo>& jobs, int gpus)
{
    if (jobs.empty())
        return 0;
    if (gpus <= 0)
        return std::numeric_limits<double>::infinity();
    const auto n = static_cast<std::size_t>(gpus);
    if (n >= jobs.size()) {
        std::vector<int> given(jobs.size(), 1);
        const auto time = [&](std::size_t j) {
            const JobInfo& x = jobs[j];
            return x.itersLeft * x.iterS * x.slowdown / std::min(given[j], std::max(1, x.demandMax));
        };
        // Water-filling one GPU at a time to the slowest job that can still use one.
        for (std::size_t left = n - jobs.size(); left > 0; --left) {
            std::size_t best = jobs.size();
            for (std::size_t j = 0; j < jobs.size(); ++j)
                if (given[j] < jobs[j].demandMax && (best == jobs.size() || time(j) > time(best)))
                    best = j;
            if (best == jobs.size())
                break;
            ++given[best];
        }
        double worst = 0;
        for (std::size_t j = 0; j < jobs.size(); ++j)
            worst = std::max(worst, time(j));
        return worst;
    }
    // LPT: longest first onto the least-loaded GPU.
    std::vector<double> work;
    for (const auto& x : jobs)
        work.push_back(x.itersLeft * x.iterS * x.slowdown);
    std::sort(work.begin(), work.end(), std::greater<>());
    std::priority_queue<double, std::vector<double>, std::greater<>> load;
    for (std::size_t g = 0; g < n; ++g)
        load.push(0);
    double makespan = 0;
    for (double w : work) {
        const double l = load.top() + w;
        load.pop();
        load.push(l);
        makespan = std::max(makespan, l);
    }
    return makespan;
}

double rhoSingle(const JobInfo& job, double itersTotal, int gpus, double elapsedS, int clusterGpus, double nAvg)
{
    if (gpus <= 0)
        return std::numeric_limits<double>::infinity();
    const double iterTime = job.iterS * job.slowdown / std::min(gpus, job.demandMax);
    const double tSh = elapsedS + job.itersLeft * iterTime;
    const double tCluster = itersTotal * job.iterS / std::min(clusterGpus, job.demandMax);
    return tSh / (tCluster * nAvg);
}

int phaseCount(int configurations)
{
    int p = 1;
    for (int n = configurations; n > 1; n /= 2)
        ++p;
    return p;
}

namespace {

double medianIterS(const std::vector<double>& iterS)
{
    std::vector<double> v = iterS;
    std::sort(v.begin(), v.end());
    if (v.empty())
        return 0;
    const std::size_t m = v.size() / 2;
    // An even count takes the mean of the two middle values (80, 100, 100, 120 -> 100).
    return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

} // namespace

std::vector<double> phaseIterations(const SuccessiveHalvingApp& app)
{
    const int n = static_cast<int>(app.iterS.size());
    const int phases = phaseCount(n);
    const double median = medianIterS(app.iterS);
    std::vector<double> out;
    double used = 0;
    for (int p = 1; p <= phases; ++p) {
        const int jobs = std::max(1, n >> (p - 1));
        if (p < phases) {
            const double iters = std::floor(app.budgetS / (phases * jobs * median));
            out.push_back(iters);
            used += iters * jobs * median;
        } else {
            out.push_back(std::floor((app.budgetS - used) / (jobs * median) + 1e-9));
        }
    }
    return out;
}

double rhoSuccessiveHalving(const SuccessiveHalvingApp& app, int gpus, double elapsedS, int clusterGpus, double nAvg)
{
    if (gpus <= 0)
        return std::numeric_limits<double>::infinity();
    const int n = static_cast<int>(app.iterS.size());
    const int phases = phaseCount(n);
    const auto iters = phaseIterations(app);
    const double median = medianIterS(app.iterS);
    double tSh = elapsedS;
    for (int p = app.currentPhase; p <= phases; ++p) {
        const int cap = app.strict ? std::min(app.demandMax, 1 << (p - 1)) : app.demandMax;
        std::vector<JobInfo> jobs;
        if (p == app.currentPhase && !app.current.empty()) {
            jobs = app.current;
        } else if (p == 1) {
            for (double t : app.iterS)
                jobs.push_back({iters[0], t, cap, 1});
        } else {
            // Survivors are not known yet: the median job stands in for each (spec A.3.2).
            const int count = std::max(1, n >> (p - 1));
            jobs.assign(static_cast<std::size_t>(count), {iters[static_cast<std::size_t>(p - 1)], median, cap, 1});
        }
        for (auto& j : jobs)
            j.demandMax = std::min(j.demandMax, cap);
        tSh += phaseTimeS(jobs, gpus);
    }
    const double tCluster = app.budgetS / std::min(clusterGpus, app.appDemandMax);
    return tSh / (tCluster * nAvg);
}

int filterCount(int eligible, double f)
{
    if (eligible <= 0)
        return 0;
    return std::max(1, static_cast<int>(std::ceil((1.0 - f) * eligible - 1e-9)));
}

} // namespace orrery::sched::themis
