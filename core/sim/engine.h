#pragma once

// The simulator's engine, private to core/sim: the event loop (simulator.cpp), the bookkeeping of
// allocations, intervals and utilisation (engine.cpp), and what policies see of it (view.cpp).

#include "io/error.h"
#include "sim/estimate_error.h"
#include "sim/policy.h"
#include "sim/simulator.h"
#include "sim/view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

namespace orrery::sim::detail {

enum EventKind : int { Completion = 0, Tick = 1, Wakeup = 2, Boundary = 3, ProfileEnd = 4 };

struct Event
{
    double t;
    int kind;
    int job;
    std::uint32_t version;
};

/** The scenario's options with a policy's parameter overrides applied: what its run simulates under. */
io::ScenarioOptions withOverrides(io::ScenarioOptions options, const Policy::Overrides& overrides);

struct EventLater
{
    bool operator()(const Event& a, const Event& b) const
    {
        if (a.t != b.t)
            return a.t > b.t;
        if (a.kind != b.kind)
            return a.kind > b.kind;
        return a.job > b.job;
    }
};

class Engine
{
public:
    Engine(const PreparedWorkload& w, Policy& policy, std::uint64_t seed, const util::Progress& progress,
           const PartialResultFn& onPartial)
        : w(w), policy(policy), seed(seed), policyName(policy.label()), progress(progress), onPartial(onPartial),
          opt(withOverrides(w.options(), policy.overrides())), policyOptions{opt.roundS, opt.gavelCompat}, state(w),
          view(*this), decision(*this)
    {
        const auto n = static_cast<std::size_t>(w.jobCount());
        status.assign(n, JobStatus::Future);
        remaining.assign(n, 0);
        rate.assign(n, 0);
        progressAt.assign(n, 0);
        resumeAt.assign(n, 0);
        attained.assign(n, 0);
        allocSince.assign(n, -1);
        startS.assign(n, -1);
        endS.assign(n, -1);
        version.assign(n, 0);
        gpus.resize(n);
        queuePos.assign(n, -1);
        runPos.assign(n, -1);
        touched.assign(n, 0);
        restartLostS.assign(n, 0);
        restartPaused.assign(n, 0);
        oldGpus.resize(n);
        roundStartRemaining.assign(n, std::numeric_limits<double>::infinity());
        stepFloor.assign(n, 0);
        // Plans and segment caps are sized on first use (a plan given; Gavel's rounds), so that a run without
        // them pays for neither (docs/performance.md, "Simulator").
        segStart.assign(n, -1);
        lastSegment.assign(n, -1);
        result.rateSegments.reserve(n);
        gpuOpenSince.assign(static_cast<std::size_t>(w.cluster().totalGpus()), 0);
        gpuMark.assign(static_cast<std::size_t>(w.cluster().totalGpus()), 0);

        result.policy = policyName;
        result.seed = seed;
        result.totalGpus = w.cluster().totalGpus();
        for (int t = 0; t < w.typeCount(); ++t) {
            result.gpuTypes.push_back(w.type(t).name);
            result.gpusByType.push_back(w.gpusOfType(t));
            result.priceUsdPerHourByType.push_back(w.type(t).priceUsdPerHour);
        }
        result.gpuType.resize(static_cast<std::size_t>(w.cluster().totalGpus()));
        for (int g = 0; g < w.cluster().totalGpus(); ++g)
            result.gpuType[static_cast<std::size_t>(g)] = w.typeOfGpu(g);
        result.jobs.resize(n);
        for (std::size_t j = 0; j < n; ++j) {
            const auto& job = w.jobs()[j];
            auto& r = result.jobs[j];
            r.id = job.id;
            r.model = job.kind == workload::JobKind::Serverless ? job.model : job.jobType;
            r.user = job.user;
            r.app = job.app;
            r.arrivalS = job.arrivalS;
            r.idealS = w.job(static_cast<int>(j)).idealS;
            r.demand = w.job(static_cast<int>(j)).demand;
            if (job.kind == workload::JobKind::Serverless)
                r.samples = job.iterations * job.config.globalBatch;
            r.sloClass = job.sloClass;
            if (job.deadlineS || !job.deadlines.empty())
                r.deadlines = job.allDeadlines();
        }
        initLifecycle();
    }

    RunResult run();

    // ---- state read by View -------------------------------------------------------------------------------
    double attainedAt(int j) const
    {
        const auto i = static_cast<std::size_t>(j);
        if (status[i] != JobStatus::Running || now <= progressAt[i])
            return attained[i];
        return attained[i] + static_cast<double>(gpus[i].size()) * (now - progressAt[i]);
    }
    double remainingAt(int j) const
    {
        const auto i = static_cast<std::size_t>(j);
        if (status[i] == JobStatus::Future)
            return w.job(j).work;
        if (status[i] != JobStatus::Running)
            return remaining[i];
        const double from = std::max(progressAt[i], resumeAt[i]);
        // stepFloor: under gavel_compat, what is left after this round's whole steps (0 otherwise).
        return now > from ? std::max(stepFloor[i], remaining[i] - rate[i] * (now - from)) : remaining[i];
    }

    /** Pause seconds paid for restarts so far, up to now (View::restartLostS). */
    double restartLostAt(int j) const;
    int restartsOf(int j) const { return result.jobs[static_cast<std::size_t>(j)].restarts; }

    // ---- Decision operations -------------------------------------------------------------------------------
    std::vector<int> findGpus(int j, int type) const;
    void assign(int j, const std::vector<int>& list, bool checkRange = true, const Plan& withPlan = {});
    void release(int j);
    void wakeAt(double t)
    {
        if (t > now && std::isfinite(t))
            heap.push({t, Wakeup, -1, 0});
    }

