// The app-level lease machinery Themis and its baselines share; docs/simulator.md, "Themis".

#include "sched/app_leases.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

namespace orrery::sched {

using sim::Decision;
using sim::View;

ParamSpec leaseParam()
{
    return {"lease_s", ParamType::Number, "600", 1, 1e9, {}, 1, 16, false, "GPU lease length in seconds"};
}

void AppLeasePolicy::schedule(Decision& d)
{
    const View& v = d.view();
    if (m_apps.empty())
        buildApps(v);
    const double now = v.nowS();
    advanceActive(v, now);

    // Offered: free GPUs and GPUs whose lease has expired (spec A.5, "Full implementable round procedure").
    const int gpus = v.workload().cluster().totalGpus();
    // A lease ends at its expiry, when its app has finished, or when the job that ran on the GPU ended (a
    // finishing job releases its GPUs at once); a leased GPU its app's jobs cannot use stays the app's, idle.
    std::vector<int> owner(static_cast<std::size_t>(gpus), -1); // app holding it under a live lease
    for (int g = 0; g < gpus; ++g) {
        const auto ug = static_cast<std::size_t>(g);
        int& a = m_leaseApp[ug];
        const int holder = m_holderJob[ug];
        const bool holderEnded =
            holder >= 0 && (v.status(holder) == sim::JobStatus::Done || v.status(holder) == sim::JobStatus::Dropped);
        if (a >= 0 && (m_expiry[ug] <= now + 1e-9 || !active(v, a) || holderEnded)) {
            a = -1;
            m_holderJob[ug] = -1;
        }
        owner[ug] = a;
    }
    Round round;
    round.nowS = now;
    for (int g = 0; g < gpus; ++g)
        if (owner[static_cast<std::size_t>(g)] < 0)
            round.offered.push_back(g);
    round.held.resize(m_apps.size());
    round.won.resize(m_apps.size());
    for (int g = 0; g < gpus; ++g)
        if (owner[static_cast<std::size_t>(g)] >= 0)
            round.held[static_cast<std::size_t>(owner[static_cast<std::size_t>(g)])].push_back(g);
    // Every active app is split again below: its jobs may have changed (arrived, finished) or its GPUs expired.
    round.active.assign(m_apps.size(), 0);
    for (std::size_t a = 0; a < m_apps.size(); ++a)
        round.active[a] = active(v, static_cast<int>(a)) ? 1 : 0;

    allocate(d, round);

    // Each app's scheduler splits what it holds among its jobs; the engine sees only jobs whose GPUs change.
    std::vector<std::pair<int, std::vector<int>>> assignments;
    std::vector<int> releases;
    for (std::size_t a = 0; a < m_apps.size(); ++a) {
        if (!round.active[a])
            continue;
        std::vector<int> all = round.held[a];
        all.insert(all.end(), round.won[a].begin(), round.won[a].end());
        for (int g : round.won[a]) {
            // Every lease granted, as (time, GPU): what a view (or a test) needs to check leases are honoured.
            d.record("themis.lease_gpu", g);
            d.record("themis.lease_app", m_apps[a].jobs.front()); // the app by its first job's index
            m_expiry[static_cast<std::size_t>(g)] = now + m_leaseS;
            m_leaseApp[static_cast<std::size_t>(g)] = static_cast<int>(a);
        }
        const Split s = split(v, static_cast<int>(a), all);
        std::map<int, std::vector<int>> next(s.jobGpus.begin(), s.jobGpus.end());
        for (int g : all)
            m_holderJob[static_cast<std::size_t>(g)] = -1;
        for (const auto& [j, list] : s.jobGpus)
            for (int g : list)
                m_holderJob[static_cast<std::size_t>(g)] = j;
        for (int j : m_apps[a].jobs) {
            const auto st = v.status(j);
            if (st != sim::JobStatus::Running && st != sim::JobStatus::Queued)
                continue;
            std::vector<int> now_ = v.gpusOf(j);
            std::sort(now_.begin(), now_.end());
            auto it = next.find(j);
            std::vector<int> want = it == next.end() ? std::vector<int>{} : it->second;
            std::sort(want.begin(), want.end());
            if (want == now_)
                continue;
            if (st == sim::JobStatus::Running)
                releases.push_back(j);
            if (!want.empty())
                assignments.emplace_back(j, std::move(want));
        }
    }
    for (int j : releases)
        d.release(j);
    for (auto& [j, g] : assignments)
        d.assign(j, g);
    // Why the arrived jobs left without GPUs wait: their app's GPUs went to its other jobs, or the policy's own
    // reason for the app. The engine records a text only when it changes.
    for (std::size_t a = 0; a < m_apps.size(); ++a) {
        if (!round.active[a])
            continue;
        const bool hasGpus = !round.held[a].empty() || !round.won[a].empty();
        std::string why;
        for (int j : m_apps[a].jobs) {
            if (v.status(j) != sim::JobStatus::Queued || !v.gpusOf(j).empty())
                continue;
            if (why.empty())
                why = hasGpus ? std::string("its app's leased GPUs are used by the app's other jobs (the app's "
                                            "scheduler splits what the app holds)")
                              : whyAppWaits(static_cast<int>(a), round);
            d.explain(j, why);
        }
    }

    // Next lease expiry among GPUs in use: the next resource-available event.
    double next = kInf;
    for (int g = 0; g < gpus; ++g)
        if (m_leaseApp[static_cast<std::size_t>(g)] >= 0 && m_expiry[static_cast<std::size_t>(g)] > now + 1e-9)
            next = std::min(next, m_expiry[static_cast<std::size_t>(g)]);
    if (next < kInf)
        d.wakeAt(next);
}

std::vector<int> AppLeasePolicy::usableOf(const View& v, int a, const Round& round, const std::vector<int>& group) const
{
    // A rigid job cannot start on part of its demand: only GPUs the app's split would put to work count.
    const auto ua = static_cast<std::size_t>(a);
    const int holding = static_cast<int>(round.held[ua].size() + round.won[ua].size());
    const int take = std::min(static_cast<int>(group.size()), unmet(v, a, holding));
    if (take <= 0)
        return {};
    std::vector<int> all = round.held[ua];
    all.insert(all.end(), round.won[ua].begin(), round.won[ua].end());
    all.insert(all.end(), group.begin(), group.begin() + take);
    std::set<int> used;
    for (const auto& [j, g] : split(v, a, all).jobGpus)
        used.insert(g.begin(), g.end());
    std::vector<int> out;
    for (int i = 0; i < take; ++i)
        if (used.count(group[static_cast<std::size_t>(i)]))
            out.push_back(group[static_cast<std::size_t>(i)]);
    return out;
}

void AppLeasePolicy::buildApps(const View& v)
{
    std::unordered_map<std::string, int> index;
    m_appOf.assign(static_cast<std::size_t>(v.jobCount()), -1);
    for (int j = 0; j < v.jobCount(); ++j) {
        const auto& job = v.workload().jobs()[static_cast<std::size_t>(j)];
        // A job without an app is its own; "#" keeps its name apart from a declared app of the same text.
        const std::string key = job.app.empty() ? "#" + job.id : job.app;
        auto [it, added] = index.try_emplace(key, static_cast<int>(m_apps.size()));
        if (added)
            m_apps.push_back({job.app.empty() ? job.id : job.app, {}});
        App& a = m_apps[static_cast<std::size_t>(it->second)];
        a.jobs.push_back(j);
        a.arrivalS = std::min(a.arrivalS, v.job(j).arrivalS);
        m_appOf[static_cast<std::size_t>(j)] = it->second;
    }
    m_expiry.assign(static_cast<std::size_t>(v.workload().cluster().totalGpus()), -kInf);
    m_leaseApp.assign(m_expiry.size(), -1);
    m_holderJob.assign(m_expiry.size(), -1);
    m_rng.emplace(v.seed() ^ 0x7468656d6973ULL); // "themis": a stream apart from the run seed's other uses
}

bool AppLeasePolicy::active(const View& v, int a) const
{
    const App& app = m_apps[static_cast<std::size_t>(a)];
    if (app.arrivalS > v.nowS())
        return false;
    for (int j : app.jobs) {
        const auto st = v.status(j);
        if (st != sim::JobStatus::Done && st != sim::JobStatus::Dropped)
            return true;
    }
    return false;
}

/** N_avg bookkeeping: the time-weighted number of active apps (spec A.5, choice 6). */
void AppLeasePolicy::advanceActive(const View& v, double now)
{
    m_integral += m_activeCount * (now - m_lastS);
    m_lastS = now;
    m_activeCount = 0;
    for (std::size_t a = 0; a < m_apps.size(); ++a) {
        if (!active(v, static_cast<int>(a)))
            continue;
        ++m_activeCount;
        if (!m_apps[a].arrived) {
            m_apps[a].arrived = true;
            // It arrived at or before now; the count it saw since then is the current one.
            m_apps[a].integralAtArrival = m_integral - m_activeCount * (now - m_apps[a].arrivalS);
        }
    }
}

double AppLeasePolicy::nAvg(int a, double now) const
{
    const App& app = m_apps[static_cast<std::size_t>(a)];
    const double span = now - app.arrivalS;
    if (span <= 1e-9)
        return std::max(1, m_activeCount);
    return std::max(1.0, (m_integral - app.integralAtArrival) / span);
}

/** Jobs of app a that can take GPUs now. */
std::vector<int> AppLeasePolicy::liveJobs(const View& v, int a) const
{
    std::vector<int> out;
    for (int j : m_apps[static_cast<std::size_t>(a)].jobs) {
        const auto st = v.status(j);
        if (st == sim::JobStatus::Running || st == sim::JobStatus::Queued)
            out.push_back(j);
    }
    return out;
}

/** A serverless job that declares no elastic range asks for its request (per type), as in every baseline: it
 *  is not grown (Themis' job_demand_max is the declared max_gpus). */
bool AppLeasePolicy::fixedRequest(const View& v, int j) const
{
    const auto& job = v.workload().jobs()[static_cast<std::size_t>(j)];
    return job.kind == workload::JobKind::Serverless && job.minGpus == 0 && job.maxGpus == 0 && job.allowedGpus.empty();
}

int AppLeasePolicy::maxUsable(const View& v, int j) const
{
    if (fixedRequest(v, j))
        return std::min(v.job(j).demand, v.workload().cluster().totalGpus());
    return std::min(v.job(j).maxGpus, v.workload().cluster().totalGpus());
}

int AppLeasePolicy::unmet(const View& v, int a, int holding) const
{
    long long want = 0;
    for (int j : liveJobs(v, a))
        want += maxUsable(v, j);
    return static_cast<int>(std::max(0LL, want - holding));
}

/** Serial GPU-seconds of job j left, as the scheduler believes (linear speedup from its ideal run). */
double AppLeasePolicy::serialLeftS(const View& v, int j) const
{
    const double work = v.estimatedWork(j);
    const double frac = work > 0 ? v.estimatedRemainingWork(j) / work : 0;
    return v.estimatedDurationS(j) * v.job(j).demand * frac;
}

/** T_id = T_cluster x N_avg (Equations 1-2 over the app's jobs). */
double AppLeasePolicy::tIdS(const View& v, int a, double now) const
{
    double serial = 0;
    long long demand = 0;
    for (int j : m_apps[static_cast<std::size_t>(a)].jobs) {
        serial += v.estimatedDurationS(j) * v.job(j).demand;
        demand += v.job(j).demand;
    }
    const double cap = static_cast<double>(std::min<long long>(demand, v.workload().cluster().totalGpus()));
    return serial / std::max(1.0, cap) * nAvg(a, now);
}

/** The GPUs of `pool` ordered to pack: nodes holding the most of them first, then GPU id. */
std::vector<int> AppLeasePolicy::packed(const View& v, std::vector<int> pool, const std::set<int>& preferNodes) const
{
    const auto& c = v.workload().cluster();
    std::map<int, int> perNode;
    for (int g : pool)
        ++perNode[c.nodeOfGpu(g)];
    std::sort(pool.begin(), pool.end(), [&](int x, int y) {
        const int nx = c.nodeOfGpu(x), ny = c.nodeOfGpu(y);
        if (nx == ny)
            return x < y;
        const bool px = preferNodes.count(nx) > 0, py = preferNodes.count(ny) > 0;
        if (px != py)
            return px;
        if (perNode[nx] != perNode[ny])
            return perNode[nx] > perNode[ny];
        return nx < ny;
    });
    return pool;
}

/**
 * The app scheduler (spec choice 9): jobs keep GPUs they hold that are still the app's; the others, longest
 * first, get their smallest accepted count, from one node where one has room; the rest go one GPU at a time
 * to the slowest job that accepts one more. Time = the slowest job's estimated time, or the app's serial work
 * over its GPUs when that is longer (jobs left without GPUs wait for others to finish).
 */
AppLeasePolicy::Split AppLeasePolicy::split(const View& v, int a, const std::vector<int>& gpus) const
{
    Split out;
    const auto jobs = liveJobs(v, a);
    if (jobs.empty())
        return out;
    if (gpus.empty()) {
        out.remainingS = kInf;
        return out;
    }
    const auto& w = v.workload();
    std::set<int> pool(gpus.begin(), gpus.end());
    std::map<int, std::vector<int>> given;
    for (int j : jobs) {
        const auto& cur = v.gpusOf(j);
        if (!cur.empty() && std::all_of(cur.begin(), cur.end(), [&](int g) { return pool.count(g) > 0; })) {
            given[j] = cur;
            for (int g : cur)
                pool.erase(g);
        }
    }
    std::vector<int> order = jobs;
    std::stable_sort(order.begin(), order.end(), [&](int x, int y) { return serialLeftS(v, x) > serialLeftS(v, y); });
    for (int j : order) {
        if (given.count(j))
            continue;
        std::vector<int> usable;
        for (int g : pool)
            if (w.allowed(j, w.typeOfGpu(g)))
                usable.push_back(g);
        const int most = std::min(maxUsable(v, j), static_cast<int>(usable.size()));
        // The smallest count it accepts and can run on (a serverless job may not fit one GPU's memory): one node
        // with room, the tightest first; else the GPUs of one type, packed; else all, packed.
        std::vector<int> take;
        if (fixedRequest(v, j)) {
            // Its request on one type (the tightest node, else packed), else its overall request on any.
            std::map<int, std::vector<int>> byType;
            for (int g : usable)
                byType[w.typeOfGpu(g)].push_back(g);
            std::vector<std::vector<int>> options;
            for (const auto& [type, list] : byType) {
                const int want = w.demandOn(j, type);
                if (static_cast<int>(list.size()) < want)
                    continue;
                std::map<int, std::vector<int>> byNode;
                for (int g : list)
                    byNode[w.cluster().nodeOfGpu(g)].push_back(g);
                std::vector<int> option;
                for (const auto& [node, onNode] : byNode)
                    if (static_cast<int>(onNode.size()) >= want && (option.empty() || onNode.size() < option.size()))
                        option = onNode;
                if (option.empty())
                    option = packed(v, list);
                option.resize(static_cast<std::size_t>(want));
                options.push_back(std::move(option));
            }
            if (static_cast<int>(usable.size()) >= v.job(j).demand) {
                auto all = packed(v, usable);
                all.resize(static_cast<std::size_t>(v.job(j).demand));
                options.push_back(std::move(all));
            }
            for (auto& option : options)
                if (v.rateOn(j, option) > 0) {
                    take = std::move(option);
                    break;
                }
        }
        for (int m = std::max(1, v.job(j).minGpus); m <= most && take.empty() && !fixedRequest(v, j); ++m) {
            if (!v.accepts(j, m))
                continue;
            std::map<int, std::vector<int>> byNode, byType;
            for (int g : usable) {
                byNode[w.cluster().nodeOfGpu(g)].push_back(g);
                byType[w.typeOfGpu(g)].push_back(g);
            }
            std::vector<std::vector<int>> options;
            for (const auto& [node, list] : byNode)
                if (static_cast<int>(list.size()) >= m)
                    options.push_back(list);
            std::stable_sort(options.begin(), options.end(),
                             [](const auto& x, const auto& y) { return x.size() < y.size(); });
            for (const auto& [type, list] : byType)
                if (static_cast<int>(list.size()) >= m)
                    options.push_back(packed(v, list));
            options.push_back(packed(v, usable));
            for (auto& option : options) {
                option.resize(static_cast<std::size_t>(m));
                if (v.rateOn(j, option) > 0) {
                    take = std::move(option);
                    break;
                }
            }
        }
        if (take.empty())
            continue;
        for (int g : take)
            pool.erase(g);
        given[j] = std::move(take);
    }
    const auto timeOf = [&](int j, const std::vector<int>& g) {
        const double rate = v.rateOn(j, g);
        return rate > 0 ? v.estimatedRemainingWork(j) / rate : kInf;
    };
    // Water-filling: one GPU at a time to the slowest job that accepts one more, from its own node first.
    while (!pool.empty()) {
        int pick = -1;
        double worst = -1;
        for (auto& [j, g] : given) {
            const int n = static_cast<int>(g.size());
            if (n + 1 > maxUsable(v, j) || !v.accepts(j, n + 1))
                continue;
            const double t = timeOf(j, g);
            if (t > worst) {
                worst = t;
                pick = j;
            }
        }
        if (pick < 0)
            break;
        auto& g = given[pick];
        std::set<int> nodes;
        for (int x : g)
            nodes.insert(w.cluster().nodeOfGpu(x));
        int add = -1;
        for (int x : packed(v, std::vector<int>(pool.begin(), pool.end()), nodes))
            if (w.allowed(pick, w.typeOfGpu(x))) {
                add = x;
                break;
            }
        if (add < 0)
            break;
        std::vector<int> grown = g;
        grown.push_back(add);
        // One more GPU elsewhere may slow it down (locality): then it stays as it is.
        if (timeOf(pick, grown) >= timeOf(pick, g)) {
            break;
        }
        g = std::move(grown);
        pool.erase(add);
    }
    double slowest = 0, serial = 0;
    for (int j : jobs) {
        serial += serialLeftS(v, j);
        auto it = given.find(j);
        if (it != given.end())
            slowest = std::max(slowest, timeOf(j, it->second));
    }
    out.remainingS = std::max(slowest, serial / static_cast<double>(gpus.size()));
    if (given.empty())
        out.remainingS = kInf;
    out.jobGpus.assign(given.begin(), given.end());
    return out;
}

double AppLeasePolicy::rhoOf(const View& v, int a, const std::vector<int>& gpus, double now) const
{
    return rhoFromRemaining(v, a, split(v, a, gpus).remainingS, now);
}

double AppLeasePolicy::rhoFromRemaining(const View& v, int a, double remainingS, double now) const
{
    if (!std::isfinite(remainingS))
        return kInf; // no job can run: worth what nothing is worth
    const double tId = tIdS(v, a, now);
    const double elapsed = now - m_apps[static_cast<std::size_t>(a)].arrivalS;
    return tId > 0 ? std::min(kRhoMax, (elapsed + remainingS) / tId) : kRhoMax;
}
std::string AppLeasePolicy::whyAppWaits(int /*a*/, const Round& round) const
{
    if (round.offered.empty())
        return "every GPU is leased to another app; the next round is at the next lease expiry";
    return fmt::format("the GPUs offered in the last round went to apps ahead of its app in {}'s order (leases of "
                       "{:g} s)",
                       name(), m_leaseS);
}

} // namespace orrery::sched
