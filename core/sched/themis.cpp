// Themis (Mahajan et al., NSDI'20; ../shared/specs/themis-crius.md A.3-A.5): finish-time-fair auctions of GPU
// leases among apps. docs/simulator.md, "Themis", describes the round and every choice made here.

#include "sched/queue_reasons.h"
#include "sched/registry.h"
#include "sched/themis_auction.h"
#include "sched/themis_rho.h"

#include "util/portable_random.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>

namespace orrery::sched {

namespace {

using sim::Decision;
using sim::View;
using themis::Bid;
using themis::Candidate;

constexpr double kRhoMax = 1e6;      // cap on reported rho (spec choice 3)
constexpr double kEmptyValue = 1e-9; // v(empty) of an app that holds nothing (spec A.4, note 6)
constexpr double kInf = std::numeric_limits<double>::infinity();

struct App
{
    std::string name;
    std::vector<int> jobs;
    double arrivalS = kInf;
    double integralAtArrival = 0; ///< of the active-app count, for N_avg
    bool arrived = false;
    int auctions = 0;
    int wins = 0;
};

/** An app that can use more GPUs, with its rho on what it keeps. */
struct Eligible
{
    int app;
    double rho;
};

/** How the agent splits a set of GPUs among its app's jobs, and what that is worth. */
struct Split
{
    std::vector<std::pair<int, std::vector<int>>> jobGpus; ///< (job, GPUs) of the jobs that get some
    double remainingS = 0;                                 ///< estimated time for the app's arrived jobs to finish
};

class Themis final : public Policy
{
public:
    explicit Themis(const PolicyParams& params)
        : m_f(params.number("f")), m_leaseS(params.number("lease_s")),
          m_domains(static_cast<int>(params.integer("domains")))
    {}
    std::string name() const override { return "themis"; }

    void schedule(Decision& d) override
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
            int& app = m_leaseApp[ug];
            const int holder = m_holderJob[ug];
            const bool holderEnded = holder >= 0 && (v.status(holder) == sim::JobStatus::Done ||
                                                     v.status(holder) == sim::JobStatus::Dropped);
            if (app >= 0 && (m_expiry[ug] <= now + 1e-9 || !active(v, app) || holderEnded)) {
                app = -1;
                m_holderJob[ug] = -1;
            }
            owner[ug] = app;
        }
        std::vector<int> offered;
        for (int g = 0; g < gpus; ++g)
            if (owner[static_cast<std::size_t>(g)] < 0)
                offered.push_back(g);

        std::vector<std::vector<int>> held(m_apps.size());
        for (int g = 0; g < gpus; ++g)
            if (owner[static_cast<std::size_t>(g)] >= 0)
                held[static_cast<std::size_t>(owner[static_cast<std::size_t>(g)])].push_back(g);

        // Visibility: every active app's rho on what it keeps; eligible apps can use more GPUs.
        std::vector<Eligible> eligible;
        std::vector<char> touched(m_apps.size(), 0);
        for (std::size_t a = 0; a < m_apps.size(); ++a) {
            if (!active(v, static_cast<int>(a)))
                continue;
            if (unmet(v, static_cast<int>(a), static_cast<int>(held[a].size())) > 0 && !offered.empty())
                eligible.push_back({static_cast<int>(a), rhoOf(v, static_cast<int>(a), held[a], now)});
            // An app whose jobs changed (arrived, finished) or whose GPUs expired is split again below.
            touched[a] = 1;
        }
        std::stable_sort(eligible.begin(), eligible.end(), [this](const Eligible& x, const Eligible& y) {
            if (x.rho != y.rho)
                return x.rho > y.rho;
            return m_apps[static_cast<std::size_t>(x.app)].arrivalS < m_apps[static_cast<std::size_t>(y.app)].arrivalS;
        });
        const int k = themis::filterCount(static_cast<int>(eligible.size()), m_f);

