#pragma once

#include "hardware/cluster.h"
#include "io/scenario.h"
#include "sim/throughput.h"
#include "workload/job.h"

#include <memory>
#include <string>
#include <vector>

namespace orrery::sim {

/** What the engine needs of one job, resolved once per workload. */
struct SimJob
{
    double arrivalS = 0;
    double work = 0;       ///< in the throughput source's units
    int demand = 1;        ///< GPUs asked for
    int requiredType = -1; ///< sim type index the job must run on, -1 = any
    double priority = 1;
    double idealS =
        0; ///< run time alone on its best allocation of `demand` GPUs (a lower bound when it must mix types)
};

/**
 * A cluster and a job list bound to a throughput source: per job its demand,
 * work, and rate on each GPU type present (a flat job x type table), so one
 * preparation serves every policy of a what-if. GPU types are numbered
 * 0..typeCount()-1 in the cluster's order of first appearance ("sim types").
 */
class PreparedWorkload
{
public:
    /** Throws orrery::Error when a job cannot run anywhere on the cluster, naming the job. */
    PreparedWorkload(hardware::Cluster cluster, std::vector<workload::Job> jobs,
                     std::shared_ptr<const ThroughputSource> source, io::ScenarioOptions options);

    const hardware::Cluster& cluster() const { return m_cluster; }
    /** The scenario options in force (under gavelCompat: no restart penalty, no cross-node slowdown). */
    const io::ScenarioOptions& options() const { return m_options; }
    const std::vector<workload::Job>& jobs() const { return m_jobs; }
    const ThroughputSource& source() const { return *m_source; }
    int jobCount() const { return static_cast<int>(m_sim.size()); }
    const SimJob& job(int j) const { return m_sim[static_cast<std::size_t>(j)]; }

    int typeCount() const { return static_cast<int>(m_types.size()); }
    const hardware::GpuType& type(int t) const { return *m_types[static_cast<std::size_t>(t)]; }
    int gpusOfType(int t) const { return m_gpusOfType[static_cast<std::size_t>(t)]; }
    int maxGpusPerNode(int t) const { return m_maxPerNode[static_cast<std::size_t>(t)]; }
    int typeOfNode(int node) const { return m_nodeType[static_cast<std::size_t>(node)]; }
    int typeOfGpu(int gpu) const { return m_nodeType[static_cast<std::size_t>(m_cluster.nodeOfGpu(gpu))]; }

    /** Rate of job j on its demand of type t within one node; 0 = cannot run there. */
    double rate(int j, int t) const
    {
        return m_rate[static_cast<std::size_t>(j) * m_types.size() + static_cast<std::size_t>(t)];
    }
    /** Rate on `count` GPUs of type t within one node (asks the source when count differs from the demand). */
    double rate(int j, int t, int count) const;
    /** Fastest type for job j (by rate on its demand), -1 when none. */
    int fastestType(int j) const;
    /** Whether job j may run on type t at all (rate > 0 and its type requirement). */
    bool allowed(int j, int t) const
    {
        const auto& s = job(j);
        return rate(j, t) > 0 && (s.requiredType < 0 || s.requiredType == t);
    }

private:
    hardware::Cluster m_cluster;
    io::ScenarioOptions m_options;
    std::vector<workload::Job> m_jobs;
    std::shared_ptr<const ThroughputSource> m_source;
    std::vector<const hardware::GpuType*> m_types;
    std::vector<int> m_gpusOfType;
    std::vector<int> m_maxPerNode;
    std::vector<int> m_nodeType;
    std::vector<SimJob> m_sim;
    std::vector<double> m_rate;
};

} // namespace orrery::sim
