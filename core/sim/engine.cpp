#include "sim/engine.h"

#include "sim/switch_cost.h"

namespace orrery::sim::detail {

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
        return w.allowed(j, type) ? state.pick(s.demand, type) : std::vector<int>{};
    for (int t = 0; t < w.typeCount(); ++t)
        if (w.allowed(j, t) && state.freeGpus(t) >= s.demand)
            return state.pick(s.demand, t);
    std::vector<char> allowed(static_cast<std::size_t>(w.typeCount()), 0);
    for (int t = 0; t < w.typeCount(); ++t)
        allowed[static_cast<std::size_t>(t)] = w.allowed(j, t);
    return state.pickMixed(s.demand, allowed);
}

void Engine::assign(int j, const std::vector<int>& list)
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
        // allowed() is about the job's demand; another count is checked by its own rate just below
        // (a serverless job may settle for a larger plan whose memory fits GPUs its first plan does not).
        if (w.job(j).demand == static_cast<int>(list.size()) && !w.allowed(j, w.typeOfGpu(g)))
            fail(fmt::format("job \"{}\" cannot run on {} (no throughput there, or it requires another type)", id,
                             w.type(w.typeOfGpu(g)).name));
    }
    if (w.job(j).demand != static_cast<int>(list.size())) {
        for (int g : list)
            if (w.rate(j, w.typeOfGpu(g), static_cast<int>(list.size())) <= 0)
                fail(fmt::format("job \"{}\" has no throughput on {} {} GPUs", id, list.size(),
                                 w.type(w.typeOfGpu(g)).name));
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

double Engine::allocationRate(int j, const std::vector<int>& list, int* typeOut, int* nodesOut) const
{
    // GPUs are numbered node by node, and `list` is sorted: nodes and types change only between runs.
    const int count = static_cast<int>(list.size());
    int nodes = 0;
    int lastNode = -1;
    int type = -1;
    double r = std::numeric_limits<double>::infinity();
    for (int g : list) {
        const int node = w.cluster().nodeOfGpu(g);
        if (node == lastNode)
            continue;
        lastNode = node;
        ++nodes;
        const int t = w.typeOfNode(node);
        if (type == -1)
            type = t;
        else if (type != t)
            type = -2;
        r = std::min(r, w.rate(j, t, count));
    }
    if (nodes > 1)
        r *= opt.crossNodeSlowdown;
    if (typeOut)
        *typeOut = type;
    if (nodesOut)
        *nodesOut = nodes;
    return r;
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
        int type = -1;
        int nodes = 0;
        rate[i] = allocationRate(j, cur, &type, &nodes);
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
        resumeAt[i] = now + SwitchCost(opt).pauseS({first, static_cast<int>(old.size()), static_cast<int>(cur.size()),
                                                    false, w.jobs()[i].model});
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
    assign(j, list);
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
