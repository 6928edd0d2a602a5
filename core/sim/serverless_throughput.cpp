#include "sim/serverless_throughput.h"

#include <fmt/format.h>

namespace orrery::sim {

ServerlessThroughput::ServerlessThroughput(hardware::Cluster cluster, workload::ModelLibrary models)
    : m_cluster(std::move(cluster)), m_models(std::move(models))
{
}

const workload::ModelSpec* ServerlessThroughput::model(const workload::Job& job) const
{
    return &m_models.at(job.model);
}

const std::vector<sched::MarpPlan>& ServerlessThroughput::plans(const workload::Job& job) const
{
    const auto& c = job.config;
    // Everything the memory and speed estimates read from the config.
    const std::string key = fmt::format("{}|{}|{}|{}|{}|{}|{}|{}|{}|{}", job.model, c.globalBatch, c.microBatch, c.seq,
                                        static_cast<int>(c.precision), static_cast<int>(c.optimizer),
                                        static_cast<int>(c.recompute), c.zeroStage, c.flashAttention,
                                        c.sequenceParallel);
    std::lock_guard lock(m_mutex);
    auto it = m_plans.find(key);
    if (it == m_plans.end())
        it = m_plans.emplace(key, sched::marpPlans(*model(job), job.config, m_cluster)).first;
    return it->second;
}

int ServerlessThroughput::demand(const workload::Job& job) const
{
    const auto& p = plans(job);
    return p.empty() ? 0 : p.front().has.gpus;
}

double ServerlessThroughput::rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const
{
    const double capacity = sched::hasCapacityGiB(gpu);
    for (const sched::MarpPlan& p : plans(job)) {
        if (p.has.gpus != count || !sched::gpuFits(capacity, p.has.requiredGiB))
            continue;
        // The engine asks for `count` GPUs within one node and applies its own cross-node slowdown.
        estimate::PlanTarget target;
        target.gpu = &gpu;
        target.maxGpus = count;
        target.gpusPerNode = count;
        target.intraNode = gpu.intraLink;
        target.interNode = m_cluster.network();
        const double iterationS = estimate::estimateThroughput(*model(job), job.config, p.par, target).iterationS;
        return iterationS > 0 ? 1.0 / iterationS : 0;
    }
    return 0;
}

} // namespace orrery::sim
