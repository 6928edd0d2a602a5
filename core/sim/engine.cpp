#include "sim/engine.h"

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

void Engine::assign(int j, const std::vector<int>& list, bool checkRange)
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
    touch(j);
    for (int g : list)
        state.take(g, j);
    gpus[i] = list;
    std::sort(gpus[i].begin(), gpus[i].end());
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
        if (old == cur && !profiled && profileS[i] == 0)
            continue;
        ++version[i];
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
        status[i] = JobStatus::Running;
        const AllocationRate alloc = w.allocationRate(j, cur);
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
        const double pause = SwitchCost(opt).pauseS(
            {first, static_cast<int>(old.size()), static_cast<int>(cur.size()), false, w.jobs()[i].model});
        noteRestartPause(i, first, pause);
        resumeAt[i] = now + pause;
        progressAt[i] = now;
        allocSince[i] = now;
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
    policy.schedule(decision);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    inDecision = false;
    commit();
    result.decisions.push_back({now, wall, static_cast<int>(queued.size()), static_cast<int>(running.size())});
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

void Engine::record(const std::string& name, double value)
{
    auto [it, fresh] = seriesIndex.try_emplace(name, result.series.size());
    if (fresh)
        result.series.push_back({name, {}, {}});
    auto& series = result.series[it->second];
    series.timeS.push_back(now);
    series.value.push_back(value);
}

} // namespace orrery::sim::detail
