#include "sim/simulator.h"

#include "io/error.h"
#include "sched/policy.h"
#include "sim/view.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <queue>

namespace orrery::sim {

namespace detail {

namespace {

enum EventKind : int { Completion = 0, Tick = 1, Wakeup = 2, Boundary = 3 };

struct Event
{
    double t;
    int kind;
    int job;
    std::uint32_t version;
};

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

enum class Mode { Events, Rounds, GavelRounds };

// A run that makes no decision that changes anything this many times in a row, with nothing running and
// nothing left to arrive, can never finish.
constexpr int kMaxIdleDecisions = 10000;

} // namespace

class Engine
{
public:
    Engine(const PreparedWorkload& w, sched::Policy& policy, std::uint64_t seed, const util::Progress& progress,
           const PartialResultFn& onPartial)
        : w(w),
          policy(policy),
          seed(seed),
          policyName(policy.name()),
          progress(progress),
          onPartial(onPartial),
          opt(w.options()),
          state(w),
          view(*this),
          decision(*this)
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
        oldGpus.resize(n);
        roundStartRemaining.assign(n, std::numeric_limits<double>::infinity());
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
            r.arrivalS = job.arrivalS;
            r.idealS = w.job(static_cast<int>(j)).idealS;
            r.demand = w.job(static_cast<int>(j)).demand;
            if (job.kind == workload::JobKind::Serverless)
                r.samples = job.iterations * job.config.globalBatch;
        }
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
        return now > from ? std::max(0.0, remaining[i] - rate[i] * (now - from)) : remaining[i];
    }

    // ---- Decision operations -------------------------------------------------------------------------------
    std::vector<int> findGpus(int j, int type) const;
    void assign(int j, const std::vector<int>& list);
    void release(int j);
    void wakeAt(double t)
    {
        if (t > now && std::isfinite(t))
            heap.push({t, Wakeup, -1, 0});
    }

    const PreparedWorkload& w;
    sched::Policy& policy;
    std::uint64_t seed;
    std::string policyName;
    const util::Progress& progress;
    const PartialResultFn& onPartial;
    io::ScenarioOptions opt;
    double now = 0;
    ClusterState state;
    View view;
    Decision decision;

    std::vector<JobStatus> status;
    std::vector<double> remaining, rate, progressAt, resumeAt, attained, allocSince, startS, endS;
    std::vector<std::uint32_t> version;
    std::vector<std::vector<int>> gpus;
    std::vector<int> queuePos, runPos, queued, running;

private:
    [[noreturn]] void fail(const std::string& what) const
    {
        throw Error(fmt::format("policy \"{}\" at t={:.1f}s: {}", policyName, now, what));
    }
    void touch(int j);
    void advance(int j);
    void commit();
    void finish(int j);
    void decide();
    double allocationRate(int j, const std::vector<int>& list, int* typeOut, int* nodesOut) const;
    void openInterval(int g) { gpuOpenSince[static_cast<std::size_t>(g)] = now; }
    void closeInterval(int g, int j);
    void sampleUtilization();
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
    std::priority_queue<Event, std::vector<Event>, EventLater> heap;
    RunResult result;
    int done = 0;
    bool inDecision = false;
};

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
    if (j < 0 || j >= w.jobCount())
        fail(fmt::format("no job with index {}", j));
    const auto i = static_cast<std::size_t>(j);
    const std::string& id = w.jobs()[i].id;
    if (status[i] == JobStatus::Future || status[i] == JobStatus::Done)
        fail(fmt::format("job \"{}\" is not waiting or running (it has {})", id,
                         status[i] == JobStatus::Done ? "finished" : "not arrived"));
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
        if (old == cur)
            continue;
        ++version[i];
        if (cur.empty()) {
            listRemove(running, runPos, j);
            listAdd(queued, queuePos, j);
            status[i] = JobStatus::Queued;
            rate[i] = 0;
            allocSince[i] = -1;
            continue;
        }
        if (old.empty()) {
            listRemove(queued, queuePos, j);
            listAdd(running, runPos, j);
        }
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
            resumeAt[i] = now;
        } else {
            ++rec.restarts;
            resumeAt[i] = now + opt.restartPenaltyS;
        }
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
    inDecision = true;
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

