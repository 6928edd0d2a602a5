#include "serve/serving_run.h"

#include "io/error.h"
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

ServingRun runServing(const ServingSpec& spec, ServingSetup& setup, const util::Progress* progress)
{
    ProfileCache cache(setup.problem);
    SearchOptions options;
    options.greedy.beam = spec.beam;
    options.greedy.fastAbove = spec.fastAbove;
    options.maxBuckets = spec.maxBuckets;
    const auto started = std::chrono::steady_clock::now();
    const auto seconds = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    };
    if (spec.method == kMethodClockwork) {
        ClockworkResult cw =
            clockworkPlusPlus(cache, setup.workload, setup.clockworkWindowS(spec), options, progress, true);
        const double searchS = seconds();
        ServingRun run = describeServingRun(spec, cache, cw.placements, cw.segments);
        run.searchS = searchS;
        run.simulations = cw.simulations;
        return run;
    }
    SearchResult result;
    if (spec.method == kMethodAlpaServe || spec.method == kMethodSelectiveReplication) {
        result = spec.method == kMethodAlpaServe ? searchPlacement(cache, setup.workload, options, progress)
                                                 : selectiveReplication(cache, setup.workload, options, progress);
    } else {
        throw Error("", "method", fmt::format("expected alpaserve, sr or clockwork++, got \"{}\"", spec.method));
    }
    const double searchS = seconds();
    const SimResult sim = evaluatePlacement(cache, result.placement, setup.workload, true);
    ServingRun run = describeServingRun(spec, cache, {result.placement}, {sim});
    run.searchS = searchS;
    run.simulations = result.simulations;
    run.candidates = result.candidates;
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
