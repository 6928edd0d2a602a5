#pragma once

#include "hardware/cluster.h"
#include "io/scenario.h"
#include "sim/locality.h"
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
    int demand = 1;        ///< GPUs asked for: its best request over all types (per type: demandOn)
    int requiredType = -1; ///< sim type index the job must run on, -1 = any
    double priority = 1;
    /** Run time alone on its best allocation of `demand` GPUs (or another count of its range), one type or a mix of
     *  types; for a mix, a lower bound (docs/simulator.md, "Ideal run time"). */
    double idealS = 0;
    int minGpus = 1;      ///< elastic range (docs/simulator.md, "Elastic jobs"); rigid: minGpus = maxGpus = demand
    int maxGpus = 1;      ///< INT_MAX: no limit (a serverless job without a declared range)
    int localityKey = -1; ///< its row in the locality model
    /** Its source's rate depends on its progress (ThroughputSource::progressDependent): refreshed at decisions.
     *  (In the padding after localityKey: the engine reads SimJob in its hot loop, and 56 bytes stay 56.) */
    bool progressDependent = false;
};

/** What the engine makes of a set of GPUs for one job (PreparedWorkload::allocationRate). */
struct AllocationRate
{
    double rate = 0;       ///< work units per second; 0 = it cannot run there
    int type = -1;         ///< sim type, -2 when the GPUs are of several types
    int nodes = 0;         ///< nodes spanned
    Span span = Span::Gpu; ///< how far it spreads
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

    /**
     * GPUs job j asks for on type t alone. A job with a fixed request asks for its demand on every type; a
     * serverless job for its best feasible plan on that type (docs/simulator.md, "Rate model"), or for its
     * demand where no plan fits the type alone.
     */
    int demandOn(int j, int t) const { return m_typeDemand.empty() ? job(j).demand : m_typeDemand[cell(j, t)]; }
    /** Rate of job j on its demand of type t (demandOn) within one node; 0 = cannot run there. */
    double rate(int j, int t) const { return m_rate[cell(j, t)]; }
    /** Rate on `count` GPUs of type t within one node (asks the source when count differs from the demand). */
    double rate(int j, int t, int count) const;
    /** Whether job j runs on exactly `count` GPUs (its elastic range; rigid jobs: their demand). */
    bool accepts(int j, int count) const;
    /** GPUs job j uses of an allocation of `count`: the largest count it accepts up to `count`, 0 if none. */
    int usableGpus(int j, int count) const;
    /**
     * Rate of job j on exactly these GPUs (sorted or not): the slowest type's rate on the GPUs it uses,
     * times the locality factor of their span. The one composition: the engine commits this rate, and
     * View::rateOn answers it for hypothetical allocations.
     */
    AllocationRate allocationRate(int j, const std::vector<int>& gpus) const
    {
        return allocationRate(j, gpus, Plan{}, 0.0);
    }
    /**
     * The same under `plan` at `progress` (fraction of the work done): with the default plan and a job
     * whose rate does not depend on progress, exactly the above; otherwise the source's planRate for
     * the composition, times the same locality factor (docs/simulator.md, "Plans and progress-dependent
     * rates").
     */
    AllocationRate allocationRate(int j, const std::vector<int>& gpus, const Plan& plan, double progress) const;
    /** Whether some job's rate depends on its progress (the engine then refreshes rates at decisions). */
    bool anyProgressDependent() const { return m_anyProgressDependent; }
    /** Samples per work unit of job j under the default plan (ThroughputSource::samplesPerUnit), 0 = unknown. */
    double samplesPerUnit(int j) const { return m_samplesPerUnit[static_cast<std::size_t>(j)]; }
    const LocalityModel& locality() const { return m_locality; }
    /** How far GPUs spread: one GPU, one node, one rack, or more (allocationRate with no job). */
    Span spanOf(const std::vector<int>& gpus) const { return allocationRate(-1, gpus).span; }

    /** Fastest type for job j (by rate on its demand on each type), -1 when none. */
    int fastestType(int j) const;
    /** Whether job j may run on type t at all (rate on demandOn(j, t) > 0 and its type requirement). */
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
    std::vector<double> m_rate;     ///< job x type: rate on demandOn
    std::vector<int> m_typeDemand;  ///< job x type; empty when every job asks for its demand on every type
    std::vector<double> m_baseRate; ///< job x type: rate on the job's demand; empty with m_typeDemand
    std::vector<double> m_samplesPerUnit;
    LocalityModel m_locality;
    bool m_hasRacks = false;
    bool m_anyProgressDependent = false;

    double packedFactor(const SimJob& s, int count, int perNode) const;
    /** The best rate job j could get on `count` GPUs of several types (0 when no mix is possible or useful). */
    double mixedRate(std::size_t j, int count) const;
    std::size_t cell(int j, int t) const
    {
        return static_cast<std::size_t>(j) * m_types.size() + static_cast<std::size_t>(t);
    }
    /** Rate of job j on its demand (the count of all types' best request) on type t. */
    double baseRate(int j, int t) const { return m_baseRate.empty() ? rate(j, t) : m_baseRate[cell(j, t)]; }
};

} // namespace orrery::sim
