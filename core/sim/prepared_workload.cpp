#include "sim/prepared_workload.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace orrery::sim {

PreparedWorkload::PreparedWorkload(hardware::Cluster cluster, std::vector<workload::Job> jobs,
                                   std::shared_ptr<const ThroughputSource> source, io::ScenarioOptions options)
    : m_cluster(std::move(cluster)), m_options(std::move(options)), m_jobs(std::move(jobs)), m_source(std::move(source))
{
    if (m_options.gavelCompat) {
        // Gavel: preemption, migration and first starts are free, and its single-GPU "servers" know no locality.
        m_options.restartPenaltyS = 0;
        m_options.restartModel = "constant";
        m_options.loadTimeS = 0;
        m_options.crossNodeSlowdown = 1;
    }
    const auto& present = m_cluster.presentTypes();
    const auto& catalogTypes = m_cluster.catalog().types();
    std::vector<int> simTypeOfCatalog(catalogTypes.size(), -1);
    for (std::size_t t = 0; t < present.size(); ++t) {
        m_types.push_back(&catalogTypes[static_cast<std::size_t>(present[t])]);
        m_gpusOfType.push_back(m_cluster.gpusOfType(present[t]));
        simTypeOfCatalog[static_cast<std::size_t>(present[t])] = static_cast<int>(t);
    }
    m_maxPerNode.assign(m_types.size(), 0);
    for (const auto& node : m_cluster.nodes()) {
        const int t = simTypeOfCatalog[static_cast<std::size_t>(node.gpuTypeIndex)];
        m_nodeType.push_back(t);
        m_maxPerNode[static_cast<std::size_t>(t)] = std::max(m_maxPerNode[static_cast<std::size_t>(t)], node.gpuCount);
    }

    const std::size_t nt = m_types.size();
    m_sim.resize(m_jobs.size());
    m_rate.assign(m_jobs.size() * nt, 0.0);
    for (std::size_t j = 0; j < m_jobs.size(); ++j) {
        const auto& job = m_jobs[j];
        auto& s = m_sim[j];
        const std::string where = fmt::format("workload.jobs[{}]", j);
        s.arrivalS = job.arrivalS;
        s.priority = job.priority;
        s.work = m_source->work(job);
        s.demand = m_source->demand(job);
        if (!(s.work > 0) || !std::isfinite(s.work))
            throw Error("", where, fmt::format("job \"{}\" has no work to do (got {})", job.id, s.work));
        if (s.demand < 1)
            throw Error("", where, fmt::format("job \"{}\": no feasible GPU request", job.id));
        if (!job.gpuType.empty()) {
            const int ci = m_cluster.catalog().indexOf(job.gpuType);
            s.requiredType = ci < 0 ? -1 : simTypeOfCatalog[static_cast<std::size_t>(ci)];
            if (s.requiredType < 0)
                throw Error("", where + ".gpu_type",
                            fmt::format("job \"{}\" requires {} GPUs, which the cluster lacks", job.id, job.gpuType));
        }
        double best = 0;
        double fastest = 0; // over every allowed type, for a job that has to mix types
        int allowedGpus = 0;
        for (std::size_t t = 0; t < nt; ++t) {
            double r = m_source->rate(job, *m_types[t], s.demand);
            if (!std::isfinite(r) || r < 0)
                r = 0;
            if (s.requiredType >= 0 && static_cast<int>(t) != s.requiredType)
                r = 0;
            m_rate[j * nt + t] = r;
            if (r > 0) {
                allowedGpus += m_gpusOfType[t];
                fastest = std::max(fastest, r);
            }
            if (r > 0 && m_gpusOfType[t] >= s.demand) {
                const double eff = s.demand > m_maxPerNode[t] ? r * m_options.crossNodeSlowdown : r;
                best = std::max(best, eff);
            }
        }
        if (best <= 0 && allowedGpus >= s.demand)
            best = fastest * m_options.crossNodeSlowdown; // a lower bound: a mix runs at its slowest type
        if (best <= 0)
            throw Error("", where,
                        fmt::format("job \"{}\" ({} GPUs) cannot run on this cluster: it has a throughput on only {} "
                                    "of its GPUs",
                                    job.id, s.demand, allowedGpus));
        s.idealS = s.work / best;
    }
}

double PreparedWorkload::rate(int j, int t, int count) const
{
    const auto& s = job(j);
    if (count == s.demand)
        return rate(j, t);
    if (s.requiredType >= 0 && s.requiredType != t)
        return 0;
    const double r = m_source->rate(m_jobs[static_cast<std::size_t>(j)], type(t), count);
    return std::isfinite(r) && r > 0 ? r : 0;
}

int PreparedWorkload::fastestType(int j) const
{
    int best = -1;
    for (int t = 0; t < typeCount(); ++t)
        if (rate(j, t) > 0 && (best < 0 || rate(j, t) > rate(j, best)))
            best = t;
    return best;
}

} // namespace orrery::sim
