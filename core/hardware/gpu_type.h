#pragma once

#include "hardware/gpu_curves.h"
#include "hardware/link.h"
#include "util/units.h"

#include <optional>
#include <string>
#include <vector>

namespace orrery::hardware {

/** One GPU model with its datasheet figures. */
struct GpuType
{
    std::string name;    ///< catalog id, e.g. `a100-40gb-sxm`
    std::string display; ///< human name
    std::string vendor;
    std::vector<std::string> aliases;
    double memoryGiB = 0;
    double fp16TFlops = 0; ///< dense FP16/BF16 tensor peak
    double fp32TFlops = 0;
    double memoryBandwidthGBps = 0;
    Link intraLink;             ///< GPU-to-GPU inside a node
    double priceUsdPerHour = 0; ///< on-demand, per GPU
    std::string source;
    /** Measured kernel curves (a calibration from `orrery-cli profile`); unset: the published defaults. */
    std::optional<GpuCurves> curves;

    double memoryBytes() const { return memoryGiB * kGiB; }
    bool operator==(const GpuType&) const = default;
};

} // namespace orrery::hardware
