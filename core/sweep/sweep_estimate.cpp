#include "sweep/sweep_estimate.h"

#include "io/workload_loader.h"
#include "sched/registry.h"
#include "sim/simulator.h"
#include "util/thread_cpu_time.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace orrery::sweep {

CpuEstimate estimateCpu(const SweepPlan& plan, const std::vector<std::size_t>& toRun, WorkloadCache& cache,
                        double budgetS, std::size_t maxSamples, std::stop_token stop)
{
    CpuEstimate est;
    est.points = toRun.size();
    if (toRun.empty()) {
        est.method = "nothing to run";
        return est;
    }
    // The job count before any job_limit: no other edit changes how many jobs there are.
    est.baseJobs = io::loadJobs(plan.points[toRun.front()].scenario->scenario).size();
    const auto jobsOf = [&](const SweepPoint& p) {
        const auto& limit = p.scenario->edits.jobLimit;
        return std::max<std::size_t>(1, limit ? std::min<std::size_t>(est.baseJobs, static_cast<std::size_t>(*limit))
                                              : est.baseJobs);
    };

    std::map<std::string, double> perJob; // policy -> CPU seconds per job
    double spent = 0, prepareS = 0;
    std::size_t prepared = 0;
    std::set<std::string> seen;
    for (const std::size_t i : toRun) {
        if (est.samples.size() >= maxSamples || (spent >= budgetS && !est.samples.empty()) || stop.stop_requested())
            break;
        const SweepPoint& p = plan.points[i];
        if (!seen.insert(p.policy).second)
            continue;
        const double t0 = util::threadCpuSeconds();
        cache.expect(*p.scenario);
        const auto workload = cache.get(*p.scenario);
        const double t1 = util::threadCpuSeconds();
        auto policy = sched::makePolicy(p.policy);
        util::Progress progress;
        progress.stop = stop;
        SampledPoint s{i, sim::simulate(*workload, *policy, p.seed, progress), 0};
        cache.release(*p.scenario);
        s.cpuS = util::threadCpuSeconds() - t1;
        // A workload asked for before was not prepared again: only first preparations are measured.
        if (t1 - t0 > 1e-4) {
            prepareS += t1 - t0;
            ++prepared;
        }
        spent += util::threadCpuSeconds() - t0;
        if (s.result.cancelled)
            break;
        perJob[p.policy] = s.cpuS / static_cast<double>(jobsOf(p));
        est.samples.push_back(std::move(s));
    }
    double meanPerJob = 0;
    for (const auto& [policy, c] : perJob)
        meanPerJob += c / static_cast<double>(perJob.size());
    std::set<std::string> workloads;
    for (const std::size_t i : toRun) {
        const SweepPoint& p = plan.points[i];
        const auto it = perJob.find(p.policy);
        est.cpuS += static_cast<double>(jobsOf(p)) * (it == perJob.end() ? meanPerJob : it->second);
        workloads.insert(p.scenario->workloadKey);
    }
    const double perPrepare = prepared ? prepareS / static_cast<double>(prepared) : 0;
    est.cpuS += perPrepare * static_cast<double>(workloads.size());
    est.method = fmt::format(
        "{} sampled point{} ({} of {} policies), {:.3g} ms CPU per workload preparation x {} "
        "workload{}, {} jobs per point before job_limit",
        est.samples.size(), est.samples.size() == 1 ? "" : "s", perJob.size(),
        [&] {
            std::set<std::string> all;
            for (const std::size_t i : toRun)
                all.insert(plan.points[i].policy);
            return all.size();
        }(),
        perPrepare * 1e3, workloads.size(), workloads.size() == 1 ? "" : "s", est.baseJobs);
    return est;
}

} // namespace orrery::sweep