        std::vector<std::vector<int>> won(m_apps.size());
        std::vector<char> filtered(m_apps.size(), 0);
        if (k > 0) {
            // Bids of the worst-rho 1 - f fraction.
            std::vector<Bid> bids;
            std::vector<int> bidders;
            for (int i = 0; i < k; ++i) {
                const int a = eligible[static_cast<std::size_t>(i)].app;
                filtered[static_cast<std::size_t>(a)] = 1;
                bidders.push_back(a);
                bids.push_back(bidOf(v, a, held[static_cast<std::size_t>(a)], offered, now));
            }
            const auto result = themis::partialAllocation(bids, offered);
            ++m_round;
            for (std::size_t i = 0; i < bidders.size(); ++i) {
                const int a = bidders[i];
                won[static_cast<std::size_t>(a)] = result.granted[i];
                recordBid(d, a, bids[i], result, i);
            }
            d.record("themis.bidders", static_cast<double>(k));
            d.record("themis.offered_gpus", static_cast<double>(offered.size()));
            d.record("themis.leftover_gpus", static_cast<double>(result.leftover.size()));
            d.record("themis.solve_ms", result.solveS * 1e3);
            d.record("themis.solves", result.solves);
            giveLeftover(v, result.leftover, eligible, filtered, held, won, now);
        }

