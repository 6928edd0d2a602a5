#include "sim/estimator_throughput.h"

#include "estimate/plan.h"
#include "io/scenario.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <tuple>

namespace orrery::sim {

namespace {

class EstimatorThroughput : public ThroughputSource
{
public:
    explicit EstimatorThroughput(const io::Scenario& scenario) : m_models(scenario.models())
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
        const auto& plans = plansFor(job);
        return plans.empty() ? 0 : plans.front().count;
    }

    double rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const override
    {
        for (const auto& plan : plansFor(job))
            if (plan.count == count && plan.gpu == gpu.name && plan.iterationS > 0)
                return 1.0 / plan.iterationS;
        return 0;
    }

private:
    using Key = std::tuple<std::string, int, int, int, int, int, int, int, bool, bool>;

    const std::vector<estimate::Plan>& plansFor(const workload::Job& job) const
    {
        const auto& c = job.config;
        const Key key{job.model, c.globalBatch, c.microBatch, c.seq, static_cast<int>(c.precision),
                      static_cast<int>(c.optimizer), static_cast<int>(c.recompute), c.zeroStage, c.flashAttention,
                      c.sequenceParallel};
        std::lock_guard lock(m_mutex);
        auto it = m_cache.find(key);
        if (it == m_cache.end())
            it = m_cache.emplace(key, estimate::rankPlans(m_models.at(job.model), c, m_targets)).first;
        return it->second;
    }

    workload::ModelLibrary m_models;
    std::vector<estimate::PlanTarget> m_targets;
    mutable std::mutex m_mutex;
    mutable std::map<Key, std::vector<estimate::Plan>> m_cache;
};

} // namespace

std::shared_ptr<const ThroughputSource> makeEstimatorThroughput(const io::Scenario& scenario)
{
    return std::make_shared<EstimatorThroughput>(scenario);
}

} // namespace orrery::sim
