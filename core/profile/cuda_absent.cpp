// Built instead of cuda_probe.cu when CMake found no CUDA compiler: the profiler says why it cannot run.
#include "profile/device_probe.h"

namespace orrery::profile {

Availability availability()
{
    Availability a;
    a.reason = "this build of Orrery has no CUDA support (CMake found no CUDA compiler; "
               "rebuild with -DORRERY_WITH_CUDA=ON and the CUDA toolkit installed)";
    return a;
}

Measurements measureDevice(const ProbeOptions&)
{
    throw std::runtime_error(availability().reason);
}

} // namespace orrery::profile
