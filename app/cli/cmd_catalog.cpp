#include "cli.h"

#include "hardware/gpu_catalog.h"
#include "workload/model_library.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace orrery::cli {

namespace {

void registerCatalogCommands(CLI::App& app)
{
    auto gpusJson = std::make_shared<bool>(false);
    auto* gpus = app.add_subcommand("gpus", "List the GPU catalog (datasheet figures and prices)");
    gpus->add_flag("--json", *gpusJson, "Machine-readable output");
    gpus->callback([gpusJson] {
        const auto& catalog = hardware::GpuCatalog::builtin();
        if (*gpusJson) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& t : catalog.types())
                out.push_back(hardware::gpuTypeToJson(t));
            printJson({{"gpus", out}});
            return;
        }
        Table table({"name", "memory_gib", "fp16_tflops", "fp32_tflops", "mem_gb_s", "link", "link_gb_s", "usd_per_h"});
        for (const auto& t : catalog.types())
            table.add({t.name, fmt::format("{:g}", t.memoryGiB), fmt::format("{:g}", t.fp16TFlops),
                       fmt::format("{:g}", t.fp32TFlops), fmt::format("{:g}", t.memoryBandwidthGBps),
                       hardware::toString(t.intraLink.kind), fmt::format("{:g}", t.intraLink.bandwidthGBps),
                       fmt::format("{:.2f}", t.priceUsdPerHour)});
        std::cout << table.render();
    });

    auto modelsJson = std::make_shared<bool>(false);
    auto* models = app.add_subcommand("models", "List the built-in model library");
    models->add_flag("--json", *modelsJson, "Machine-readable output");
    models->callback([modelsJson] {
        const auto& lib = workload::ModelLibrary::builtin();
        if (*modelsJson) {
            nlohmann::json out = nlohmann::json::array();
            for (const auto& m : lib.models()) {
                auto j = workload::modelSpecToJson(m);
                j["params"] = m.paramCount();
                out.push_back(j);
            }
            printJson({{"models", out}});
            return;
        }
        Table table({"name", "params", "vocab", "hidden", "layers", "heads", "kv_heads", "ffn", "mlp", "seq"});
        for (const auto& m : lib.models())
            table.add({m.name, workload::formatParams(static_cast<double>(m.paramCount())), std::to_string(m.vocab),
                       std::to_string(m.hidden), std::to_string(m.layers), std::to_string(m.heads),
                       std::to_string(m.kvHeads), std::to_string(m.ffnHidden), m.gatedMlp ? "swiglu" : "gelu",
                       std::to_string(m.seq)});
        std::cout << table.render();
    });
}

} // namespace

ORRERY_CLI_COMMAND(90, registerCatalogCommands, "gpus", "models");

} // namespace orrery::cli
