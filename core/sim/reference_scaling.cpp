#include "sim/reference_scaling.h"

namespace orrery::sim {

ReferenceScaling::ReferenceScaling(const hardware::GpuCatalog& catalog, std::string defaultReferenceGpu)
    : m_catalog(catalog), m_defaultReference(std::move(defaultReferenceGpu))
{
    (void)m_catalog.at(m_defaultReference); // throws with a suggestion when unknown
}

const hardware::GpuType& ReferenceScaling::reference(const workload::Job& job) const
{
    return m_catalog.at(job.referenceGpu.empty() ? m_defaultReference : job.referenceGpu);
}

double ReferenceScaling::rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const
{
    if (count < 1 || job.gpus < 1)
        return 0;
    const double ref = speed(reference(job));
    if (ref <= 0)
        return 0;
    return static_cast<double>(count) / job.gpus * speed(gpu) / ref;
}

} // namespace orrery::sim
