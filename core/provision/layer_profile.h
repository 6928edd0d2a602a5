#pragma once

#include "hardware/gpu_type.h"
#include "provision/provision_types.h"

#include <map>
#include <string>

namespace orrery::provision {

/** Time and memory of one model part (a transformer layer, the embedding or the head) for one micro-batch. */
struct PartProfile
{
    double forwardS = 0;
    double backwardS = 0;       ///< including recomputation when the job recomputes
    double staticBytes = 0;     ///< weights + gradients + optimizer state
    double activationBytes = 0; ///< kept per in-flight micro-batch until its backward pass
    double workingBytes = 0;    ///< transient peak while the part runs
    double gradientBytes = 0;   ///< what the data-parallel all-reduce moves
    double flops = 0;           ///< forward + backward (+ recompute) FLOPs actually executed
};

/**
 * Espresso's profile of a job on one GPU type at one micro-batch size: what the
 * paper's Profiler measures (llm-analysis in the prototype).
 */
struct LayerProfile
{
    PartProfile layer;        ///< one transformer layer
    PartProfile embedding;    ///< on stage 0
    PartProfile head;         ///< final norm + output layer, on the last stage
    double reservedBytes = 0; ///< framework / CUDA context per GPU
    double boundaryBytes = 0; ///< activation sent between adjacent stages per micro-batch
};

/** Where profiles come from: the estimators (EstimatorProfileSource) or a table (tests, calibration). */
class ProfileSource
{
public:
    virtual ~ProfileSource() = default;
    /** The profile of `job` on `gpu` with micro-batches of `microBatchSize` samples. */
    virtual LayerProfile profile(const hardware::GpuType& gpu, const ProvisionJob& job, int microBatchSize) const = 0;
};

/**
 * Fixed profiles per GPU type name, independent of the micro-batch size:
 * for tests (the spec's U-E1 mocked profile) and for measured profiles typed in.
 */
class TableProfileSource : public ProfileSource
{
public:
    void set(const std::string& gpuName, const LayerProfile& profile) { m_profiles[gpuName] = profile; }
    /** Throws orrery::Error naming the GPU when it has no profile. */
    LayerProfile profile(const hardware::GpuType& gpu, const ProvisionJob& job, int microBatchSize) const override;

private:
    std::map<std::string, LayerProfile> m_profiles;
};

} // namespace orrery::provision
