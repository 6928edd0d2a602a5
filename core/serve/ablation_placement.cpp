#include "serve/ablation_placement.h"

#include "serve/placement_search.h"

#include <algorithm>
#include <numeric>

namespace orrery::serve {

std::vector<ParallelConfig> pipelineGroups(int gpus, int stages)
{
    return equalGroups(gpus, std::min(gpus, stages), {std::min(gpus, stages), 1});
}

Placement roundRobinPlacement(ProfileCache& cache, int stages)
{
    const ServingProblem& problem = cache.problem();
    Placement p;
    for (const ParallelConfig& config : pipelineGroups(problem.gpus, stages))
        p.groups.push_back({config, {}});
    const int groups = static_cast<int>(p.groups.size());
    for (int pass = 0; pass < groups; ++pass)
        for (int m = 0; m < problem.models(); ++m) {
            GroupPlacement& g = p.groups[static_cast<std::size_t>((m + pass) % groups)];
            if (std::find(g.models.begin(), g.models.end(), m) != g.models.end())
                continue;
            std::vector<int> with = g.models;
            with.push_back(m);
            if (cache.fits(with, g.config))
                g.models = std::move(with);
        }
    for (auto& g : p.groups)
        std::sort(g.models.begin(), g.models.end());
    return p;
}

GreedyResult greedyOnPipelines(ProfileCache& cache, const Workload& workload, int stages, const GreedyOptions& options,
                               const util::Progress* progress)
{
    std::vector<int> models(static_cast<std::size_t>(cache.problem().models()));
    std::iota(models.begin(), models.end(), 0);
    return greedyPlacement(cache, models, pipelineGroups(cache.problem().gpus, stages), workload, options, progress);
}

} // namespace orrery::serve