RunResult Engine::run()
{
    const auto wallStart = std::chrono::steady_clock::now();
    const int n = w.jobCount();
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int j = 0; j < n; ++j)
        order[static_cast<std::size_t>(j)] = j;
    std::stable_sort(order.begin(), order.end(),
                     [&](int a, int b) { return w.job(a).arrivalS < w.job(b).arrivalS; });
    std::size_t nextArrival = 0;
    auto arrivalTime = [&](std::size_t k) { return w.job(order[k]).arrivalS; };

    const double policyRound = policy.roundS(opt);
    const Mode mode = opt.gavelCompat ? Mode::GavelRounds : policyRound > 0 ? Mode::Rounds : Mode::Events;
    const double roundS = mode == Mode::GavelRounds ? opt.roundS : policyRound;
    if (n > 0) {
        if (mode == Mode::Rounds)
            heap.push({std::ceil(arrivalTime(0) / roundS) * roundS, Tick, -1, 0});
        else if (mode == Mode::GavelRounds)
            heap.push({arrivalTime(0), Boundary, -1, 0});
    }
    result.utilization.push_back({0, 0, std::vector<int>(static_cast<std::size_t>(w.typeCount()), 0)});

    int idleDecisions = 0;
    std::uint64_t loops = 0;
    while (done < n) {
        if ((++loops & 1023) == 0) {
            if (progress.stopRequested()) {
                result.cancelled = true;
                break;
            }
            progress(static_cast<double>(done) / n);
            if (onPartial)
                onPartial(result);
        }
        double tNext = std::numeric_limits<double>::infinity();
        if (nextArrival < order.size())
            tNext = arrivalTime(nextArrival);
        if (!heap.empty())
            tNext = std::min(tNext, heap.top().t);
        if (!std::isfinite(tNext))
            fail(fmt::format("{} job(s) wait with nothing running and nothing left to happen", queued.size()));
        now = std::max(now, tNext);

        bool trigger = false, tick = false, wake = false, boundary = false;
        while (!heap.empty() && heap.top().t <= now) {
            const Event ev = heap.top();
            heap.pop();
            ++result.events;
            switch (ev.kind) {
            case Completion:
                if (status[static_cast<std::size_t>(ev.job)] == JobStatus::Running &&
                    version[static_cast<std::size_t>(ev.job)] == ev.version) {
                    finish(ev.job);
                    trigger = true;
                }
                break;
            case Tick: tick = true; break;
            case Wakeup: wake = true; break;
            default: boundary = true; break;
            }
        }
        while (nextArrival < order.size() && arrivalTime(nextArrival) <= now) {
            const int j = order[nextArrival++];
            const auto i = static_cast<std::size_t>(j);
            status[i] = JobStatus::Queued;
            remaining[i] = w.job(j).work;
            progressAt[i] = now;
            listAdd(queued, queuePos, j);
            ++result.events;
            policy.onArrival(view, j);
            trigger = true;
        }

        const bool wanted = mode == Mode::GavelRounds ? boundary : mode == Mode::Rounds ? (tick || wake) : (trigger || wake);
        if (wanted && (!queued.empty() || !running.empty())) {
            const std::size_t runningBefore = running.size();
            decide();
            if (running.empty() && runningBefore == 0 && nextArrival == order.size() && !queued.empty()) {
                if (++idleDecisions > kMaxIdleDecisions)
                    fail(fmt::format("{} job(s) wait, but the policy starts none and nothing else can happen",
                                     queued.size()));
            } else {
                idleDecisions = 0;
            }
        }

        if (mode == Mode::Rounds && tick) {
            if (!queued.empty() || !running.empty())
                heap.push({now + roundS, Tick, -1, 0});
            else if (nextArrival < order.size())
                heap.push({now + std::max(1.0, std::ceil((arrivalTime(nextArrival) - now) / roundS)) * roundS, Tick, -1, 0});
        } else if (mode == Mode::GavelRounds && boundary) {
            // Gavel's round lasts until the last job of the round has run its lease (or finished early);
            // with nothing running, the next round starts at the next arrival.
            if (!running.empty()) {
                double end = now;
                for (int j : running) {
                    end = std::max(end, std::min(now + roundS, finishTime(j)));
                    roundStartRemaining[static_cast<std::size_t>(j)] = remainingAt(j);
                }
                heap.push({end, Boundary, -1, 0});
            } else if (nextArrival < order.size()) {
                heap.push({arrivalTime(nextArrival), Boundary, -1, 0});
            } else if (!queued.empty()) {
                heap.push({now, Boundary, -1, 0});
            }
        }
        sampleUtilization();
    }

    // A cancelled run: close what is still open so the intervals stay consistent.
    for (int j = 0; j < n; ++j)
        for (int g : gpus[static_cast<std::size_t>(j)])
            closeInterval(g, j);
    for (int j = 0; j < n; ++j) {
        auto& rec = result.jobs[static_cast<std::size_t>(j)];
        rec.startS = startS[static_cast<std::size_t>(j)];
        rec.endS = endS[static_cast<std::size_t>(j)];
        result.makespanS = std::max(result.makespanS, rec.endS);
    }
    std::sort(result.intervals.begin(), result.intervals.end(), [](const auto& a, const auto& b) {
        return a.gpu != b.gpu ? a.gpu < b.gpu : a.startS < b.startS;
    });
    progress(1.0);
    result.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    return std::move(result);
}

} // namespace detail

