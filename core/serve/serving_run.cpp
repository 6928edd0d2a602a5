#include "serve/serving_run.h"

#include "io/error.h"
#include "serve/ablation_placement.h"
#include "serve/clockwork.h"
#include "serve/placement_search.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <stdexcept>

namespace orrery::serve {

std::vector<RunGroup> ServingRun::segmentGroups(int segment) const
{
    std::vector<RunGroup> out;
    for (const auto& g : groups)
        if (g.segment == segment)
            out.push_back(g);
    return out;
}

ServingRun describeServingRun(const ServingSpec& spec, ProfileCache& cache, const std::vector<Placement>& placements,
                              const std::vector<SimResult>& sims)
{
    if (placements.size() != sims.size() || placements.empty())
        throw std::logic_error("describeServingRun: one simulation per placement");
    const ServingProblem& problem = cache.problem();
    ServingRun run;
    run.spec = spec;
    run.segments = static_cast<int>(placements.size());
    const std::vector<double> slos = cache.slos();
    for (int m = 0; m < problem.models(); ++m) {
        const auto& inst = problem.instances[static_cast<std::size_t>(m)];
        run.models.push_back({inst.name, problem.kinds[static_cast<std::size_t>(inst.kind)].name,
                              slos[static_cast<std::size_t>(m)], 0, 0});
    }
    // One SimResult over every segment, so that the percentiles and the CDF are over all served requests.
    SimResult all;
    for (std::size_t k = 0; k < sims.size(); ++k) {
        const SimResult& sim = sims[k];
        const std::vector<double> util = sim.groupUtilisation();
        for (std::size_t g = 0; g < placements[k].groups.size(); ++g) {
            RunGroup group;
            group.segment = static_cast<int>(k);
            group.config = placements[k].groups[g].config;
            for (int m : placements[k].groups[g].models)
                group.models.push_back(problem.instances[static_cast<std::size_t>(m)].name);
            group.utilisation = g < util.size() ? util[g] : 0.0;
            run.groups.push_back(std::move(group));
        }
        for (std::size_t m = 0; m < run.models.size() && m < sim.requestsPerModel.size(); ++m) {
            run.models[m].requests += sim.requestsPerModel[m];
            run.models[m].served += sim.servedPerModel[m];
        }
        run.requests += sim.requests;
        run.served += sim.served;
        run.rejected += sim.rejected;
        run.unplaced += sim.unplaced;
        all.latencyS.insert(all.latencyS.end(), sim.latencyS.begin(), sim.latencyS.end());
    }
    run.latency = summarizeLatencies(all);
    run.cdf = latencyCdf(all, kStoredCdfPoints);
    return run;
}

ServingRun runServing(const ServingSpec& spec, const util::Progress* progress)
{
    auto setup = prepareServing(spec);
    return runServing(spec, *setup, progress);
}

ServingSearch searchServing(const ServingSpec& spec, ServingSetup& setup, ProfileCache& cache,
                            const util::Progress* progress, double stopAt)
{
    SearchOptions options;
    options.greedy.beam = spec.beam;
    options.greedy.fastAbove = spec.fastAbove;
    options.maxBuckets = spec.maxBuckets;
    options.stopAt = stopAt;
    const auto started = std::chrono::steady_clock::now();
    const auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    ServingSearch out;
    if (spec.method == kMethodClockwork) {
        // Its attainment is over segments searched apart: one segment stopping at the target could pull the whole
        // below it while a full search would not, so Clockwork++ always searches in full.
        options.stopAt = 2.0;
        ClockworkResult cw =
            clockworkPlusPlus(cache, setup.workload, setup.clockworkWindowS(spec), options, progress, true);
        out.searchS = seconds();
        out.placements = std::move(cw.placements);
        out.sims = std::move(cw.segments);
        out.simulations = cw.simulations;
        return out;
    }
    Placement placement;
    if (spec.method == kMethodAlpaServe || spec.method == kMethodSelectiveReplication) {
        SearchResult result = spec.method == kMethodAlpaServe
                                  ? searchPlacement(cache, setup.workload, options, progress)
                                  : selectiveReplication(cache, setup.workload, options, progress);
        placement = std::move(result.placement);
        out.simulations = result.simulations;
        out.candidates = result.candidates;
    } else if (spec.method == kMethodGreedy) {
        GreedyResult result = greedyOnPipelines(cache, setup.workload, kAblationStages, options.greedy, progress);
        placement = std::move(result.placement);
        out.simulations = result.simulations;
        out.candidates = 1;
    } else if (spec.method == kMethodRoundRobin) {
        placement = roundRobinPlacement(cache);
    } else {
        throw Error("", "method",
                    fmt::format("expected alpaserve, sr, clockwork++, round-robin or greedy, got \"{}\"", spec.method));
    }
    out.searchS = seconds();
    out.sims.push_back(evaluatePlacement(cache, placement, setup.workload, true));
    out.placements.push_back(std::move(placement));
    return out;
}

ServingRun runServing(const ServingSpec& spec, ServingSetup& setup, const util::Progress* progress)
{
    ProfileCache cache(setup.problem);
    const ServingSearch found = searchServing(spec, setup, cache, progress);
    ServingRun run = describeServingRun(spec, cache, found.placements, found.sims);
    run.searchS = found.searchS;
    run.simulations = found.simulations;
    run.candidates = found.candidates;
    return run;
}

Placement placementOf(const ServingRun& run, int segment, const ServingProblem& problem)
{
    std::map<std::string, int> index;
    for (int m = 0; m < problem.models(); ++m)
        index.emplace(problem.instances[static_cast<std::size_t>(m)].name, m);
    Placement p;
    for (const auto& g : run.groups) {
        if (g.segment != segment)
            continue;
        GroupPlacement group{g.config, {}};
        for (const auto& name : g.models) {
            const auto it = index.find(name);
            if (it == index.end())
                throw Error("", "groups", fmt::format("no model instance \"{}\" in the problem", name));
            group.models.push_back(it->second);
        }
        p.groups.push_back(std::move(group));
    }
    return p;
}

} // namespace orrery::serve
