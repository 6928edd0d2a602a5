#include "sim/engine.h"

#include "opt/solver_clock.h"
#include "sim/switch_cost.h"

namespace orrery::sim::detail {

io::ScenarioOptions withOverrides(io::ScenarioOptions options, const Policy::Overrides& overrides)
{
    if (overrides.roundS)
        options.roundS = *overrides.roundS;
    if (overrides.restartPenaltyS)
        options.restartPenaltyS = *overrides.restartPenaltyS;
    if (overrides.restartModel)
        options.restartModel = *overrides.restartModel;
    if (overrides.loadTimeS)
        options.loadTimeS = *overrides.loadTimeS;
    return options;
}

void Engine::advance(int j)
{
    const auto i = static_cast<std::size_t>(j);
    if (status[i] != JobStatus::Running || now <= progressAt[i])
        return;
    remaining[i] = remainingAt(j);
    attained[i] = attainedAt(j);
    progressAt[i] = now;
}

void Engine::touch(int j)
{
    const auto i = static_cast<std::size_t>(j);
    if (touched[i])
        return;
    touched[i] = 1;
    touchedList.push_back(j);
    advance(j);
    oldGpus[i] = gpus[i];
}

std::vector<int> Engine::findGpus(int j, int type) const
{
    const auto& s = w.job(j);
    if (type >= 0)
        return w.allowed(j, type) ? state.pick(w.demandOn(j, type), type) : std::vector<int>{};
    for (int t = 0; t < w.typeCount(); ++t)
        if (w.allowed(j, t) && state.freeGpus(t) >= w.demandOn(j, t))
            return state.pick(w.demandOn(j, t), t);
    // A mix runs the job's overall request (SimJob::demand) on every type in it.
    std::vector<char> allowed(static_cast<std::size_t>(w.typeCount()), 0);
    for (int t = 0; t < w.typeCount(); ++t)
        allowed[static_cast<std::size_t>(t)] = w.rate(j, t, s.demand) > 0;
    return state.pickMixed(s.demand, allowed);
}

void Engine::assign(int j, const std::vector<int>& list, bool checkRange, const Plan& withPlan)
{
    if (!inDecision)
        fail("assigned GPUs outside schedule()");
    checkJob(j);
    const auto i = static_cast<std::size_t>(j);
    const std::string& id = w.jobs()[i].id;
    if (!gpus[i].empty())
        fail(fmt::format("job \"{}\" already holds GPUs; release it before assigning new ones", id));
    if (list.empty())
        fail(fmt::format("empty allocation for job \"{}\"", id));
    if (checkRange && !w.accepts(j, static_cast<int>(list.size())))
        failRange(j, static_cast<int>(list.size()));
    const int total = w.cluster().totalGpus();
    for (int g : list) {
        if (g < 0 || g >= total)
            fail(fmt::format("GPU {} does not exist (the cluster has {})", g, total));
        if (gpuMark[static_cast<std::size_t>(g)])
            fail(fmt::format("GPU {} listed twice for job \"{}\"", g, id));
        gpuMark[static_cast<std::size_t>(g)] = 1;
    }
    for (int g : list)
        gpuMark[static_cast<std::size_t>(g)] = 0;
    for (int g : list) {
        const int holder = state.jobOnGpu(g);
        if (holder >= 0)
            fail(fmt::format("oversubscribes GPU {} (node {}): job \"{}\" already runs there, cannot add job \"{}\"", g,
                             w.cluster().nodes()[static_cast<std::size_t>(w.cluster().nodeOfGpu(g))].name,
                             w.jobs()[static_cast<std::size_t>(holder)].id, id));
        // allowed() is about the job's demand on that type; another count is checked by its own rate just below
        // (a serverless job may settle for a larger plan whose memory fits GPUs its first plan does not).
        const int t = w.typeOfGpu(g);
        if (w.demandOn(j, t) == static_cast<int>(list.size()) && !w.allowed(j, t))
            fail(fmt::format("job \"{}\" cannot run on {} (no throughput there, or it requires another type)", id,
                             w.type(t).name));
    }
    for (int g : list) {
        const int t = w.typeOfGpu(g);
        if (w.demandOn(j, t) != static_cast<int>(list.size()) && w.rate(j, t, static_cast<int>(list.size())) <= 0)
            fail(fmt::format("job \"{}\" has no throughput on {} {} GPUs", id, list.size(), w.type(t).name));
    }
    if (!withPlan.empty())
        checkPlan(j, withPlan, list.size());
    touch(j);
    for (int g : list)
        state.take(g, j);
    gpus[i] = list;
    std::sort(gpus[i].begin(), gpus[i].end());
    setPlan(j, withPlan);
}

void Engine::release(int j)
{
    if (!inDecision)
        fail("released GPUs outside schedule()");
    if (j < 0 || j >= w.jobCount())
        fail(fmt::format("no job with index {}", j));
    const auto i = static_cast<std::size_t>(j);
    if (gpus[i].empty())
        return;
    touch(j);
    for (int g : gpus[i])
        state.give(g);
    gpus[i].clear();
    setPlan(j, {});
}

// ---- elastic ranges and restart accounting (docs/simulator.md, "Elastic jobs") ----------------------------
void Engine::failRange(int j, int count) const
{
    const auto& s = w.job(j);
    const auto& allowed = w.jobs()[static_cast<std::size_t>(j)].allowedGpus;
    std::string range = s.minGpus == s.maxGpus                         ? fmt::format("exactly {}", s.minGpus)
                        : s.maxGpus == std::numeric_limits<int>::max() ? fmt::format("at least {}", s.minGpus)
                                                                       : fmt::format("{} to {}", s.minGpus, s.maxGpus);
    if (!allowed.empty()) {
        range = "one of";
        for (std::size_t k = 0; k < allowed.size(); ++k)
            range += (k ? ", " : " ") + std::to_string(allowed[k]);
    }
    fail(fmt::format("job \"{}\" runs on {} GPUs, not {} (its elastic range)", w.jobs()[static_cast<std::size_t>(j)].id,
                     range, count));
}

void Engine::noteRestartPause(std::size_t i, bool first, double pause)
{
    // A pause cut short by another change was lost only up to now.
    if (restartPaused[i] && resumeAt[i] > now)
        restartLostS[i] -= resumeAt[i] - now;
    restartPaused[i] = !first && pause > 0;
    if (restartPaused[i])
        restartLostS[i] += pause;
}

double Engine::restartLostAt(int j) const
{
    const auto i = static_cast<std::size_t>(j);
    const double ahead = restartPaused[i] && resumeAt[i] > now ? resumeAt[i] - now : 0.0;
    return restartLostS[i] - ahead;
}

void Engine::closeInterval(int g, int j)
{
    const double since = gpuOpenSince[static_cast<std::size_t>(g)];
    if (now <= since)
        return;
    result.intervals.push_back({j, g, since, now});
    auto& rec = result.jobs[static_cast<std::size_t>(j)];
    const double d = now - since;
    rec.gpuSeconds += d;
    rec.costUsd += d * result.priceUsdPerHourByType[static_cast<std::size_t>(w.typeOfGpu(g))] / 3600.0;
}

void Engine::commit()
{
    // Close the GPUs jobs left before opening the ones they gained (a GPU may change hands within one
    // decision); GPUs a job keeps stay one interval.
    for (int pass = 0; pass < 2; ++pass)
        for (int j : touchedList) {
            const auto& old = oldGpus[static_cast<std::size_t>(j)];
            const auto& cur = gpus[static_cast<std::size_t>(j)];
            std::size_t a = 0, b = 0;
            while (a < old.size() || b < cur.size()) {
                if (b == cur.size() || (a < old.size() && old[a] < cur[b])) {
                    if (pass == 0)
                        closeInterval(old[a], j);
                    ++a;
                } else if (a == old.size() || cur[b] < old[a]) {
                    if (pass == 1)
                        openInterval(cur[b]);
                    ++b;
                } else {
                    ++a, ++b;
                }
            }
        }
    for (int j : touchedList) {
        const auto i = static_cast<std::size_t>(j);
        touched[i] = 0;
        const auto& old = oldGpus[i];
        const auto& cur = gpus[i];
        // Lifecycle changes (drop, profiling) change a job even when its GPUs stay the same.
        const bool profiled = profileEnded[i] != 0;
        profileEnded[i] = 0;
        if (status[i] == JobStatus::Dropped) {
            commitDrop(j);
            continue;
        }
        // A running job given back its GPUs under another plan has changed (a switch, charged like a move).
        const bool planChanged = !plan.empty() && plan[i] != runPlan[i];
        if (old == cur && !profiled && profileS[i] == 0 &&
            (cur.empty() || status[i] != JobStatus::Running || !planChanged))
            continue;
        ++version[i];
        closeSegment(j);
        if (!old.empty())
            addPause(j, old.size());
        // List moves by position: a job whose profiling ended is already back in the queue.
        if (cur.empty()) {
            noteRestartPause(i, true, 0);
            if (runPos[i] >= 0)
                listRemove(running, runPos, j);
            if (queuePos[i] < 0)
                listAdd(queued, queuePos, j);
            if (status[i] == JobStatus::Running) {
                ++result.jobs[i].suspensions;
                result.jobEvents.push_back({now, j, JobEventKind::Suspend, {}});
            }
            status[i] = JobStatus::Queued;
            rate[i] = 0;
            allocSince[i] = -1;
            continue;
        }
        if (queuePos[i] >= 0) {
            listRemove(queued, queuePos, j);
            listAdd(running, runPos, j);
        }
        if (profileS[i] > 0) {
            // Held without progress until the profiling ends; then back to the queue (endProfile).
            status[i] = JobStatus::Profiling;
            rate[i] = 0;
            progressAt[i] = allocSince[i] = now;
            resumeAt[i] = now + profileS[i];
            result.jobEvents.push_back({now, j, JobEventKind::Profile, fmt::format("{}", profileS[i])});
            heap.push({resumeAt[i], ProfileEnd, j, version[i]});
            profileS[i] = 0;
            continue;
        }
        if (old.empty() && startS[i] >= 0 && result.jobs[i].suspensions > 0)
            result.jobEvents.push_back({now, j, JobEventKind::Resume, {}});
        // A reason explained the wait that ends here; after a preemption the same words are news again.
        lastReason[i] = -1;
        status[i] = JobStatus::Running;
        if (planChanged) {
            runPlan[i] = plan[i];
            result.jobEvents.push_back({now, j, JobEventKind::Plan, toString(plan[i])});
            const double spu = plan[i].empty() ? w.samplesPerUnit(j) : w.source().samplesPerUnit(w.jobs()[i], plan[i]);
            planSamplesPerUnit[i] = std::isfinite(spu) && spu > 0 ? spu : 0;
        }
        const Plan& p = planOf(j);
        const AllocationRate alloc = w.allocationRate(j, cur, p, progressOf(j));
        if (!(alloc.rate > 0) && (!p.empty() || w.job(j).progressDependent))
            fail(fmt::format("job \"{}\" has no throughput on its {} GPUs{}{}", w.jobs()[i].id, cur.size(),
                             p.empty() ? "" : " under plan ", toString(p)));
        rate[i] = alloc.rate;
        const int type = alloc.type;
        const int nodes = alloc.nodes;
        const bool first = startS[i] < 0;
        auto& rec = result.jobs[i];
        if (first) {
            startS[i] = now;
            rec.startS = now; // live, for partial results
            rec.gpus = static_cast<int>(cur.size());
            rec.gpuType = type >= 0 ? w.type(type).name : "mixed";
            rec.nodes = nodes;
        } else {
            ++rec.restarts;
        }
        const double pause =
            SwitchCost(opt).pauseS({first, static_cast<int>(old.size()), static_cast<int>(cur.size()),
                                    planChanged && !first, w.jobs()[i].model, w.jobs()[i].application});
        noteRestartPause(i, first, pause);
        resumeAt[i] = now + pause;
        progressAt[i] = now;
        allocSince[i] = now;
        openSegment(j, resumeAt[i]);
        heap.push({finishTime(j), Completion, j, version[i]});
    }
    touchedList.clear();
}

void Engine::finish(int j)
{
    const auto i = static_cast<std::size_t>(j);
    advance(j);
    remaining[i] = 0;
    addPause(j, gpus[i].size());
    for (int g : gpus[i]) {
        closeInterval(g, j);
        state.give(g);
    }
    gpus[i].clear();
    listRemove(running, runPos, j);
    status[i] = JobStatus::Done;
    endS[i] = now;
    result.jobs[i].endS = now; // live, for partial results
    closeSegment(j);
    rate[i] = 0;
    ++version[i];
    ++done;
    if (opt.gavelCompat && w.job(j).demand > 1 && roundStartRemaining[i] < w.job(j).demand)
        result.jobs[i].excludedFromAverage = true;
    policy.onCompletion(view, j);
}

void Engine::decide()
{
    // Jobs whose profiling ended at this instant go back to the queue before the policy decides, so it may
    // give them the same GPUs again (one interval) or others.
    inDecision = true;
    for (int j : profileDue)
        endProfile(j);
    profileDue.clear();
    const auto t0 = std::chrono::steady_clock::now();
    const double solver0 = opt::solverSecondsOnThisThread(); // per thread: runs on other threads do not count
    policy.schedule(decision);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double solver = opt::solverSecondsOnThisThread() - solver0;
    inDecision = false;
    commit();
    if (w.anyProgressDependent())
        refreshRates();
    result.decisions.push_back({now, wall, static_cast<int>(queued.size()), static_cast<int>(running.size()), solver});
}

double Engine::gavelLeaseEnd(int j, double roundS)
{
    // Gavel runs int(throughput x round) whole steps in a round, capped at the steps left, and the job then
    // waits for the round's end: a job with a fraction of a step more than that left needs another round,
    // where continuous progress would finish it. Its progress is held at the round's whole steps by
    // stepFloor (remainingAt never goes below it), and its completion is due only in the round whose steps
    // cover all it has left.
    const auto i = static_cast<std::size_t>(j);
    advance(j);
    double left = remaining[i];
    if (const double whole = std::round(left); std::abs(left - whole) < 1e-6)
        left = whole; // whole steps, less floating-point noise
    remaining[i] = left;
    const double perRound = std::floor(rate[i] * roundS);
    const double from = std::max(progressAt[i], resumeAt[i]);
    if (perRound < 1) { // under one step per round Gavel never progresses; progress continuously instead
        stepFloor[i] = 0;
        return std::min(now + roundS, finishTime(j));
    }
    const double steps = std::min(perRound, left);
    stepFloor[i] = left - steps;
    ++version[i]; // the completion pushed at its start assumed continuous progress
    const double end = from + steps / rate[i];
    // It progresses only until its whole steps are done, then waits for the round's end.
    if (segCap.empty())
        segCap.assign(status.size(), std::numeric_limits<double>::infinity());
    closeSegment(j);
    openSegment(j, from, end);
    if (stepFloor[i] <= 0)
        heap.push({end, Completion, j, version[i]});
    return end;
}

void Engine::sampleUtilization()
{
    const int busy = state.busyGpus();
    auto& samples = result.utilization;
    bool same = !samples.empty() && samples.back().busyGpus == busy;
    if (same)
        for (int t = 0; t < w.typeCount(); ++t)
            if (samples.back().busyByType[static_cast<std::size_t>(t)] != state.busyGpus(t)) {
                same = false;
                break;
            }
    if (same)
        return;
    if (samples.empty() || samples.back().timeS < now)
        samples.emplace_back();
    auto& s = samples.back();
    s.timeS = now;
    s.busyGpus = busy;
    s.busyByType.resize(static_cast<std::size_t>(w.typeCount()));
    for (int t = 0; t < w.typeCount(); ++t)
        s.busyByType[static_cast<std::size_t>(t)] = state.busyGpus(t);
}

// ---- lifecycle: drop, profile; estimates; policy records -------------------------------------------------------

void Engine::initLifecycle()
{
    const auto n = static_cast<std::size_t>(w.jobCount());
    profileS.assign(n, 0);
    profileEnded.assign(n, 0);
    lastReason.assign(n, -1);
    estimateFactors = estimateErrorFactors(opt, w.jobCount(), seed);
}

void Engine::checkJob(int j) const
{
    if (j < 0 || j >= w.jobCount())
        fail(fmt::format("no job with index {}", j));
    const JobStatus s = status[static_cast<std::size_t>(j)];
    if (s == JobStatus::Future || s == JobStatus::Done || s == JobStatus::Dropped)
        fail(fmt::format("job \"{}\" is not waiting or running (it has {})", w.jobs()[static_cast<std::size_t>(j)].id,
                         s == JobStatus::Done      ? "finished"
                         : s == JobStatus::Dropped ? "been dropped"
                                                   : "not arrived"));
}

void Engine::addPause(int j, std::size_t gpuCount)
{
    // The part of the allocation that ends now which was spent in a switch pause or profiling.
    const auto i = static_cast<std::size_t>(j);
    if (allocSince[i] < 0)
        return;
    const double paused = std::min(now, resumeAt[i]) - allocSince[i];
    if (paused > 0)
        result.jobs[i].pausedGpuSeconds += static_cast<double>(gpuCount) * paused;
}

void Engine::drop(int j, const std::string& reason)
{
    if (!inDecision)
        fail("dropped a job outside schedule()");
    checkJob(j);
    const auto i = static_cast<std::size_t>(j);
    touch(j);
    for (int g : gpus[i])
        state.give(g);
    gpus[i].clear();
    setPlan(j, {});
    status[i] = JobStatus::Dropped; // from here on the job cannot be given GPUs
    result.jobs[i].dropReason = reason;
}

void Engine::commitDrop(int j)
{
    const auto i = static_cast<std::size_t>(j);
    if (!oldGpus[i].empty())
        addPause(j, oldGpus[i].size());
    if (runPos[i] >= 0)
        listRemove(running, runPos, j);
    if (queuePos[i] >= 0)
        listRemove(queued, queuePos, j);
    ++version[i];
    closeSegment(j);
    rate[i] = 0;
    allocSince[i] = -1;
    profileS[i] = 0;
    result.jobs[i].droppedS = now;
    result.jobEvents.push_back({now, j, JobEventKind::Drop, result.jobs[i].dropReason});
    ++done;
}

void Engine::profile(int j, const std::vector<int>& list, double seconds)
{
    if (!(seconds > 0) || !std::isfinite(seconds))
        fail(fmt::format("profiling job \"{}\" for {} s: expected a positive, finite time",
                         j >= 0 && j < w.jobCount() ? w.jobs()[static_cast<std::size_t>(j)].id : "?", seconds));
    // Profiling may hold any count: schedulers profile a job on counts other than those it will run on
    // (e.g. one GPU of each type), and it makes no progress there.
    assign(j, list, false);
    profileS[static_cast<std::size_t>(j)] = seconds;
}

void Engine::endProfile(int j)
{
    // Called inside the decision, before the policy: the job leaves its GPUs (commit() sees whether the policy
    // gives them back) and waits in the queue; the policy learns of it first.
    const auto i = static_cast<std::size_t>(j);
    touch(j);
    for (int g : gpus[i])
        state.give(g);
    gpus[i].clear();
    profileEnded[i] = 1;
    status[i] = JobStatus::Queued;
    listRemove(running, runPos, j);
    listAdd(queued, queuePos, j);
    policy.onProfileEnd(view, j);
}

void Engine::annotate(int j, const std::string& key, const std::string& jsonText)
{
    if (j < 0 || j >= w.jobCount())
        fail(fmt::format("no job with index {}", j));
    const auto& reserved = reservedJobExtraKeys();
    if (key.empty() || std::find(reserved.begin(), reserved.end(), key) != reserved.end())
        fail(fmt::format("annotation name \"{}\" is empty or reserved (reserved: {})", key, fmt::join(reserved, ", ")));
    auto& extras = result.jobs[static_cast<std::size_t>(j)].extras;
    for (auto& [k, v] : extras)
        if (k == key) {
            v = jsonText;
            return;
        }
    extras.emplace_back(key, jsonText);
}

void Engine::explain(int j, std::string_view reason)
{
    if (j < 0 || j >= w.jobCount())
        fail(fmt::format("explain: no job with index {}", j));
    const auto i = static_cast<std::size_t>(j);
    // A finished or dropped job has nothing left to explain.
    if (status[i] == JobStatus::Done || status[i] == JobStatus::Dropped)
        return;
    auto& last = lastReason[i];
    if (last >= 0 && result.jobEvents[static_cast<std::size_t>(last)].detail == reason)
        return;
    last = static_cast<std::int32_t>(result.jobEvents.size());
    result.jobEvents.push_back({now, j, JobEventKind::Reason, std::string(reason)});
}

void Engine::noteAuction(int j, const std::string& detail)
{
    if (j < 0 || j >= w.jobCount())
        fail(fmt::format("no job with index {}", j));
    result.jobEvents.push_back({now, j, JobEventKind::Auction, detail});
}

void Engine::record(const std::string& name, double value)
{
    auto [it, fresh] = seriesIndex.try_emplace(name, result.series.size());
    if (fresh)
        result.series.push_back({name, {}, {}});
    auto& series = result.series[it->second];
    series.timeS.push_back(now);
    series.value.push_back(value);
}

// ---- plans, progress-dependent rates and rate segments ---------------------------------------------------------

void Engine::checkPlan(int j, const Plan& p, std::size_t count) const
{
    const std::string& id = w.jobs()[static_cast<std::size_t>(j)].id;
    const auto bad = [&](const std::string& what) {
        fail(fmt::format("plan \"{}\" for job \"{}\" on {} GPUs: {}", toString(p), id, count, what));
    };
    if (p.globalBatch < 0 || p.microBatch < 0 || p.dp < 0 || p.tp < 0 || p.pp < 0)
        bad("batch sizes and degrees must be >= 0 (0: unspecified)");
    // A plan may leave GPUs of its allocation unused (as an elastic job above its maximum), never use more.
    const auto c = static_cast<long long>(count);
    if (p.dp > 0 && p.tp > 0 && p.pp > 0 && p.stages.empty() && static_cast<long long>(p.dp) * p.tp * p.pp > c)
        bad("dp x tp x pp exceeds the GPUs given");
    if (p.stages.empty())
        return;
    if (p.pp > 0 && static_cast<std::size_t>(p.pp) != p.stages.size())
        bad(fmt::format("pp = {} but {} stages", p.pp, p.stages.size()));
    long long sum = 0;
    for (std::size_t k = 0; k < p.stages.size(); ++k) {
        const StageLayout& st = p.stages[k];
        if (st.gpus <= 0 || st.layers < 0 || st.type < -1 || st.type >= w.typeCount())
            bad(fmt::format("stage {} needs gpus > 0, layers >= 0 and a GPU type in [-1, {})", k, w.typeCount()));
        if (st.dp < 0 || st.tp < 0 || static_cast<long long>(std::max(st.dp, 1)) * std::max(st.tp, 1) > st.gpus)
            bad(fmt::format("stage {}: its dp x tp must be >= 0 and fit its {} GPUs", k, st.gpus));
        sum += st.gpus;
    }
    if (sum > c)
        bad(fmt::format("its stages hold {} GPUs", sum));
}

void Engine::setPlan(int j, const Plan& p)
{
    if (plan.empty()) {
        if (p.empty())
            return;
        const std::size_t n = status.size();
        plan.resize(n);
        runPlan.resize(n);
        planSamplesPerUnit.resize(n);
        for (std::size_t k = 0; k < n; ++k)
            planSamplesPerUnit[k] = w.samplesPerUnit(static_cast<int>(k));
    }
    plan[static_cast<std::size_t>(j)] = p;
}

void Engine::refreshRates()
{
    // A progress-dependent rate is held between decisions and re-read at each one: no restart, no new
    // interval, only a new segment and a new completion time.
    for (int j : running) {
        const auto i = static_cast<std::size_t>(j);
        if (status[i] != JobStatus::Running || !w.job(j).progressDependent)
            continue;
        advance(j);
        const double r = w.allocationRate(j, gpus[i], planOf(j), progressOf(j)).rate;
        if (r == rate[i])
            continue;
        if (!(r > 0))
            fail(fmt::format("the throughput source gave job \"{}\" no rate at progress {} on the GPUs it runs on",
                             w.jobs()[i].id, progressOf(j)));
        closeSegment(j);
        rate[i] = r;
        openSegment(j, std::max(now, resumeAt[i]));
        ++version[i];
        heap.push({finishTime(j), Completion, j, version[i]});
    }
}

void Engine::closeSegment(int j)
{
    const auto i = static_cast<std::size_t>(j);
    const double start = segStart[i];
    if (start < 0)
        return;
    segStart[i] = -1;
    const double end = segCap.empty() ? now : std::min(now, segCap[i]);
    if (!(end > start)) // a pause cut short: no progress to record
        return;
    const double r = rate[i];
    const double sps = r * (runPlan.empty() ? w.samplesPerUnit(j) : planSamplesPerUnit[i]);
    auto& segments = result.rateSegments;
    // Gavel's rounds cut a job's progress at every boundary; contiguous stretches at one rate stay one segment.
    if (const std::int32_t last = lastSegment[i]; last >= 0) {
        RateSegment& s = segments[static_cast<std::size_t>(last)];
        if (s.endS == start && s.rate == r && s.samplesPerS == sps) {
            s.endS = end;
            return;
        }
    }
    lastSegment[i] = static_cast<std::int32_t>(segments.size());
    segments.push_back({j, start, end, r, sps});
}

} // namespace orrery::sim::detail
