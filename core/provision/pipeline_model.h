#pragma once

#include "provision/layer_profile.h"
#include "provision/provision_types.h"

#include <vector>

namespace orrery::provision {

/** Per-stage inputs of the iteration-time estimator, for one micro-batch. */
struct StageTimes
{
    double forwardS = 0;
    double backwardS = 0;
    double allReduceS = 0; ///< DP gradient sync after the stage's last backward
};

/**
 * Everything the allocator and the placers need for one DP size d: the
 * profile of every pool type at micro-batch B/(d m), turned into per-stage
 * times, memory and layer limits. Stage position matters because 1F1B keeps
 * min(k - s, m) micro-batches in flight on stage s, and the embedding and
 * head sit on the first and last stages.
 */
class PipelineModel
{
public:
    /** Profiles every pool type. Throws Error when B is not a multiple of d*m. */
    PipelineModel(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source, int dp);
    /** From given profiles (one per pool type), for tests and tools that profiled elsewhere. */
    PipelineModel(const ProvisionJob& job, const std::vector<PoolGpu>& pool, std::vector<LayerProfile> profiles,
                  int dp);

    /** Whether B splits into d*m whole micro-batches. */
    static bool validDp(const ProvisionJob& job, int dp);

    const ProvisionJob& job() const { return *m_job; }
    const std::vector<PoolGpu>& pool() const { return *m_pool; }
    const LayerProfile& profile(int type) const { return m_profiles[static_cast<std::size_t>(type)]; }
    int types() const { return static_cast<int>(m_pool->size()); }
    int dp() const { return m_dp; }
    int microBatches() const { return m_job->microBatches; }
    int layers() const { return m_job->layers(); }

    /** F(t) in TFLOP/s and M(t) in GB as the paper uses them (datasheet figures). */
    double peakTFlops(int type) const;
    double memoryGB(int type) const;
    double capacityBytes(int type) const;
    double price(int type) const;

    /** Memory of a stage holding `layers` layers at position s of k on one GPU. */
    double stageMemoryBytes(int type, int layers, int s, int k) const;
    /** l_m: the most layers type t holds at position s of k (0 when not even the fixed parts fit). */
    int maxLayers(int type, int s, int k) const
    {
        if (k >= 1 && k <= layers() && s >= 0 && s < k)
            return m_maxLayers[lmIndex(type, s, k)];
        return computeMaxLayers(type, s, k);
    }
    /** Layers that fit in beta * M(t) with one micro-batch in flight (cost pruning's l_beta). */
    int fragmentedLayers(int type, double beta) const;

    double forwardS(int type, int layers, int s, int k) const;
    double backwardS(int type, int layers, int s, int k) const;
    /** Ring all-reduce of the stage's gradients among the d replicas; 0 when d = 1. */
    double allReduceS(int type, int layers, int s, int k) const;
    /** All-reduce time of one transformer layer (l_c in the CMR). */
    double layerAllReduceS(int type) const;
    /** Point-to-point transfer of one micro-batch's boundary activation. */
    double p2pS() const;
    StageTimes stageTimes(int type, int layers, int s, int k) const;

    /** r_t: achieved FLOP/s of one GPU of this type on transformer layers. */
    double rate(int type) const;
    /** FLOPs of one layer for one micro-batch (forward + backward). */
    double layerFlops() const;
    /** Eq. (6): the GPipe active ratio p = m / (m + k - 1). */
    double activeRatio(int k) const;
    /** Eq. (5): communication-free iteration time of L layers on stages of the given types (one per stage). */
    double lowerIterationS(double sumStageRates, int k, double layers) const;

private:
    double bytesPerSecond() const;
    int computeMaxLayers(int type, int s, int k) const;
    std::size_t lmIndex(int type, int s, int k) const
    {
        const auto L = static_cast<std::size_t>(layers());
        const auto kk = static_cast<std::size_t>(k);
        return static_cast<std::size_t>(type) * (L * (L + 1) / 2) + kk * (kk - 1) / 2 + static_cast<std::size_t>(s);
    }

    const ProvisionJob* m_job;
    const std::vector<PoolGpu>* m_pool;
    std::vector<LayerProfile> m_profiles;
    int m_dp;
    std::vector<int> m_maxLayers; // l_m for every (type, k <= L, s < k): the searches ask millions of times
};

} // namespace orrery::provision