        // Each app's scheduler splits what it holds among its jobs; the engine sees only jobs whose GPUs change.
        std::vector<std::pair<int, std::vector<int>>> assignments;
        std::vector<int> releases;
        for (std::size_t a = 0; a < m_apps.size(); ++a) {
            if (!touched[a])
                continue;
            std::vector<int> all = held[a];
            all.insert(all.end(), won[a].begin(), won[a].end());
            for (int g : won[a]) {
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
        explainWaiting(d, eligible, filtered, held, won, offered.empty());

        // Next lease expiry among GPUs in use: the next auction.
        double next = kInf;
        for (int g = 0; g < gpus; ++g)
            if (m_leaseApp[static_cast<std::size_t>(g)] >= 0 && m_expiry[static_cast<std::size_t>(g)] > now + 1e-9)
                next = std::min(next, m_expiry[static_cast<std::size_t>(g)]);
        if (next < kInf)
            d.wakeAt(next);
    }

private:
    /** Why each arrived job without GPUs waits, from what its app did in this auction. */
    void explainWaiting(Decision& d, const std::vector<Eligible>& eligible, const std::vector<char>& bid,
                        const std::vector<std::vector<int>>& held, const std::vector<std::vector<int>>& won,
                        bool nothingOffered)
    {
        enum Kind { AppSplit, LostAuction, Filtered, NothingOffered, NoneSuited };
        const View& v = d.view();
        std::vector<char> isEligible(m_apps.size(), 0);
        for (const auto& e : eligible)
            isEligible[static_cast<std::size_t>(e.app)] = 1;
        for (std::size_t a = 0; a < m_apps.size(); ++a) {
            if (!active(v, static_cast<int>(a)))
                continue;
            const bool hasGpus = !held[a].empty() || !won[a].empty();
            const int kind = hasGpus          ? AppSplit
                             : bid[a]         ? LostAuction
                             : isEligible[a]  ? Filtered
                             : nothingOffered ? NothingOffered
                                              : NoneSuited;
            for (int j : m_apps[a].jobs) {
                const auto st = v.status(j);
                if (st != sim::JobStatus::Running && st != sim::JobStatus::Queued)
                    continue;
                if (!v.gpusOf(j).empty()) {
                    m_reasons.running(j);
                    continue;
                }
                if (!m_reasons.changed(j, kind))
                    continue;
                switch (kind) {
                case AppSplit:
                    d.explain(j, "its app's leased GPUs are used by the app's other jobs (the app's scheduler "
                                 "splits what the app holds)");
                    break;
                case LostAuction:
                    d.explain(j, "its app bid in the last auction and won no GPU (Themis' partial-allocation "
                                 "auction, proportional-fair over the bidders' finish-time fairness)");
                    break;
                case Filtered:
                    d.explain(j, fmt::format("its app's finish-time fairness rho is among the best: only the "
                                             "worst {:g}% of apps bid (filter f = {:g})",
                                             100 * (1 - m_f), m_f));
                    break;
                case NothingOffered:
                    d.explain(j, "every GPU is leased to another app; the next auction is at the next lease "
                                 "expiry");
                    break;
                default:
                    d.explain(j, "its app could use no more GPUs than it holds in the last auction");
                }
            }
        }
    }

    double m_f;
    double m_leaseS;
    int m_domains;
    std::vector<App> m_apps;
    std::vector<int> m_appOf;
    std::vector<double> m_expiry; ///< per GPU: its lease's end (-inf: never leased)
    std::vector<int> m_leaseApp;  ///< per GPU: the app holding its lease, -1 none
    std::vector<int> m_holderJob; ///< per GPU: the job of that app running on it, -1 none (idle)
    double m_lastS = 0;
    double m_integral = 0; ///< of the active-app count since t = 0
    int m_activeCount = 0;
    long long m_round = 0;
    std::optional<util::PortableRandom> m_rng;
    ReasonMemo m_reasons;

    void buildApps(const View& v)
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

    bool active(const View& v, int a) const
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
    void advanceActive(const View& v, double now)
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

    double nAvg(int a, double now) const
    {
        const App& app = m_apps[static_cast<std::size_t>(a)];
        const double span = now - app.arrivalS;
        if (span <= 1e-9)
            return std::max(1, m_activeCount);
        return std::max(1.0, (m_integral - app.integralAtArrival) / span);
    }

    /** Jobs of app a that can take GPUs now. */
    std::vector<int> liveJobs(const View& v, int a) const
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
    bool fixedRequest(const View& v, int j) const
    {
        const auto& job = v.workload().jobs()[static_cast<std::size_t>(j)];
        return job.kind == workload::JobKind::Serverless && job.minGpus == 0 && job.maxGpus == 0 &&
               job.allowedGpus.empty();
    }

    int maxUsable(const View& v, int j) const
    {
        if (fixedRequest(v, j))
            return std::min(v.job(j).demand, v.workload().cluster().totalGpus());
        return std::min(v.job(j).maxGpus, v.workload().cluster().totalGpus());
    }

    int unmet(const View& v, int a, int holding) const
    {
        long long want = 0;
        for (int j : liveJobs(v, a))
            want += maxUsable(v, j);
        return static_cast<int>(std::max(0LL, want - holding));
    }

    /** Serial GPU-seconds of job j left, as the scheduler believes (linear speedup from its ideal run). */
    double serialLeftS(const View& v, int j) const
    {
        const double work = v.estimatedWork(j);
        const double frac = work > 0 ? v.estimatedRemainingWork(j) / work : 0;
        return v.estimatedDurationS(j) * v.job(j).demand * frac;
    }

    /** T_id = T_cluster x N_avg (Equations 1-2 over the app's jobs). */
    double tIdS(const View& v, int a, double now) const
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
    std::vector<int> packed(const View& v, std::vector<int> pool, const std::set<int>& preferNodes = {}) const
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
    Split split(const View& v, int a, const std::vector<int>& gpus) const
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
        std::stable_sort(order.begin(), order.end(),
                         [&](int x, int y) { return serialLeftS(v, x) > serialLeftS(v, y); });
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
                        if (static_cast<int>(onNode.size()) >= want &&
                            (option.empty() || onNode.size() < option.size()))
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

    double rhoOf(const View& v, int a, const std::vector<int>& gpus, double now) const
    {
        const Split s = split(v, a, gpus);
        if (!std::isfinite(s.remainingS))
            return kInf; // no job can run: worth what nothing is worth
        const double tId = tIdS(v, a, now);
        const double elapsed = now - m_apps[static_cast<std::size_t>(a)].arrivalS;
        return tId > 0 ? std::min(kRhoMax, (elapsed + s.remainingS) / tId) : kRhoMax;
    }

    /**
     * The agent's bid (spec A.3.3 and A.4 note 1): the empty bundle, then for GPU counts n and span levels (one
     * node, one rack, the cluster) the best-fit bundles of n offered GPUs within up to `domains` domains of the
     * level, domains hosting the app's GPUs first; each valued at rho(held + bundle).
     */
    Bid bidOf(const View& v, int a, const std::vector<int>& held, const std::vector<int>& offered, double now) const
    {
        const auto& c = v.workload().cluster();
        Bid bid;
        const double rhoOld = held.empty() ? kInf : rhoOf(v, a, held, now);
        bid.candidates.push_back({{}, std::isfinite(rhoOld) ? -std::log(rhoOld) : std::log(kEmptyValue)});
        std::set<int> mine;
        for (int g : held)
            mine.insert(c.nodeOfGpu(g));
        std::set<int> mineRacks;
        for (int n : mine)
            mineRacks.insert(c.rackOfNode(n));
        std::map<int, std::vector<int>> byNode, byRack;
        for (int g : offered) {
            byNode[c.nodeOfGpu(g)].push_back(g);
            const int rack = c.rackOfNode(c.nodeOfGpu(g));
            if (rack >= 0)
                byRack[rack].push_back(g);
        }
        const int most = std::min(unmet(v, a, static_cast<int>(held.size())), static_cast<int>(offered.size()));
        // Every count up to 8, then powers of two and the whole unmet demand: ρ is smooth in the count beyond
        // a machine, and the table stays small enough to solve each lease (docs/simulator.md, "Themis").
        std::set<int> counts;
        for (int n = 1; n <= most; n = n < 8 ? n + 1 : n * 2)
            counts.insert(n);
        if (most > 0)
            counts.insert(most);
        std::set<std::vector<int>> seen;
        const auto add = [&](std::vector<int> bundle) {
            std::vector<int> key = bundle;
            std::sort(key.begin(), key.end());
            if (bundle.empty() || !seen.insert(key).second)
                return;
            std::vector<int> all = held;
            all.insert(all.end(), bundle.begin(), bundle.end());
            const double rho = std::max(1e-12, rhoOf(v, a, all, now));
            bid.candidates.push_back(
                {std::move(bundle), std::isfinite(rho) ? -std::log(rho) : bid.candidates.front().logValue});
        };
        const auto domainsOf = [&](const std::map<int, std::vector<int>>& groups, const std::set<int>& preferred,
                                   int n) {
            std::vector<const std::pair<const int, std::vector<int>>*> fit;
            for (const auto& entry : groups)
                if (static_cast<int>(entry.second.size()) >= n)
                    fit.push_back(&entry);
            std::stable_sort(fit.begin(), fit.end(), [&](const auto* x, const auto* y) {
                const bool px = preferred.count(x->first) > 0, py = preferred.count(y->first) > 0;
                if (px != py)
                    return px;
                return x->second.size() < y->second.size();
            });
            if (static_cast<int>(fit.size()) > m_domains)
                fit.resize(static_cast<std::size_t>(m_domains));
            return fit;
        };
        for (int n : counts) {
            for (const auto* node : domainsOf(byNode, mine, n))
                add(std::vector<int>(node->second.begin(), node->second.begin() + n));
            for (const auto* rack : domainsOf(byRack, mineRacks, n)) {
                auto list = packed(v, rack->second, mine);
                list.resize(static_cast<std::size_t>(n));
                add(std::move(list));
            }
            // The cluster level: the packed order, and alternatives that start t nodes further down it (so that a
            // bidder can leave the fullest node to another whose placement needs it more: Figure 5, Instance 2).
            const auto list = packed(v, offered, mine);
            std::vector<int> nodeStarts;
            for (std::size_t x = 0; x < list.size(); ++x)
                if (x == 0 || c.nodeOfGpu(list[x]) != c.nodeOfGpu(list[x - 1]))
                    nodeStarts.push_back(static_cast<int>(x));
            for (int t = 0; t < std::min<int>(m_domains, static_cast<int>(nodeStarts.size())); ++t) {
                std::vector<int> bundle(list.begin() + nodeStarts[static_cast<std::size_t>(t)], list.end());
                bundle.insert(bundle.end(), list.begin(), list.begin() + nodeStarts[static_cast<std::size_t>(t)]);
                bundle.resize(static_cast<std::size_t>(n));
                add(std::move(bundle));
            }
        }
        return bid;
    }

    /** Leftover GPUs, node by node in a seeded random order, to random apps outside the auction that can use them
     *  (else to bidders), so the round is work-conserving (spec A.5 idea 3, choice 13). */
    void giveLeftover(const View& v, const std::vector<int>& leftover, const std::vector<Eligible>& eligible,
                      const std::vector<char>& filtered, const std::vector<std::vector<int>>& held,
                      std::vector<std::vector<int>>& won, double now)
    {
        (void)now;
        std::map<int, std::vector<int>> byNode;
        for (int g : leftover)
            byNode[v.workload().cluster().nodeOfGpu(g)].push_back(g);
        std::vector<std::vector<int>> groups;
        for (auto& [node, list] : byNode)
            groups.push_back(std::move(list));
        shuffle(groups);
        std::vector<int> outside, inside;
        for (const auto& e : eligible)
            (filtered[static_cast<std::size_t>(e.app)] ? inside : outside).push_back(e.app);
        // Gives app a the GPUs of `group` (at most its unmet demand) that its jobs would use with what it holds:
        // a rigid job cannot start on part of its demand. Returns the GPUs left.
        const auto offer = [&](int a, std::vector<int> group) {
            const auto ua = static_cast<std::size_t>(a);
            const int holding = static_cast<int>(held[ua].size() + won[ua].size());
            const int take = std::min(static_cast<int>(group.size()), unmet(v, a, holding));
            if (take <= 0)
                return group;
            std::vector<int> all = held[ua];
            all.insert(all.end(), won[ua].begin(), won[ua].end());
            all.insert(all.end(), group.begin(), group.begin() + take);
            std::set<int> used;
            for (const auto& [j, g] : split(v, a, all).jobGpus)
                used.insert(g.begin(), g.end());
            std::vector<int> rest;
            for (int i = 0; i < static_cast<int>(group.size()); ++i) {
                const int g = group[static_cast<std::size_t>(i)];
                (i < take && used.count(g) ? won[ua] : rest).push_back(g);
            }
            return rest;
        };
        std::vector<int> remaining;
        for (auto& group : groups) {
            for (const auto* pool : {&outside, &inside}) {
                std::vector<int> candidates = *pool;
                shuffle(candidates);
                for (int a : candidates)
                    if (!group.empty())
                        group = offer(a, std::move(group));
            }
            remaining.insert(remaining.end(), group.begin(), group.end());
        }
        // What no app could use machine by machine, offered whole (packed) to the same random order: an app whose
        // rigid job needs GPUs of several machines gets them together (else a free cluster could stay idle).
        if (remaining.empty())
            return;
        remaining = packed(v, remaining);
        for (const auto* pool : {&outside, &inside}) {
            std::vector<int> candidates = *pool;
            shuffle(candidates);
            for (int a : candidates)
                if (!remaining.empty())
                    remaining = offer(a, std::move(remaining));
        }
    }

    template <typename T> void shuffle(std::vector<T>& items)
    {
        // Fisher-Yates on the portable generator, so runs are the same on every platform.
        for (std::size_t i = items.size(); i > 1; --i) {
            const auto j = static_cast<std::size_t>(m_rng->uniform() * static_cast<double>(i));
            std::swap(items[i - 1], items[std::min(j, i - 1)]);
        }
    }

    /** The auction as records (docs/simulator.md, "Themis"): an `auction` event on the app's first job. */
    void recordBid(Decision& d, int a, const Bid& bid, const themis::AuctionResult& r, std::size_t i)
    {
        App& app = m_apps[static_cast<std::size_t>(a)];
        ++app.auctions;
        const int choice = r.pfChoice[i];
        if (!r.granted[i].empty())
            ++app.wins;
        std::string table;
        for (std::size_t c = 0; c < bid.candidates.size(); ++c)
            table += fmt::format("{}{}:{:.4g}", c ? " " : "", bid.candidates[c].gpus.size(),
                                 std::exp(-bid.candidates[c].logValue));
        const std::string detail = fmt::format(
            "round={} app={} bidders={} rho_old={:.4g} pf={} pf_gpus={} payment={:.4g} granted={} bids=[{}]", m_round,
            app.name, r.pfChoice.size(), std::exp(-bid.candidates[0].logValue), choice,
            bid.candidates[static_cast<std::size_t>(choice)].gpus.size(), r.payment[i], r.granted[i].size(), table);
        const int lead = app.jobs.front();
        d.noteAuction(lead, detail);
        d.annotate(lead, "themis_auctions", app.auctions);
        d.annotate(lead, "themis_wins", app.wins);
        d.annotate(lead, "themis_last_payment", r.payment[i]);
    }
};

} // namespace

std::unique_ptr<Policy> makeThemis(const PolicyParams& params)
{
    return std::make_unique<Themis>(params);
}

std::vector<ParamSpec> themisParams()
{
    return {
        {"f",
         ParamType::Number,
         "0.8",
         0,
         1,
         {},
         1,
         16,
         false,
         "fairness knob: only the 1 - f fraction of apps with the worst rho bid in each auction (at least one)"},
        {"lease_s", ParamType::Number, "600", 1, 1e9, {}, 1, 16, false, "GPU lease length in seconds"},
        {"domains",
         ParamType::Integer,
         "4",
         1,
         64,
         {},
         1,
         16,
         false,
         "alternative nodes (racks) per GPU count and span level in a bid table"},
    };
}

} // namespace orrery::sched
