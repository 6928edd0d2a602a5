#include "estimate/plan.h"

#include "hardware/gpu_curves.h"

namespace orrery::estimate {

double achievableEfficiency(const hardware::GpuType& gpu)
{
    // The library's large-GEMM efficiency from the GPU's curves (docs/models/gpu-curves.md); the
    // operator-level model lowers it for small shapes and adds the memory-bound kernels around it.
    return hardware::curvesFor(gpu).gemmEfficiency;
}

} // namespace orrery::estimate
