#include "sim/prepared_workload.h"

#include "io/error.h"
#include "workload/gpu_range.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

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
        m_options.locality = {};
    }
    m_locality = LocalityModel(m_options);
    m_hasRacks = !m_cluster.racks().empty();
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
    m_samplesPerUnit.assign(m_jobs.size(), 0.0);
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
        s.minGpus = workload::minGpusOf(job);
        s.maxGpus = workload::maxGpusOf(job);
        s.localityKey = m_locality.keyOf(job);
        s.progressDependent = m_source->progressDependent(job);
        m_anyProgressDependent = m_anyProgressDependent || s.progressDependent;
        const double spu = m_source->samplesPerUnit(job, Plan{});
        m_samplesPerUnit[j] = std::isfinite(spu) && spu > 0 ? spu : 0;
        if (!workload::acceptsGpus(job, s.demand))
            throw Error("", where,
                        fmt::format("job \"{}\": its request of {} GPUs is outside its own range ({}..{})", job.id,
                                    s.demand, s.minGpus, s.maxGpus));
        if (!job.gpuType.empty()) {
            const int ci = m_cluster.catalog().indexOf(job.gpuType);
            s.requiredType = ci < 0 ? -1 : simTypeOfCatalog[static_cast<std::size_t>(ci)];
            if (s.requiredType < 0)
                throw Error("", where + ".gpu_type",
                            fmt::format("job \"{}\" requires {} GPUs, which the cluster lacks", job.id, job.gpuType));
        }
        double best = 0;
        int allowedGpus = 0;
        for (std::size_t t = 0; t < nt; ++t) {
            const bool required = s.requiredType < 0 || static_cast<int>(t) == s.requiredType;
            auto rateOf = [&](int count) {
                const double r = required ? m_source->rate(job, *m_types[t], count) : 0.0;
                return std::isfinite(r) && r > 0 ? r : 0.0;
            };
            // The job's request on this type alone; where nothing fits the type alone, its overall request.
            int own = m_source->demandOn(job, *m_types[t]);
            if (own < 1)
                own = s.demand;
            const double r = rateOf(s.demand);
            const double rOwn = own == s.demand ? r : rateOf(own);
            if (own != s.demand && m_typeDemand.empty()) {
                // The first job whose request depends on the type: the tables start, the jobs before ask the same
                // everywhere.
                m_typeDemand.assign(m_jobs.size() * nt, 0);
                m_baseRate.assign(m_jobs.size() * nt, 0.0);
                for (std::size_t k = 0; k < j * nt + t; ++k) {
                    m_typeDemand[k] = m_sim[k / nt].demand;
                    m_baseRate[k] = m_rate[k];
                }
            }
            m_rate[j * nt + t] = rOwn;
            if (!m_typeDemand.empty()) {
                m_typeDemand[j * nt + t] = own;
                m_baseRate[j * nt + t] = r;
            }
            if (r > 0)
                allowedGpus += m_gpusOfType[t];
            if (r > 0 && m_gpusOfType[t] >= s.demand)
                best = std::max(best, r * packedFactor(s, s.demand, m_maxPerNode[t]));
            if (rOwn > 0 && m_gpusOfType[t] >= own)
                best = std::max(best, rOwn * packedFactor(s, own, m_maxPerNode[t]));
        }
        // A mix of faster types can beat the best single type that has `demand` GPUs (a 4-GPU job on a cluster of 2
        // A100s, 2 V100s and 8 K80s runs faster on the A100s and V100s than on the K80s), and policies that place
        // GPUs by node rather than by type (frenzy, and fifo when no type is free) do take such mixes.
        best = std::max(best, mixedRate(j, s.demand));
        // An elastic job may be faster on another count of its range: its ideal is the best of them.
        const bool elastic = job.minGpus > 0 || job.maxGpus > 0 || !job.allowedGpus.empty();
        const int top = std::min(s.maxGpus, m_cluster.totalGpus());
        for (int c = s.minGpus; elastic && c <= top; ++c) {
            if (c == s.demand || !workload::acceptsGpus(job, c))
                continue;
            for (std::size_t t = 0; t < nt; ++t) {
                if (m_gpusOfType[t] < c || (s.requiredType >= 0 && static_cast<int>(t) != s.requiredType))
                    continue;
                const double r = m_source->rate(job, *m_types[t], c);
                if (std::isfinite(r) && r > 0)
                    best = std::max(best, r * packedFactor(s, c, m_maxPerNode[t]));
            }
            best = std::max(best, mixedRate(j, c));
        }
        if (best <= 0)
            throw Error("", where,
                        fmt::format("job \"{}\" ({} GPUs) cannot run on this cluster: it has a throughput on only {} "
                                    "of its GPUs",
                                    job.id, s.demand, allowedGpus));
        s.idealS = s.work / best;
    }
}

