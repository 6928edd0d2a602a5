// Themis (Mahajan et al., NSDI'20; ../shared/specs/themis-crius.md A.3-A.5): finish-time-fair auctions of GPU
// leases among apps. docs/simulator.md, "Themis", describes the round and every choice made here; the apps, leases
// and the app scheduler are AppLeasePolicy's (core/sched/app_leases.h), which the baselines share.

#include "io/error.h"
#include "sched/app_leases.h"
#include "sched/themis_auction.h"
#include "sched/themis_records.h"
#include "sched/themis_rho.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace orrery::sched {

namespace {

using sim::Decision;
using sim::View;
using themis::Bid;
using themis::Candidate;

constexpr double kEmptyValue = 1e-9; // v(empty) of an app that holds nothing (spec A.4, note 6)

/** An app that can use more GPUs, with its rho on what it keeps. */
struct Eligible
{
    int app;
    double rho;
};

class Themis final : public AppLeasePolicy
{
public:
    explicit Themis(const PolicyParams& params)
        : AppLeasePolicy(params.number("lease_s")), m_f(params.number("f")),
          m_domains(static_cast<int>(params.integer("domains"))), m_liar(static_cast<int>(params.integer("liar"))),
          m_lie(params.number("lie"))
    {}
    std::string name() const override { return "themis"; }

protected:
    void allocate(Decision& d, Round& round) override
    {
        const View& v = d.view();
        const double now = round.nowS;
        const auto& offered = round.offered;
        const auto& held = round.held;
        if (m_auctions.empty()) {
            m_auctions.assign(apps().size(), 0);
            m_wins.assign(apps().size(), 0);
            if (m_liar >= appCount())
                throw Error(fmt::format("policy \"themis\": liar={} names no app (the workload has {} apps, "
                                        "numbered from 0 in the order of their first job)",
                                        m_liar, appCount()));
        }

        // Visibility: every active app's rho on its current allocation, the GPUs it keeps plus those its jobs run
        // on whose lease ends now (the app is still on them when the event comes: a winner's rho has improved, so
        // it drops out of the filter, spec A.5 idea 2); eligible apps can use more GPUs.
        std::vector<Eligible> eligible;
        for (int a = 0; a < appCount(); ++a) {
            if (!round.active[static_cast<std::size_t>(a)])
                continue;
            if (unmet(v, a, static_cast<int>(held[static_cast<std::size_t>(a)].size())) > 0 && !offered.empty())
                eligible.push_back({a, rhoOf(v, a, currentAllocation(v, a, round), now)});
        }
        std::stable_sort(eligible.begin(), eligible.end(), [this](const Eligible& x, const Eligible& y) {
            if (x.rho != y.rho)
                return x.rho > y.rho;
            return app(x.app).arrivalS < app(y.app).arrivalS;
        });
        const int k = themis::filterCount(static_cast<int>(eligible.size()), m_f);
        // What each app did this round, for the reasons its waiting jobs are given.
        m_stage.assign(apps().size(), StageNone);
        for (const auto& e : eligible)
            m_stage[static_cast<std::size_t>(e.app)] = StageFiltered;
        if (k == 0)
            return;

        // Bids of the worst-rho 1 - f fraction.
        std::vector<char> filtered(apps().size(), 0);
        std::vector<Bid> bids;
        std::vector<int> bidders;
        for (int i = 0; i < k; ++i) {
            const int a = eligible[static_cast<std::size_t>(i)].app;
            filtered[static_cast<std::size_t>(a)] = 1;
            m_stage[static_cast<std::size_t>(a)] = StageBid;
            bidders.push_back(a);
            bids.push_back(
                bidOf(v, a, held[static_cast<std::size_t>(a)], currentAllocation(v, a, round), offered, now));
        }
        const auto result = themis::partialAllocation(bids, offered);
        ++m_round;
        std::size_t granted = 0;
        for (std::size_t i = 0; i < bidders.size(); ++i) {
            const int a = bidders[i];
            round.won[static_cast<std::size_t>(a)] = result.granted[i];
            granted += result.granted[i].size();
            recordBid(d, a, bids[i], eligible[i].rho, result, i);
        }
        d.record("themis.bidders", static_cast<double>(k));
        d.record("themis.eligible", static_cast<double>(eligible.size()));
        d.record("themis.offered_gpus", static_cast<double>(offered.size()));
        d.record("themis.leftover_gpus", static_cast<double>(result.leftover.size()));
        d.record("themis.solve_ms", result.solveS * 1e3);
        d.record("themis.solves", result.solves);
        giveLeftover(v, result.leftover, eligible, filtered, round);
        // What of the leftover went to apps: with the grants, the count of this auction's lease records, so that a
        // view can tell apart the leases of several auctions at one time (themis::auctionRounds).
        std::size_t leased = 0;
        for (const auto& won : round.won)
            leased += won.size();
        d.record("themis.leftover_given", static_cast<double>(leased - granted));
    }

