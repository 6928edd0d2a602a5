// Philly's cluster_job_log, JSON with attempts (workload/philly_trace.h).
#include "io/error.h"
#include "workload/philly_trace.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        orrery::workload::parsePhillyJobLog(text, "fuzz.json");
    } catch (const orrery::Error&) {
    }
    return 0;
}
