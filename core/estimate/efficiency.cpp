#include "estimate/plan.h"

#include <string_view>

namespace orrery::estimate {

double achievableEfficiency(const hardware::GpuType& gpu)
{
    // Fraction of the dense tensor peak that a well-tuned transformer step sustains in its GEMMs,
    // communication excluded (it is modelled separately). A100/A800: fitted to the Megatron-LM
    // measurements in data/validation/throughput_measurements.csv (docs/models/throughput.md).
    // V100 and H100: see below; every other type: 0.5, a default for lack of measurements.
    const std::string_view name = gpu.name;
    if (name.starts_with("a100") || name.starts_with("a800"))
        return 0.55;
    // V100: Shoeybi et al. 2019 sustain 39 TFLOP/s on one V100 (a 1.2B GPT, no communication), 31 % of
    // the 125 TFLOP/s tensor peak; their multi-GPU runs scale from that baseline.
    if (name.starts_with("v100"))
        return 0.31;
    // H100: one clean measurement, Megatron-Core's 7B CI run on a DGX H100 (tp 4, dp 2, 8k sequence):
    // 373 TFLOP/s per GPU where 0.5 predicts 424, i.e. 0.44. A one-row calibration, reported as such.
    if (name.starts_with("h100"))
        return 0.44;
    return 0.5;
}

} // namespace orrery::estimate