    std::string whyAppWaits(int a, const Round& round) const override
    {
        const auto stage =
            static_cast<std::size_t>(a) < m_stage.size() ? m_stage[static_cast<std::size_t>(a)] : StageNone;
        if (stage == StageBid)
            return "its app bid in the last auction and won no GPU (Themis' partial-allocation auction, "
                   "proportional-fair over the bidders' finish-time fairness)";
        if (stage == StageFiltered)
            return fmt::format("its app's finish-time fairness rho is among the best: only the worst {:g}% of apps "
                               "bid (filter f = {:g})",
                               100 * (1 - m_f), m_f);
        return round.offered.empty() ? "every GPU is leased to another app; the next auction is at the next lease "
                                       "expiry"
                                     : "its app could use none of the GPUs offered in the last auction";
    }

private:
    enum Stage { StageNone, StageFiltered, StageBid };
    std::vector<Stage> m_stage; ///< per app, in the last auction
    double m_f;
    int m_domains;
    int m_liar;   ///< the app that misreports in its bids (-1: every app is truthful)
    double m_lie; ///< X: the liar over-reports the slowdown of spread placements by this fraction
    long long m_round = 0;
    std::vector<int> m_auctions; ///< per app: auctions it bid in
    std::vector<int> m_wins;     ///< per app: auctions it was granted GPUs in

    /**
     * The agent's bid (spec A.3.3 and A.4 note 1): the empty bundle, then for GPU counts n and span levels (one
     * node, one rack, the cluster) the best-fit bundles of n offered GPUs within up to `domains` domains of the
     * level, domains hosting the app's GPUs first; each valued at rho(held + bundle).
     */
    Bid bidOf(const View& v, int a, const std::vector<int>& held, const std::vector<int>& current,
              const std::vector<int>& offered, double now) const
    {
        const auto& c = v.workload().cluster();
        Bid bid;
        const double rhoOld = held.empty() ? kInf : reportedRho(v, a, held, now);
        bid.candidates.push_back({{}, std::isfinite(rhoOld) ? -std::log(rhoOld) : std::log(kEmptyValue)});
        // Domains hosting the app's GPUs come first (spec A.4 note 1), and within them the GPUs its jobs run on:
        // winning back the GPUs of an expired lease costs no restart.
        std::set<int> mine;
        for (int g : current)
            mine.insert(c.nodeOfGpu(g));
        const std::set<int> runningOn(current.begin(), current.end());
        std::set<int> mineRacks;
        for (int n : mine)
            mineRacks.insert(c.rackOfNode(n));
        // Offered GPUs its jobs run on first, keeping each node's GPUs together.
        std::vector<int> ordered = offered;
        std::stable_partition(ordered.begin(), ordered.end(), [&](int g) { return runningOn.count(g) > 0; });
        std::map<int, std::vector<int>> byNode, byRack;
        for (int g : ordered) {
            byNode[c.nodeOfGpu(g)].push_back(g);
            const int rack = c.rackOfNode(c.nodeOfGpu(g));
            if (rack >= 0)
                byRack[rack].push_back(g);
        }
        const auto ownFirst = [&](std::vector<int> list) {
            // packed() orders GPU ids within a node; put the ones the app runs on first, node runs kept.
            for (std::size_t x = 0; x < list.size();) {
                std::size_t y = x;
                while (y < list.size() && c.nodeOfGpu(list[y]) == c.nodeOfGpu(list[x]))
                    ++y;
                std::stable_partition(list.begin() + static_cast<std::ptrdiff_t>(x),
                                      list.begin() + static_cast<std::ptrdiff_t>(y),
                                      [&](int g) { return runningOn.count(g) > 0; });
                x = y;
            }
            return list;
        };
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
            const double rho = std::max(1e-12, reportedRho(v, a, all, now));
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
                auto list = ownFirst(packed(v, rack->second, mine));
                list.resize(static_cast<std::size_t>(n));
                add(std::move(list));
            }
            // The cluster level: the packed order, and alternatives that start t nodes further down it (so that a
            // bidder can leave the fullest node to another whose placement needs it more: Figure 5, Instance 2).
            const auto list = ownFirst(packed(v, offered, mine));
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

