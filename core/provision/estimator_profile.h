#pragma once

#include "provision/layer_profile.h"

#include <map>
#include <string>

namespace orrery::provision {

/**
 * Layer profiles from Orrery's estimators (estimate::profileLayers and
 * estimate::estimateMemory), standing in for the paper's llm-analysis
 * profiler: no tensor parallelism, the job's precision, optimizer and
 * recomputation. Optionally calibrated per GPU type: an efficiency given
 * here replaces the estimator's achievable efficiency (compute times scale by
 * estimator / given), e.g. the Espresso prototype's 0.43 / 0.47 / 0.55 / 0.45.
 */
class EstimatorProfileSource : public ProfileSource
{
public:
    EstimatorProfileSource() = default;
    explicit EstimatorProfileSource(std::map<std::string, double> efficiencyByGpu)
        : m_efficiency(std::move(efficiencyByGpu))
    {}

    LayerProfile profile(const hardware::GpuType& gpu, const ProvisionJob& job, int microBatchSize) const override;

private:
    std::map<std::string, double> m_efficiency;
};

} // namespace orrery::provision
