// Scenario files (io/scenario.h): JSON parsing and the strict, path-aware validation of every member.
#include "io/error.h"
#include "io/scenario.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        orrery::io::parseScenarioText(text, "fuzz.json");
    } catch (const orrery::Error&) {
    }
    return 0;
}
