#include "provision/layer_profile.h"

#include "io/error.h"

namespace orrery::provision {

LayerProfile TableProfileSource::profile(const hardware::GpuType& gpu, const ProvisionJob&, int) const
{
    auto it = m_profiles.find(gpu.name);
    if (it == m_profiles.end())
        throw Error("", "profile", "no layer profile for GPU type '" + gpu.name + "'");
    return it->second;
}

} // namespace orrery::provision