    // ---- lifecycle, estimates and records (docs/simulator.md, "Job lifecycle", "Estimates versus truth") -----
    void drop(int j, const std::string& reason);
    void profile(int j, const std::vector<int>& list, double seconds);
    void annotate(int j, const std::string& key, const std::string& jsonText);
    void record(const std::string& name, double value);
    void explain(int j, std::string_view reason);
    void noteAuction(int j, const std::string& detail);
    const JobRecord& resultJob(int j) const { return result.jobs[static_cast<std::size_t>(j)]; }
    double estimateFactor(int j) const
    {
        return estimateFactors.empty() ? 1.0 : estimateFactors[static_cast<std::size_t>(j)];
    }

    const PreparedWorkload& w;
    Policy& policy;
    std::uint64_t seed;
    std::string policyName;
    const util::Progress& progress;
    const PartialResultFn& onPartial;
    io::ScenarioOptions opt;
    PolicyOptions policyOptions; ///< what the policy reads of opt (View::options)
    double now = 0;
    ClusterState state;
    View view;
    Decision decision;

    std::vector<JobStatus> status;
    std::vector<double> remaining, rate, progressAt, resumeAt, attained, allocSince, startS, endS;
    std::vector<double> stepFloor;
    std::vector<std::uint32_t> version;
    std::vector<std::vector<int>> gpus;
    std::vector<int> queuePos, runPos, queued, running;
    std::vector<double> restartLostS;    ///< restart pauses charged (elastic block)
    std::vector<char> restartPaused;     ///< whether the current pause is a restart's
    std::vector<double> estimateFactors; ///< per job; empty without estimate errors
    /** Job j's plan now (the default plan when it holds none, or no plan was ever given in this run). */
    const Plan& planOf(int j) const
    {
        static const Plan none;
        return plan.empty() ? none : plan[static_cast<std::size_t>(j)];
    }

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw Error(fmt::format("policy \"{}\" at t={:.1f}s: {}", policyName, now, what));
    }
    void initLifecycle();
    void checkJob(int j) const;
    void addPause(int j, std::size_t gpuCount);
    void endProfile(int j);
    void commitDrop(int j);
    void touch(int j);
    void advance(int j);
    void commit();
    void finish(int j);
    void decide();
    [[noreturn]] void failRange(int j, int count) const;
    void noteRestartPause(std::size_t i, bool first, double pause);
    void openInterval(int g) { gpuOpenSince[static_cast<std::size_t>(g)] = now; }
    void closeInterval(int g, int j);
    void sampleUtilization();
    // ---- plans, progress-dependent rates and rate segments (docs/simulator.md, "Plans and progress-dependent rates")
    void checkPlan(int j, const Plan& p, std::size_t count) const;
    double progressOf(int j) const { return 1.0 - remaining[static_cast<std::size_t>(j)] / w.job(j).work; }
    void refreshRates();
    void openSegment(int j, double from, double cap = std::numeric_limits<double>::infinity())
    {
        segStart[static_cast<std::size_t>(j)] = from;
        if (!segCap.empty())
            segCap[static_cast<std::size_t>(j)] = cap;
    }
    void closeSegment(int j);
    double gavelLeaseEnd(int j, double roundS);
    void listAdd(std::vector<int>& list, std::vector<int>& pos, int j)
    {
        pos[static_cast<std::size_t>(j)] = static_cast<int>(list.size());
        list.push_back(j);
    }
    void listRemove(std::vector<int>& list, std::vector<int>& pos, int j)
    {
        const int p = pos[static_cast<std::size_t>(j)];
        const int last = list.back();
        list[static_cast<std::size_t>(p)] = last;
        pos[static_cast<std::size_t>(last)] = p;
        list.pop_back();
        pos[static_cast<std::size_t>(j)] = -1;
    }
    double finishTime(int j) const
    {
        const auto i = static_cast<std::size_t>(j);
        const double from = std::max(progressAt[i], resumeAt[i]);
        return from + remaining[i] / rate[i];
    }

    std::vector<char> touched;
    std::vector<int> touchedList;
    std::vector<std::vector<int>> oldGpus;
    std::vector<double> roundStartRemaining;
    std::vector<double> gpuOpenSince;
    std::vector<char> gpuMark;
    void setPlan(int j, const Plan& p);
    // Per job, all empty until a plan is first given: the plan of the GPUs it holds, that of its last
    // allocation with progress, and samples per work unit under it.
    std::vector<Plan> plan, runPlan;
    std::vector<double> planSamplesPerUnit;
    std::vector<double> segStart;          ///< per job: its open rate segment's start, -1 none
    std::vector<double> segCap;            ///< per job: its open segment's latest end (Gavel's rounds only, else empty)
    std::vector<std::int32_t> lastSegment; ///< per job: index of its last closed segment, -1 none
    std::priority_queue<Event, std::vector<Event>, EventLater> heap;
    RunResult result;
    std::vector<double> profileS;   ///< per job: profiling asked for in this decision (seconds), else 0
    std::vector<char> profileEnded; ///< per job: its profiling ended at this instant
    std::vector<int> profileDue;    ///< jobs whose profiling ended at this instant
    /** Per job: the index in result.jobEvents of its last reason since it last started, -1 none (the text is read
     *  there: one copy of each reason, not two). */
    std::vector<std::int32_t> lastReason;
    std::unordered_map<std::string, std::size_t> seriesIndex;
    int done = 0; ///< jobs finished or dropped
    bool inDecision = false;
};

} // namespace orrery::sim::detail
