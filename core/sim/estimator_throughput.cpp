#include "sim/estimator_throughput.h"

#include "estimate/marp_plans.h"
#include "estimate/plan.h"
#include "io/scenario.h"
#include "workload/gpu_range.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

namespace orrery::sim {

namespace {

class EstimatorThroughput : public ThroughputSource
{
public:
    explicit EstimatorThroughput(const io::Scenario& scenario)
        : m_models(scenario.models()), m_cluster(scenario.cluster)
    {
        const auto& cluster = scenario.cluster;
        for (int t : cluster.presentTypes()) {
            estimate::PlanTarget target;
            target.gpu = &cluster.catalog().types()[static_cast<std::size_t>(t)];
            target.maxGpus = cluster.gpusOfType(t);
            target.interNode = cluster.network();
            target.gpusPerNode = 0;
            for (const auto& node : cluster.nodes())
                if (node.gpuTypeIndex == t) {
                    target.gpusPerNode = std::max(target.gpusPerNode, node.gpuCount);
                    target.intraNode = node.intraLink;
                }
            m_targets.push_back(target);
        }
    }

    double work(const workload::Job& job) const override { return job.iterations; }

    int demand(const workload::Job& job) const override
    {
        // The best-ranked plan within the job's elastic range (any plan when it declares none).
        for (const auto& plan : plansFor(job))
            if (workload::acceptsGpus(job, plan.count))
                return plan.count;
        return 0;
    }

    int demandOn(const workload::Job& job, const hardware::GpuType& gpu) const override
    {
        // The targets hold each type's own GPU count, so the best-ranked plan on the type alone fits there.
        for (const auto& plan : plansFor(job))
            if (plan.gpu == gpu.name && workload::acceptsGpus(job, plan.count))
                return plan.count;
        return 0;
    }

    double rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const override
    {
        for (const auto& plan : plansFor(job))
            if (plan.count == count && plan.gpu == gpu.name && plan.iterationS > 0)
                return 1.0 / plan.iterationS;
        // A policy that mixes types (Frenzy's HAS) may give a layout more GPUs than the type has in the
        // cluster, or a tensor-parallel size larger than the type's nodes: the best layout of that count
        // that fits this type's memory, estimated as if within one node (the engine adds its cross-node
        // factor).
        const double capacity = estimate::marpCapacityGiB(gpu, estimate::MemoryMode::Full);
        for (const auto& layout : layoutsFor(job)) {
            if (layout.demand.gpus != count || !estimate::gpuFits(capacity, layout.demand.requiredGiB))
                continue;
            estimate::PlanTarget target;
            target.gpu = &gpu;
            target.maxGpus = count;
            target.gpusPerNode = count;
            target.intraNode = gpu.intraLink;
            target.interNode = m_cluster.network();
            const double s =
                estimate::estimateThroughput(m_models.at(job.model), job.config, layout.par, target).iterationS;
            return s > 0 ? 1.0 / s : 0;
        }
        return 0;
    }

    const workload::ModelSpec* model(const workload::Job& job) const override { return &m_models.at(job.model); }

private:
    // Keyed by the whole configuration: jobs that differ in any field (framework, precision of the
    // master weights, offload...) may rank their plans differently.
    using Key = std::pair<std::string, workload::TrainingConfig>;

    static Key keyOf(const workload::Job& job) { return {job.model, job.config}; }

    const std::vector<estimate::Plan>& plansFor(const workload::Job& job) const
    {
        const Key key = keyOf(job);
        std::lock_guard lock(m_mutex);
        auto it = m_cache.find(key);
        if (it == m_cache.end())
            it = m_cache.emplace(key, estimate::rankPlans(m_models.at(job.model), job.config, m_targets)).first;
        return it->second;
    }

    const std::vector<estimate::MarpPlan>& layoutsFor(const workload::Job& job) const
    {
        const Key key = keyOf(job);
        std::lock_guard lock(m_mutex);
        auto it = m_layouts.find(key);
        if (it == m_layouts.end())
            it = m_layouts
                     .emplace(key, estimate::marpPlans(m_models.at(job.model), job.config, m_cluster,
                                                       estimate::MemoryMode::Full))
                     .first;
        return it->second;
    }

    workload::ModelLibrary m_models;
    hardware::Cluster m_cluster;
    std::vector<estimate::PlanTarget> m_targets;
    mutable std::mutex m_mutex;
    mutable std::map<Key, std::vector<estimate::Plan>> m_cache;
    mutable std::map<Key, std::vector<estimate::MarpPlan>> m_layouts; // every layout over all types (union)
};

} // namespace

std::shared_ptr<const ThroughputSource> makeEstimatorThroughput(const io::Scenario& scenario)
{
    return std::make_shared<EstimatorThroughput>(scenario);
}

} // namespace orrery::sim
