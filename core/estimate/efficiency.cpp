#include "estimate/plan.h"

#include <string_view>

namespace orrery::estimate {

double achievableEfficiency(const hardware::GpuType& gpu)
{
    // Fraction of the dense tensor peak that a well-tuned transformer step sustains in its GEMMs,
    // communication excluded (it is modelled separately). A100/A800: fitted to the Megatron-LM
    // measurements in data/validation/throughput_measurements.csv (docs/models/throughput.md).
    // Elsewhere no measurement is collected: the same figure is used, as the default.
    const std::string_view name = gpu.name;
    if (name.starts_with("a100") || name.starts_with("a800"))
        return 0.55;
    return 0.5;
}

} // namespace orrery::estimate
