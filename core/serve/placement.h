#pragma once

// A placement (§4): the cluster cut into device groups, each with one parallel configuration shared by the
// models it hosts, and the model replicas per group; plus what the placement algorithms share to evaluate one.

#include "serve/latency_model.h"
#include "serve/request_simulator.h"
#include "serve/serving_model.h"

#include <map>
#include <string>
#include <vector>

namespace orrery::serve {

struct GroupPlacement
{
    ParallelConfig config;
    std::vector<int> models; ///< model instances hosted (indices into ServingProblem::instances)
};

struct Placement
{
    std::vector<GroupPlacement> groups;
    int gpus() const;
    /** Total replicas across groups. */
    int replicas() const;
};

/** One model instance: a library model under its own name (the paper's S1 has 32 instances of BERT-1.3B). */
struct ModelInstance
{
    std::string name;
    int kind = 0; ///< index into ServingProblem::kinds
};

/** What is being served, on what, under which SLOs. */
struct ServingProblem
{
    std::vector<ServingModel> kinds;
    std::vector<ModelInstance> instances;
    const hardware::GpuType* gpu = nullptr;
    int gpus = 0;
    LatencyOptions latency;
    /** SLO = sloScale x the model's latency on the fewest GPUs of `gpu` that hold it (§6.1; default 5). */
    double sloScale = 5;
    /** Largest batch of the §6.5 batching runtime; 1: none (the main results). */
    int maxBatch = 1;

    /** `name:count` entries: kinds from the library, instances `name#0`, `name#1`, ... */
    static ServingProblem fromCounts(const std::vector<std::pair<std::string, int>>& counts,
                                     const ServingLibrary& library, const hardware::GpuType& gpu, int gpus);
    int models() const { return static_cast<int>(instances.size()); }
};

/** Profiles of (kind, configuration), computed once (placement searches ask for the same ones many times). */
class ProfileCache
{
public:
    explicit ProfileCache(const ServingProblem& problem) : m_problem(&problem) {}
    const ModelProfile& profile(int kind, const ParallelConfig& config);
    /** The model's latency on its minimal configuration (one GPU when it fits), the base of its SLO. */
    double baseLatencyS(int kind);
    /** The minimal inter-op degree (intra 1) on which the kind fits; 0 when it fits on no group of the cluster. */
    int minimalGpus(int kind);
    /** SLO per instance. */
    std::vector<double> slos();
    /** Whether `models` fit together on a group with `config`: the largest stage of each, summed, plus the largest
     * workspace, within the memory budget. */
    bool fits(const std::vector<int>& models, const ParallelConfig& config);
    /** The simulator's view of a placement. */
    std::vector<SimGroup> simGroups(const Placement& placement);
    /** The problem's runtime for the simulator: SLOs per instance, its batching. */
    SimOptions simOptions(bool recordLatencies = false);
    const ServingProblem& problem() const { return *m_problem; }

private:
    const ServingProblem* m_problem;
    std::map<std::pair<int, ParallelConfig>, ModelProfile> m_profiles;
    std::map<int, int> m_minimal;
};

/** Simulates a placement on a workload (SLOs from the problem). */
SimResult evaluatePlacement(ProfileCache& cache, const Placement& placement, const Workload& workload,
                            bool recordLatencies = false);

/** Throws orrery::Error naming the group when a placement uses more GPUs than the problem has or overfills memory. */
void checkPlacement(ProfileCache& cache, const Placement& placement);

} // namespace orrery::serve
