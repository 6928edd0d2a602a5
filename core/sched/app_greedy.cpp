// The greedy skeleton of Themis' baselines (../shared/specs/themis-crius.md A.8); docs/simulator.md, "Themis'
// baselines".

#include "sched/app_greedy.h"

#include <algorithm>
#include <map>

namespace orrery::sched {

using sim::Decision;
using sim::View;

void AppGreedyPolicy::allocate(Decision& d, Round& round)
{
    const View& v = d.view();
    std::vector<int> free = round.offered;
    std::vector<int> candidates;
    for (int a = 0; a < appCount(); ++a)
        if (round.active[static_cast<std::size_t>(a)] &&
            unmet(v, a, static_cast<int>(round.held[static_cast<std::size_t>(a)].size())) > 0)
            candidates.push_back(a);
    // Each app's bundle and key, kept until a grant takes GPUs of its bundle (or it is the winner): a bundle is a
    // subset of the free GPUs, so one that lost none is still there to take. Re-evaluating every app after every
    // grant cost (apps)^2 splits per event on the 256-GPU workloads for the same choices in all but near-ties.
    struct Entry
    {
        std::vector<int> bundle;
        double key = 0;
        bool fresh = false;
    };
    std::map<int, Entry> cache;
    int grants = 0;
    while (!free.empty() && !candidates.empty()) {
        int best = -1;
        std::vector<int> keep;
        for (int a : candidates) {
            Entry& e = cache[a];
            if (!e.fresh) {
                e.bundle = bundleFor(v, a, round, free);
                e.key = e.bundle.empty() ? 0 : key(v, a, round, e.bundle);
                e.fresh = true;
            }
            if (e.bundle.empty())
                continue; // it can use none of what is left: out of this event
            keep.push_back(a);
            if (best < 0 || e.key < cache[best].key ||
                (e.key == cache[best].key && app(a).arrivalS < app(best).arrivalS))
                best = a;
        }
        candidates = std::move(keep);
        if (best < 0)
            break;
        const std::vector<int> bundle = cache[best].bundle;
        auto& won = round.won[static_cast<std::size_t>(best)];
        won.insert(won.end(), bundle.begin(), bundle.end());
        const std::set<int> taken(bundle.begin(), bundle.end());
        std::erase_if(free, [&](int g) { return taken.count(g) > 0; });
        ++grants;
        for (auto& [a, e] : cache)
            if (a == best || std::any_of(e.bundle.begin(), e.bundle.end(), [&](int g) { return taken.count(g) > 0; }))
                e.fresh = false;
        const int holding = static_cast<int>(round.held[static_cast<std::size_t>(best)].size() + won.size());
        if (unmet(v, best, holding) <= 0)
            std::erase(candidates, best);
    }
    if (!round.offered.empty()) {
        d.record("apps.offered_gpus", static_cast<double>(round.offered.size()));
        d.record("apps.grants", grants);
    }
}

std::vector<int> AppGreedyPolicy::ownGpus(const View& v, int a, const Round& round) const
{
    const auto ua = static_cast<std::size_t>(a);
    std::vector<int> own = round.held[ua];
    own.insert(own.end(), round.won[ua].begin(), round.won[ua].end());
    // GPUs its jobs run on whose lease just ended count too: taking them back costs no restart.
    for (int j : liveJobs(v, a))
        for (int g : v.gpusOf(j))
            own.push_back(g);
    return own;
}

double AppGreedyPolicy::placementScore(const View& v, int a, const Round& round, const std::vector<int>& bundle) const
{
    const auto ua = static_cast<std::size_t>(a);
    std::vector<int> all = round.held[ua];
    all.insert(all.end(), round.won[ua].begin(), round.won[ua].end());
    all.insert(all.end(), bundle.begin(), bundle.end());
    const std::set<int> extra(bundle.begin(), bundle.end());
    const auto& w = v.workload();
    double score = 1;
    for (const auto& [j, gpus] : split(v, a, all).jobGpus) {
        if (std::none_of(gpus.begin(), gpus.end(), [&](int g) { return extra.count(g) > 0; }))
            continue;
        const auto rate = w.allocationRate(j, gpus);
        score = std::min(
            score, w.locality().factor(w.job(j).localityKey, static_cast<int>(gpus.size()), rate.nodes, rate.span));
    }
    return score;
}

std::vector<int> AppGreedyPolicy::bundleFor(const View& v, int a, const Round& round,
                                            const std::vector<int>& free) const
{
    const auto ua = static_cast<std::size_t>(a);
    const int need = unmet(v, a, static_cast<int>(round.held[ua].size() + round.won[ua].size()));
    const int most = std::min(need, static_cast<int>(free.size()));
    if (most <= 0)
        return {};
    std::set<int> own;
    if (localityAware())
        for (int g : ownGpus(v, a, round))
            own.insert(v.workload().cluster().nodeOfGpu(g));
    // A bundle of n GPUs may be of no use to an app whose smallest job needs more (a rigid job): then twice as many,
    // up to its unmet demand.
    for (int n = bundleLimit() > 0 ? std::min(bundleLimit(), most) : most;; n = std::min(2 * n, most)) {
        std::vector<int> bundle;
        if (localityAware())
            bundle = bestPlaced(v, free, own, n);
        else
            bundle.assign(free.begin(), free.begin() + n); // the free GPUs in id order
        auto use = usableOf(v, a, round, bundle);
        if (!use.empty())
            return use;
        if (n >= most)
            break;
    }
    // Its jobs may need GPUs of one type (a serverless job asks for its request on one type, which the tightest
    // bundle may not be): the free GPUs of each type in turn.
    std::map<int, std::vector<int>> byType;
    for (int g : free)
        byType[v.workload().typeOfGpu(g)].push_back(g);
    for (const auto& [type, list] : byType) {
        auto use = usableOf(v, a, round, localityAware() ? packed(v, list, own) : list);
        if (!use.empty())
            return use;
    }
    return {};
}

std::vector<int> AppGreedyPolicy::bestPlaced(const View& v, const std::vector<int>& free, const std::set<int>& own,
                                             int count) const
{
    const auto& c = v.workload().cluster();
    std::map<int, std::vector<int>> byNode, byRack;
    for (int g : free) {
        const int node = c.nodeOfGpu(g);
        byNode[node].push_back(g);
        if (c.rackOfNode(node) >= 0)
            byRack[c.rackOfNode(node)].push_back(g);
    }
    // One node: the app's own first (staying costs no restart), then the tightest that holds them.
    const std::vector<int>* pick = nullptr;
    bool pickOwn = false;
    for (const auto& [node, list] : byNode) {
        if (static_cast<int>(list.size()) < count)
            continue;
        const bool mine = own.count(node) > 0;
        if (!pick || (mine && !pickOwn) || (mine == pickOwn && list.size() < pick->size())) {
            pick = &list;
            pickOwn = mine;
        }
    }
    if (pick)
        return {pick->begin(), pick->begin() + count};
    std::set<int> ownRacks;
    for (int node : own)
        ownRacks.insert(c.rackOfNode(node));
    for (const auto& [rack, list] : byRack) {
        if (static_cast<int>(list.size()) < count)
            continue;
        const bool mine = ownRacks.count(rack) > 0;
        if (!pick || (mine && !pickOwn) || (mine == pickOwn && list.size() < pick->size())) {
            pick = &list;
            pickOwn = mine;
        }
    }
    std::vector<int> out = packed(v, pick ? *pick : free, own);
    out.resize(static_cast<std::size_t>(count));
    return out;
}

} // namespace orrery::sched
