#pragma once

#include "hardware/cluster.h"
#include "sched/marp_plans.h"
#include "sim/throughput.h"
#include "workload/model_library.h"

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace orrery::sim {

/**
 * Serverless jobs (model + training config + iterations) through the estimators: MARP's plan list
 * (estimate::rankPlans, Frenzy order and memory model) on the scenario's cluster and
 * estimate::estimateThroughput for the speed. Work is in iterations, rates in iterations per second.
 * - demand: the GPU count of MARP's first plan on the idle cluster (what a policy that does not plan
 *   by itself gives the job);
 * - rate on `count` GPUs of a type: the first layout of the plan list with that many GPUs whose
 *   memory fits the type, 0 when none does.
 * Thread-safe (the plan lists are computed once per model and config, under a lock).
 */
class ServerlessThroughput : public ThroughputSource
{
public:
    ServerlessThroughput(hardware::Cluster cluster, workload::ModelLibrary models);

    double work(const workload::Job& job) const override { return job.iterations; }
    int demand(const workload::Job& job) const override;
    double rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const override;
    const workload::ModelSpec* model(const workload::Job& job) const override;

    /** The job's MARP plans on this cluster, best first; empty when it cannot run here. */
    const std::vector<sched::MarpPlan>& plans(const workload::Job& job) const;

private:
    hardware::Cluster m_cluster;
    workload::ModelLibrary m_models;
    mutable std::mutex m_mutex;
    mutable std::map<std::string, std::vector<sched::MarpPlan>> m_plans; // node-based: references stay valid
};

} // namespace orrery::sim
