#include "sim/goodput_throughput.h"

#include "io/error.h"
#include "workload/goodput_profile.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <limits>

namespace orrery::sim {

GoodputThroughput::GoodputThroughput(std::map<std::string, std::shared_ptr<const workload::GoodputModel>> models)
    : m_models(std::move(models))
{}

std::shared_ptr<const GoodputThroughput> GoodputThroughput::load(const std::string& dir,
                                                                 const std::set<std::string>& apps)
{
    std::map<std::string, std::shared_ptr<const workload::GoodputModel>> models;
    for (const auto& app : apps)
        models[app] = std::make_shared<const workload::GoodputModel>(
            workload::readGoodputProfile((std::filesystem::path(dir) / app).string()));
    return std::make_shared<const GoodputThroughput>(std::move(models));
}

const workload::GoodputModel& GoodputThroughput::goodputModel(const workload::Job& job) const
{
    const auto it = m_models.find(job.application);
    if (it == m_models.end())
        throw Error(
            "", "options.goodput_profiles",
            fmt::format("job \"{}\": no goodput profile loaded for application \"{}\"", job.id, job.application));
    return *it->second;
}

int GoodputThroughput::defaultBatch(const workload::Job& job) const
{
    return job.batchSize > 0 ? job.batchSize : goodputModel(job).initBatch();
}

std::string GoodputThroughput::suffixOf(const hardware::GpuType& gpu)
{
    return workload::profileSuffixForGpu(gpu.name);
}

double GoodputThroughput::rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const
{
    const workload::GoodputModel& m = goodputModel(job);
    const std::string suffix = suffixOf(gpu);
    if (suffix.empty() || !m.hasType(suffix) || count <= 0)
        return 0;
    // The static table (ideal run time, the rigid baselines' choice of type) takes the best efficiency over the
    // run: the true rate never exceeds it, so the ideal run time stays a lower bound of any run's.
    const workload::BatchConfig c = m.configFor(suffix, count, defaultBatch(job));
    return m.throughputSamplesS(suffix, 1, count, defaultBatch(job)) * m.maxEfficiency(c.batch);
}

double GoodputThroughput::planRate(const workload::Job& job, const Composition& allocation, const Plan& plan,
                                   double progress) const
{
    if (allocation.usedGpus <= 0)
        return 0;
    const workload::GoodputModel& m = goodputModel(job);
    const int batch = plan.globalBatch > 0 ? plan.globalBatch : defaultBatch(job);
    const int nodes = std::max(1, std::min(allocation.nodes, allocation.usedGpus));
    double slowest = std::numeric_limits<double>::infinity();
    for (const auto& part : allocation.parts) {
        if (part.count <= 0)
            continue;
        const std::string suffix = suffixOf(*part.gpu);
        if (suffix.empty() || !m.hasType(suffix))
            return 0;
        slowest = std::min(slowest, m.goodput(suffix, nodes, allocation.usedGpus, batch, progress));
    }
    return std::isfinite(slowest) ? slowest : 0;
}

Plan GoodputThroughput::bestPlan(const workload::Job& job, const Composition& allocation, double progress) const
{
    Plan plan;
    if (allocation.usedGpus <= 0)
        return plan;
    const workload::GoodputModel& m = goodputModel(job);
    const int nodes = std::max(1, std::min(allocation.nodes, allocation.usedGpus));
    // The batch that is best on the slowest type present: the replicas run in lockstep at its pace.
    double slowest = std::numeric_limits<double>::infinity();
    for (const auto& part : allocation.parts) {
        if (part.count <= 0)
            continue;
        const std::string suffix = suffixOf(*part.gpu);
        if (suffix.empty() || !m.hasType(suffix))
            return plan;
        const int b = m.bestBatch(suffix, nodes, allocation.usedGpus, progress);
        const double g = m.goodput(suffix, nodes, allocation.usedGpus, b, progress);
        if (g < slowest) {
            slowest = g;
            plan.globalBatch = b;
        }
    }
    return plan;
}

} // namespace orrery::sim
