// Gavel `.trace` files (workload/gavel_trace.h), both layouts.
#include "io/error.h"
#include "workload/gavel_trace.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    orrery::workload::GavelTraceOptions options;
    // Known rates for some job types only, so that both the SLO-to-deadline arithmetic and the
    // "SLO without a throughput" refusal are reachable.
    options.referenceStepsPerS = [](const std::string& jobType, int scaleFactor) -> std::optional<double> {
        if (jobType.find("ResNet") == std::string::npos)
            return std::nullopt;
        return 10.0 / scaleFactor;
    };
    try {
        orrery::workload::parseGavelTrace(text, "fuzz.trace", options);
    } catch (const orrery::Error&) {
    }
    return 0;
}
