#include "serve/greedy_placement.h"

#include "io/error.h"

#include <algorithm>
#include <set>

namespace orrery::serve {

namespace {

using Selection = std::vector<std::vector<int>>; // models per group, each sorted

struct Evaluator
{
    ProfileCache& cache;
    const std::vector<ParallelConfig>& configs;
    Workload workload; // only the models being placed
    SimOptions options;
    int simulations = 0;
    const util::Progress* progress;

    SimResult run(const Selection& sel)
    {
        if (progress && progress->stopRequested())
            throw Cancelled();
        Placement p;
        for (std::size_t g = 0; g < configs.size(); ++g)
            p.groups.push_back({configs[g], sel[g]});
        ++simulations;
        return simulateRequests(cache.simGroups(p), workload, options);
    }
    bool canAdd(const Selection& sel, std::size_t g, int m)
    {
        if (std::binary_search(sel[g].begin(), sel[g].end(), m))
            return false;
        std::vector<int> with = sel[g];
        with.push_back(m);
        return cache.fits(with, configs[g]);
    }
};

Selection add(Selection sel, std::size_t g, int m)
{
    auto& v = sel[g];
    v.insert(std::upper_bound(v.begin(), v.end(), m), m);
    return sel;
}

GreedyResult toResult(Evaluator& ev, const Selection& sel)
{
    GreedyResult r;
    for (std::size_t g = 0; g < ev.configs.size(); ++g)
        r.placement.groups.push_back({ev.configs[g], sel[g]});
    const SimResult sim = ev.run(sel);
    r.attainment = sim.attainment();
    r.meanLatencyS = sim.meanLatencyS();
    r.simulations = ev.simulations;
    return r;
}

} // namespace

GreedyResult greedyPlacement(ProfileCache& cache, const std::vector<int>& models,
                             const std::vector<ParallelConfig>& groups, const Workload& workload,
                             const GreedyOptions& options, const util::Progress* progress)
{
    if (options.beam < 1)
        throw Error("", "beam", "the beam must keep at least one selection");
    std::vector<bool> keep(static_cast<std::size_t>(workload.models), false);
    for (int m : models)
        keep[static_cast<std::size_t>(m)] = true;
    Evaluator ev{cache, groups, workload.only(keep), cache.simOptions(), 0, progress};

    Selection empty(groups.size());
    Selection best = empty;
    double bestAttainment = ev.run(empty).attainment();
    const double pairs = double(models.size()) * double(groups.size());
    const double work = pairs * pairs * double(ev.workload.requests.size());
    const bool fast = options.forceFast || work > options.fastAbove;

    if (fast) {
        Selection sel = empty;
        SimResult res = ev.run(sel);
        for (;;) {
            if (res.served == res.requests)
                break;
            std::vector<int> order;
            for (int m : models)
                if (res.requestsPerModel[static_cast<std::size_t>(m)] > res.servedPerModel[static_cast<std::size_t>(m)])
                    order.push_back(m);
            const auto unserved = [&](int m) {
                return res.requestsPerModel[static_cast<std::size_t>(m)] -
                       res.servedPerModel[static_cast<std::size_t>(m)];
            };
            std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return unserved(a) > unserved(b); });
            const std::vector<double> util = res.groupUtilisation();
            bool placed = false;
            for (int m : order) {
                int target = -1;
                for (std::size_t g = 0; g < groups.size(); ++g)
                    if (ev.canAdd(sel, g, m) && (target < 0 || util[g] < util[static_cast<std::size_t>(target)]))
                        target = static_cast<int>(g);
                if (target >= 0) {
                    sel = add(std::move(sel), static_cast<std::size_t>(target), m);
                    placed = true;
                    break;
                }
            }
            if (!placed)
                break;
            res = ev.run(sel);
            if (res.attainment() > bestAttainment) {
                bestAttainment = res.attainment();
                best = sel;
            }
        }
        return toResult(ev, best);
    }

    std::vector<std::pair<double, Selection>> beam{{bestAttainment, empty}};
    for (;;) {
        std::vector<std::pair<double, Selection>> next;
        std::set<Selection> seen;
        for (const auto& [att, sel] : beam)
            for (int m : models)
                for (std::size_t g = 0; g < groups.size(); ++g) {
                    if (!ev.canAdd(sel, g, m))
                        continue;
                    Selection n = add(sel, g, m);
                    if (!seen.insert(n).second)
                        continue;
                    next.emplace_back(ev.run(n).attainment(), std::move(n));
                }
        if (next.empty())
            break;
        // Best first; among equals the one found first (stable), so results do not depend on the sort.
        std::stable_sort(next.begin(), next.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        if (next.size() > static_cast<std::size_t>(options.beam))
            next.resize(static_cast<std::size_t>(options.beam));
        if (next.front().first > bestAttainment) {
            bestAttainment = next.front().first;
            best = next.front().second;
        }
        beam = std::move(next);
        if (bestAttainment >= 1.0) // nothing can do better; more replicas would only use memory
            break;
        if (progress)
            (*progress)(bestAttainment);
    }
    return toResult(ev, best);
}

} // namespace orrery::serve
