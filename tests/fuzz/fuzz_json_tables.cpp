// The JSON tables a user may hand Orrery besides a scenario: Gavel's throughput table
// (simulate --throughputs, sim/gavel_throughputs.h), a GPU catalog (hardware/gpu_catalog.h), a model
// library and a single model file (workload/model_library.h, model_spec.h). The same bytes go to each,
// and to nlohmann's parser as a reference for io::parseJson.
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "io/json_reader.h"
#include "sim/gavel_throughputs.h"
#include "workload/model_library.h"
#include "workload/model_spec.h"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        orrery::sim::GavelThroughputs::fromJsonText(text, "simulation_throughputs.json");
    } catch (const orrery::Error&) {
    }
    nlohmann::json doc;
    try {
        doc = orrery::io::parseJson(text, "table.json");
    } catch (const orrery::Error&) {
        return 0;
    }
    // Differential: io::parseJson reads through simdjson when it can and through nlohmann's parser
    // otherwise; whatever it accepts, nlohmann's own parser must read to the same document.
    try {
        if (nlohmann::json::parse(text).dump() != doc.dump())
            __builtin_trap();
    } catch (const nlohmann::json::exception&) {
        __builtin_trap();
    }
    try {
        orrery::hardware::GpuCatalog::fromJson(doc, "gpus.json");
    } catch (const orrery::Error&) {
    }
    try {
        orrery::workload::ModelLibrary::fromJson(doc, "models.json");
    } catch (const orrery::Error&) {
    }
    try {
        orrery::workload::modelSpecFromJson(doc, "");
    } catch (const orrery::Error&) {
    }
    return 0;
}