double PreparedWorkload::mixedRate(std::size_t j, int count) const
{
    // allocationRate() runs a mix at its slowest type's rate, with the slowdown of its span; a mix spans at least two
    // nodes, as a node has one type. So no mix of `count` GPUs beats the rate of the count-th fastest GPU the job may
    // use, with the least slowdown two nodes can have.
    const auto& s = m_sim[j];
    if (s.requiredType >= 0)
        return 0;
    std::vector<std::pair<double, int>> byRate; // (rate at `count`, GPUs of that type)
    for (std::size_t t = 0; t < m_types.size(); ++t) {
        const double r = m_source->rate(m_jobs[j], *m_types[t], count);
        if (std::isfinite(r) && r > 0)
            byRate.emplace_back(r, m_gpusOfType[t]);
    }
    std::sort(byRate.begin(), byRate.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    int gpus = 0;
    for (std::size_t k = 0; k < byRate.size(); ++k) {
        gpus += byRate[k].second;
        if (gpus >= count) // k == 0: the fastest type alone has them; packedFactor() rates that, not a mix
            return k == 0 ? 0
                          : byRate[k].first *
                                m_locality.factor(s.localityKey, count, 2, m_hasRacks ? Span::Rack : Span::Cluster);
    }
    return 0;
}

double PreparedWorkload::packedFactor(const SimJob& s, int count, int perNode) const
{
    // The most compact placement of `count` GPUs: one node when they fit, else the fewest nodes, in a rack
    // when the cluster has racks (a bound: no span can do better).
    if (count <= perNode)
        return 1.0;
    const int nodes = (count + perNode - 1) / perNode;
    return m_locality.factor(s.localityKey, count, nodes, m_hasRacks ? Span::Rack : Span::Cluster);
}

bool PreparedWorkload::accepts(int j, int count) const
{
    const auto& s = job(j);
    if (count == s.demand)
        return true;
    return workload::acceptsGpus(m_jobs[static_cast<std::size_t>(j)], count);
}

int PreparedWorkload::usableGpus(int j, int count) const
{
    const auto& s = job(j);
    if (count == s.demand)
        return count;
    if (count < s.minGpus)
        return 0;
    count = std::min(count, s.maxGpus);
    const auto& allowed = m_jobs[static_cast<std::size_t>(j)].allowedGpus;
    if (allowed.empty())
        return count;
    const auto it = std::upper_bound(allowed.begin(), allowed.end(), count);
    return it == allowed.begin() ? 0 : *std::prev(it);
}

AllocationRate PreparedWorkload::allocationRate(int j, const std::vector<int>& list, const Plan& plan,
                                                double progress) const
{
    AllocationRate out;
    if (list.empty())
        return out;
    // GPUs are numbered node by node; in a sorted list, nodes and types change only between runs.
    const std::vector<int>* gpus = &list;
    std::vector<int> sorted;
    if (!std::is_sorted(list.begin(), list.end())) {
        sorted = list;
        std::sort(sorted.begin(), sorted.end());
        gpus = &sorted;
    }
    const int count = static_cast<int>(gpus->size());
    const int used = j >= 0 ? usableGpus(j, count) : count;
    // The source answers for the whole allocation only when the plan or the progress can matter; the
    // common case stays the per-type table below, bit for bit.
    const bool composed = j >= 0 && (!plan.empty() || job(j).progressDependent);
    std::vector<int> perType(composed ? m_types.size() : 0, 0);
    int lastNode = -1;
    int rack = -2; // -2: not seen yet
    bool oneRack = true;
    double r = std::numeric_limits<double>::infinity();
    for (int g : *gpus) {
        const int node = m_cluster.nodeOfGpu(g);
        if (composed)
            ++perType[static_cast<std::size_t>(typeOfNode(node))];
        if (node == lastNode)
            continue;
        lastNode = node;
        ++out.nodes;
        const int nodeRack = m_cluster.rackOfNode(node);
        if (rack == -2)
            rack = nodeRack;
        else if (nodeRack != rack || nodeRack < 0)
            oneRack = false;
        const int t = typeOfNode(node);
        if (out.type == -1)
            out.type = t;
        else if (out.type != t)
            out.type = -2;
        if (j >= 0)
            r = std::min(r, used > 0 ? rate(j, t, used) : 0.0);
    }
    out.span = count == 1 ? Span::Gpu : out.nodes == 1 ? Span::Node : oneRack && rack >= 0 ? Span::Rack : Span::Cluster;
    if (composed) {
        Composition c;
        c.gpus = count;
        c.usedGpus = used;
        c.nodes = out.nodes;
        c.packedRate = r;
        for (std::size_t t = 0; t < perType.size(); ++t)
            if (perType[t] > 0)
                c.parts.push_back(
                    {m_types[t], static_cast<int>(t), perType[t], used > 0 ? rate(j, static_cast<int>(t), used) : 0.0});
        r = m_source->planRate(m_jobs[static_cast<std::size_t>(j)], c, plan, std::clamp(progress, 0.0, 1.0));
        if (!std::isfinite(r) || r < 0)
            r = 0;
    }
    if (j >= 0)
        out.rate = r * m_locality.factor(job(j).localityKey, used, out.nodes, out.span);
    return out;
}

double PreparedWorkload::rate(int j, int t, int count) const
{
    const auto& s = job(j);
    if (count == demandOn(j, t))
        return rate(j, t);
    if (count == s.demand)
        return baseRate(j, t);
    count = usableGpus(j, count); // a job cannot use more than its range: the sources cap at max_gpus
    if (count == 0)
        return 0;
    if (count == demandOn(j, t))
        return rate(j, t);
    if (count == s.demand)
        return baseRate(j, t);
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
