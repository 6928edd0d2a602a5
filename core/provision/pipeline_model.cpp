#include "provision/pipeline_model.h"

#include "io/error.h"
#include "provision/cost_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace orrery::provision {

namespace {

std::vector<LayerProfile> profileAll(const ProvisionJob& job, const std::vector<PoolGpu>& pool,
                                     const ProfileSource& source, int dp)
{
    if (!PipelineModel::validDp(job, dp))
        throw Error("", "dp",
                    fmt::format("global batch {} does not split into {} x {} micro-batches", job.training.globalBatch,
                                dp, job.microBatches));
    const int microBatch = job.training.globalBatch / (dp * job.microBatches);
    std::vector<LayerProfile> out;
    out.reserve(pool.size());
    for (const auto& g : pool)
        out.push_back(source.profile(g.gpu, job, microBatch));
    return out;
}

} // namespace

PipelineModel::PipelineModel(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                             int dp)
    : PipelineModel(job, pool, profileAll(job, pool, source, dp), dp)
{}

PipelineModel::PipelineModel(const ProvisionJob& job, const std::vector<PoolGpu>& pool,
                             std::vector<LayerProfile> profiles, int dp)
    : m_job(&job), m_pool(&pool), m_profiles(std::move(profiles)), m_dp(dp)
{
    if (m_profiles.size() != pool.size())
        throw Error("", "profiles", "one layer profile per pool GPU type is required");
    const auto L = static_cast<std::size_t>(std::max(0, layers()));
    m_maxLayers.resize(pool.size() * (L * (L + 1) / 2));
    for (int t = 0; t < types(); ++t)
        for (int k = 1; k <= layers(); ++k)
            for (int s = 0; s < k; ++s)
                m_maxLayers[lmIndex(t, s, k)] = computeMaxLayers(t, s, k);
}

bool PipelineModel::validDp(const ProvisionJob& job, int dp)
{
    const int perIteration = dp * job.microBatches;
    return dp >= 1 && job.microBatches >= 1 && perIteration <= job.training.globalBatch &&
           job.training.globalBatch % perIteration == 0;
}

double PipelineModel::peakTFlops(int type) const
{
    return pool()[static_cast<std::size_t>(type)].gpu.fp16TFlops;
}
double PipelineModel::memoryGB(int type) const
{
    return pool()[static_cast<std::size_t>(type)].gpu.memoryGiB;
}
double PipelineModel::capacityBytes(int type) const
{
    return pool()[static_cast<std::size_t>(type)].gpu.memoryBytes();
}
double PipelineModel::price(int type) const
{
    return pool()[static_cast<std::size_t>(type)].pricePerHour;
}

namespace {

int inFlight(int s, int k, int m)
{
    return std::max(1, std::min(k - s, m));
}

} // namespace

double PipelineModel::stageMemoryBytes(int type, int layers, int s, int k) const
{
    const auto& p = profile(type);
    const double n = inFlight(s, k, microBatches());
    double bytes = p.reservedBytes + layers * (p.layer.staticBytes + n * p.layer.activationBytes);
    double working = p.layer.workingBytes;
    if (s == 0) {
        bytes += p.embedding.staticBytes + n * p.embedding.activationBytes;
        working = std::max(working, p.embedding.workingBytes);
    }
    if (s == k - 1) {
        bytes += p.head.staticBytes + n * p.head.activationBytes;
        working = std::max(working, p.head.workingBytes);
    }
    return bytes + working;
}

int PipelineModel::computeMaxLayers(int type, int s, int k) const
{
    const auto& p = profile(type);
    const double fixed = stageMemoryBytes(type, 0, s, k);
    const double cap = capacityBytes(type);
    if (fixed > cap)
        return 0;
    const double perLayer = p.layer.staticBytes + inFlight(s, k, microBatches()) * p.layer.activationBytes;
    if (perLayer <= 0)
        return layers();
    return static_cast<int>(std::min<double>(layers(), std::floor((cap - fixed) / perLayer)));
}

int PipelineModel::fragmentedLayers(int type, double beta) const
{
    const auto& p = profile(type);
    const double usable = beta * capacityBytes(type) - p.reservedBytes - p.layer.workingBytes;
    const double perLayer = p.layer.staticBytes + p.layer.activationBytes;
    if (usable <= 0)
        return 0;
    if (perLayer <= 0)
        return layers();
    return static_cast<int>(std::min<double>(layers(), std::floor(usable / perLayer)));
}

double PipelineModel::forwardS(int type, int layers, int s, int k) const
{
    const auto& p = profile(type);
    return layers * p.layer.forwardS + (s == 0 ? p.embedding.forwardS : 0) + (s == k - 1 ? p.head.forwardS : 0);
}

double PipelineModel::backwardS(int type, int layers, int s, int k) const
{
    const auto& p = profile(type);
    return layers * p.layer.backwardS + (s == 0 ? p.embedding.backwardS : 0) + (s == k - 1 ? p.head.backwardS : 0);
}

double PipelineModel::bytesPerSecond() const
{
    return m_job->interBandwidthGbitS * 1e9 / 8.0;
}

double PipelineModel::allReduceS(int type, int layers, int s, int k) const
{
    if (m_dp <= 1)
        return 0;
    const auto& p = profile(type);
    const double bytes = layers * p.layer.gradientBytes + (s == 0 ? p.embedding.gradientBytes : 0) +
                         (s == k - 1 ? p.head.gradientBytes : 0);
    return 2.0 * (m_dp - 1) / m_dp * bytes / bytesPerSecond();
}

double PipelineModel::layerAllReduceS(int type) const
{
    if (m_dp <= 1)
        return 0;
    return 2.0 * (m_dp - 1) / m_dp * profile(type).layer.gradientBytes / bytesPerSecond();
}

double PipelineModel::p2pS() const
{
    return profile(0).boundaryBytes / bytesPerSecond();
}

StageTimes PipelineModel::stageTimes(int type, int layers, int s, int k) const
{
    return {forwardS(type, layers, s, k), backwardS(type, layers, s, k), allReduceS(type, layers, s, k)};
}

double PipelineModel::rate(int type) const
{
    const auto& l = profile(type).layer;
    const double t = l.forwardS + l.backwardS;
    return t > 0 ? l.flops / t : 0;
}

double PipelineModel::layerFlops() const
{
    return profile(0).layer.flops;
}

double PipelineModel::activeRatio(int k) const
{
    return provision::activeRatio(microBatches(), k);
}

double PipelineModel::lowerIterationS(double sumStageRates, int k, double layers) const
{
    // Wc(L) covers the whole global batch (d*m micro-batches) and the rates all d*k GPUs, so d cancels.
    return provision::lowerIterationS(layers * layerFlops() * microBatches(), activeRatio(k), sumStageRates);
}

} // namespace orrery::provision
