// Alibaba openb pod and node lists (workload/openb_trace.h). The same bytes go to both readers: they share
// the CSV layer, and a mutation that turns one header into the other is cheap for the fuzzer to find.
#include "io/error.h"
#include "workload/openb_trace.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        orrery::workload::parseOpenbPods(text, "fuzz_pods.csv");
    } catch (const orrery::Error&) {
    }
    try {
        orrery::workload::parseOpenbNodes(text, "fuzz_nodes.csv");
    } catch (const orrery::Error&) {
    }
    return 0;
}
