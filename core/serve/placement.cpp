#include "serve/placement.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>

namespace orrery::serve {

int Placement::gpus() const
{
    int n = 0;
    for (const auto& g : groups)
        n += g.config.gpus();
    return n;
}

int Placement::replicas() const
{
    int n = 0;
    for (const auto& g : groups)
        n += static_cast<int>(g.models.size());
    return n;
}

ServingProblem ServingProblem::fromCounts(const std::vector<std::pair<std::string, int>>& counts,
                                          const ServingLibrary& library, const hardware::GpuType& gpu, int gpus)
{
    ServingProblem p;
    p.gpu = &gpu;
    p.gpus = gpus;
    if (gpus < 1)
        throw Error("", "gpus", fmt::format("expected at least one GPU, got {}", gpus));
    for (const auto& [name, count] : counts) {
        if (count < 0)
            throw Error("", "models", fmt::format("{}: expected a non-negative count, got {}", name, count));
        if (count == 0)
            continue;
        p.kinds.push_back(library.at(name));
        const int kind = static_cast<int>(p.kinds.size()) - 1;
        for (int i = 0; i < count; ++i)
            p.instances.push_back({fmt::format("{}#{}", p.kinds.back().name, i), kind});
    }
    if (p.instances.empty())
        throw Error("", "models", "no models to serve");
    return p;
}

const ModelProfile& ProfileCache::profile(int kind, const ParallelConfig& config)
{
    const auto key = std::make_pair(kind, config);
    auto it = m_profiles.find(key);
    if (it == m_profiles.end())
        it = m_profiles
                 .emplace(key, profileModel(m_problem->kinds[static_cast<std::size_t>(kind)], *m_problem->gpu, config,
                                            m_problem->latency))
                 .first;
    return it->second;
}

int ProfileCache::minimalGpus(int kind)
{
    auto it = m_minimal.find(kind);
    if (it == m_minimal.end())
        it = m_minimal
                 .emplace(kind, minimalStages(m_problem->kinds[static_cast<std::size_t>(kind)], *m_problem->gpu,
                                              m_problem->latency, m_problem->gpus))
                 .first;
    return it->second;
}

double ProfileCache::baseLatencyS(int kind)
{
    const int stages = minimalGpus(kind);
    if (stages == 0)
        throw Error("", "models",
                    fmt::format("{} fits on no group of {} {} GPUs within the memory budget",
                                m_problem->kinds[static_cast<std::size_t>(kind)].name, m_problem->gpus,
                                m_problem->gpu->name));
    return profile(kind, {stages, 1}).latencyS;
}

std::vector<double> ProfileCache::slos()
{
    std::vector<double> slo;
    for (const auto& inst : m_problem->instances)
        slo.push_back(m_problem->sloScale * baseLatencyS(inst.kind));
    return slo;
}

bool ProfileCache::fits(const std::vector<int>& models, const ParallelConfig& config)
{
    double weights = 0, workspace = 0;
    for (int m : models) {
        const int kind = m_problem->instances[static_cast<std::size_t>(m)].kind;
        if (config.stages > m_problem->kinds[static_cast<std::size_t>(kind)].spec.layers + 2)
            return false;
        const ModelProfile& p = profile(kind, config);
        weights += p.weightBytesPerGpu;
        workspace = std::max(workspace, p.workspaceBytes);
    }
    return weights + workspace <= memoryBudget(*m_problem->gpu, m_problem->latency);
}

std::vector<SimGroup> ProfileCache::simGroups(const Placement& placement)
{
    std::vector<SimGroup> groups;
    groups.reserve(placement.groups.size());
    for (const auto& g : placement.groups) {
        SimGroup sg;
        sg.stages = g.config.stages;
        for (int m : g.models) {
            const ModelProfile& p = profile(m_problem->instances[static_cast<std::size_t>(m)].kind, g.config);
            sg.models.push_back({m, p.stageS, p.commS, p.batchSlope});
        }
        groups.push_back(std::move(sg));
    }
    return groups;
}

SimOptions ProfileCache::simOptions(bool recordLatencies)
{
    SimOptions options;
    options.sloS = slos();
    options.recordLatencies = recordLatencies;
    options.maxBatch = m_problem->maxBatch;
    return options;
}

SimResult evaluatePlacement(ProfileCache& cache, const Placement& placement, const Workload& workload,
                            bool recordLatencies)
{
    return simulateRequests(cache.simGroups(placement), workload, cache.simOptions(recordLatencies));
}

void checkPlacement(ProfileCache& cache, const Placement& placement)
{
    if (placement.gpus() > cache.problem().gpus)
        throw Error(
            "", "groups",
            fmt::format("the placement uses {} GPUs, the cluster has {}", placement.gpus(), cache.problem().gpus));
    for (std::size_t g = 0; g < placement.groups.size(); ++g) {
        const auto& group = placement.groups[g];
        for (int m : group.models)
            if (m < 0 || m >= cache.problem().models())
                throw Error("", fmt::format("groups[{}].models", g), fmt::format("no model instance {}", m));
        if (!cache.fits(group.models, group.config))
            throw Error("", fmt::format("groups[{}]", g),
                        fmt::format("its models do not fit {} within the memory budget", group.config.label()));
    }
}

} // namespace orrery::serve
