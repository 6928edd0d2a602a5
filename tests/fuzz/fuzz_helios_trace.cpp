// Helios cluster_log.csv (workload/helios_trace.h).
#include "io/error.h"
#include "workload/helios_trace.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        orrery::workload::parseHeliosLog(text, "fuzz.csv");
    } catch (const orrery::Error&) {
    }
    return 0;
}