// ---- View -------------------------------------------------------------------------------------------------
double View::nowS() const { return m_e->now; }
const PreparedWorkload& View::workload() const { return m_e->w; }
const ClusterState& View::state() const { return m_e->state; }
const io::ScenarioOptions& View::options() const { return m_e->opt; }
std::uint64_t View::seed() const { return m_e->seed; }
const std::string& View::policyName() const { return m_e->policyName; }
JobStatus View::status(int j) const { return m_e->status[static_cast<std::size_t>(j)]; }
const std::vector<int>& View::gpusOf(int j) const { return m_e->gpus[static_cast<std::size_t>(j)]; }
int View::typeOf(int j) const
{
    int type = -1;
    for (int g : gpusOf(j)) {
        const int t = workload().typeOfGpu(g);
        if (type == -1)
            type = t;
        else if (type != t)
            return -2;
    }
    return type;
}
double View::attainedGpuS(int j) const { return m_e->attainedAt(j); }
double View::remainingWork(int j) const { return m_e->remainingAt(j); }
double View::currentRate(int j) const { return m_e->rate[static_cast<std::size_t>(j)]; }
double View::allocatedSinceS(int j) const { return m_e->allocSince[static_cast<std::size_t>(j)]; }
double View::startS(int j) const { return m_e->startS[static_cast<std::size_t>(j)]; }
double View::endS(int j) const { return m_e->endS[static_cast<std::size_t>(j)]; }
const std::vector<int>& View::queued() const { return m_e->queued; }
const std::vector<int>& View::running() const { return m_e->running; }

// ---- Decision ---------------------------------------------------------------------------------------------
const View& Decision::view() const { return m_e->view; }
std::vector<int> Decision::findGpus(int j, int type) const { return m_e->findGpus(j, type); }
bool Decision::place(int j, int type)
{
    auto list = m_e->findGpus(j, type);
    if (list.empty())
        return false;
    m_e->assign(j, list);
    return true;
}
void Decision::assign(int j, const std::vector<int>& gpus) { m_e->assign(j, gpus); }
void Decision::release(int j) { m_e->release(j); }
void Decision::wakeAt(double t) { m_e->wakeAt(t); }

RunResult simulate(const PreparedWorkload& workload, sched::Policy& policy, std::uint64_t seed,
                   const util::Progress& progress, const PartialResultFn& onPartial)
{
    detail::Engine engine(workload, policy, seed, progress, onPartial);
    return engine.run();
}

} // namespace orrery::sim