    /**
     * rho as app a's agent reports it in a bid. A truthful agent reports rhoOf. The liar of the paper's
     * truth-telling experiment (§6.3, Figure 18) over-reports the slowdown of a spread placement by X to win the
     * dense machine more often: when its split of `gpus` puts a job on more than one node, the remaining time it
     * reports is (1 + X) x the true one (the slowdown multiplies the iteration time, so the remaining time).
     */
    double reportedRho(const View& v, int a, const std::vector<int>& gpus, double now) const
    {
        if (a != m_liar || m_lie == 0)
            return rhoOf(v, a, gpus, now);
        const Split s = split(v, a, gpus);
        const auto& c = v.workload().cluster();
        const bool spread = std::any_of(s.jobGpus.begin(), s.jobGpus.end(), [&](const auto& jobGpus) {
            const auto& g = jobGpus.second;
            return std::any_of(g.begin(), g.end(), [&](int x) { return c.nodeOfGpu(x) != c.nodeOfGpu(g.front()); });
        });
        return rhoFromRemaining(v, a, s.remainingS * (spread ? 1 + m_lie : 1), now);
    }

    /** The app's current allocation: what it keeps under live leases, and the GPUs its jobs run on whose lease
     *  ends now. */
    std::vector<int> currentAllocation(const View& v, int a, const Round& round) const
    {
        std::vector<int> out = round.held[static_cast<std::size_t>(a)];
        const std::set<int> kept(out.begin(), out.end());
        for (int j : liveJobs(v, a))
            for (int g : v.gpusOf(j))
                if (!kept.count(g))
                    out.push_back(g);
        return out;
    }

    /** Leftover GPUs, node by node in a seeded random order, to random apps outside the auction that can use them
     *  (else to bidders), so the round is work-conserving (spec A.5 idea 3, choice 13). */
    void giveLeftover(const View& v, const std::vector<int>& leftover, const std::vector<Eligible>& eligible,
                      const std::vector<char>& filtered, Round& round)
    {
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
        // Gives app a the GPUs of `group` its jobs would use (usableOf); returns the GPUs left.
        const auto offer = [&](int a, std::vector<int> group) {
            const auto use = usableOf(v, a, round, group);
            if (use.empty())
                return group;
            const std::set<int> taken(use.begin(), use.end());
            auto& won = round.won[static_cast<std::size_t>(a)];
            won.insert(won.end(), use.begin(), use.end());
            std::vector<int> rest;
            for (int g : group)
                if (!taken.count(g))
                    rest.push_back(g);
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

    /** The auction as records (docs/simulator.md, "Themis"): an `auction` event on the app's first job. */
    void recordBid(Decision& d, int a, const Bid& bid, double rhoNow, const themis::AuctionResult& r, std::size_t i)
    {
        const App& app = this->app(a);
        const int auctions = ++m_auctions[static_cast<std::size_t>(a)];
        const int choice = r.pfChoice[i];
        const int wins = m_wins[static_cast<std::size_t>(a)] += r.granted[i].empty() ? 0 : 1;
        themis::BidRecord record;
        record.round = m_round;
        record.app = app.name;
        record.bidders = static_cast<int>(r.pfChoice.size());
        record.rhoOld = std::exp(-bid.candidates[0].logValue);
        record.rhoNow = rhoNow;
        record.pfChoice = choice;
        record.pfGpus = static_cast<int>(bid.candidates[static_cast<std::size_t>(choice)].gpus.size());
        record.payment = r.payment[i];
        record.granted = static_cast<int>(r.granted[i].size());
        for (const auto& c : bid.candidates)
            record.bids.emplace_back(static_cast<int>(c.gpus.size()), std::exp(-c.logValue));
        const std::string detail = themis::formatBidRecord(record);
        const int lead = app.jobs.front();
        d.noteAuction(lead, detail);
        d.annotate(lead, "themis_auctions", auctions);
        d.annotate(lead, "themis_wins", wins);
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
        {"liar",
         ParamType::Integer,
         "-1",
         -1,
         1e6,
         {},
         1,
         16,
         false,
         "the app that lies in its bids (0-based, apps in the order of their first job; -1: none): the truth-telling "
         "experiment"},
        {"lie",
         ParamType::Number,
         "0",
         0,
         10,
         {},
         1,
         16,
         false,
         "X: the liar reports a spread placement's slowdown (1 + X) times too high (0.34: 34%)"},
    };
}

} // namespace orrery::sched
