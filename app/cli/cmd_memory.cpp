#include "cli.h"
#include "estimate_args.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "util/units.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>

namespace orrery::cli {

namespace {

void registerMemoryCommand(CLI::App& app)
{
    auto args = std::make_shared<EstimateArgs>();
    auto* cmd = app.add_subcommand("memory", "Per-GPU training memory of a model and layout (largest pipeline stage)");
    addTrainingOptions(cmd, *args, true);
    cmd->add_option("--gpu", args->gpu, "GPU type: also report whether it fits");
    cmd->callback([args] {
        const workload::ModelSpec model = loadModel(args->model);
        const workload::TrainingConfig config = trainingConfig(*args);
        const estimate::Parallelism par = parallelism(*args);
        checkLayoutOptions(model, config, par);
        const estimate::MemoryMode mode = memoryMode(args->mode);
        // With --gpu the libraries' workspaces take that type's sizes.
        const hardware::GpuType* gpu = args->gpu.empty() ? nullptr : &hardware::GpuCatalog::builtin().at(args->gpu);
        const estimate::MemoryBreakdown m = estimate::estimateMemory(model, config, par, gpu, mode);

        nlohmann::json out = {{"model", model.name},
                              {"mode", args->mode},
                              {"dp", par.dp},
                              {"tp", par.tp},
                              {"pp", par.pp},
                              {"ep", par.ep},
                              {"cp", par.cp},
                              {"weights_gib", m.weightsGiB},
                              {"gradients_gib", m.gradientsGiB},
                              {"optimizer_gib", m.optimizerGiB},
                              {"activations_gib", m.activationsGiB},
                              {"overhead_gib", m.overheadGiB},
                              {"context_gib", m.contextGiB},
                              {"slack_gib", m.slackGiB},
                              {"allocated_gib", m.allocatedGiB()},
                              {"reserved_gib", m.reservedGiB()},
                              {"total_gib", m.totalGiB()},
                              {"device_gib", m.totalGiB()}};
        double capacityGiB = 0;
        if (!args->gpu.empty()) {
            estimate::PlanTarget target;
            target.gpu = gpu;
            capacityGiB = estimate::usableCapacityBytes(target, mode) / kGiB;
            out["gpu"] = target.gpu->name;
            out["capacity_gib"] = capacityGiB;
            out["fits"] = m.totalGiB() < capacityGiB;
        }
        if (args->json) {
            printJson(out);
            return;
        }
        Table table({"term", "GiB"});
        const auto row = [&](const char* name, double v) { table.add({name, fmt::format("{:.3f}", v)}); };
        row("weights", m.weightsGiB);
        row("gradients", m.gradientsGiB);
        row("optimizer", m.optimizerGiB);
        row("activations", m.activationsGiB);
        row("overhead", m.overheadGiB);
        row("total", m.totalGiB());
        std::cout << fmt::format("{} on dp={} tp={} pp={}{} ({} mode), per GPU:\n", model.name, par.dp, par.tp, par.pp,
                                 (par.ep > 1 ? fmt::format(" ep={}", par.ep) : "") +
                                     (par.cp > 1 ? fmt::format(" cp={}", par.cp) : ""),
                                 args->mode)
                  << table.render();
        if (!args->gpu.empty())
            std::cout << fmt::format("{}: {} ({:.2f} GiB usable)\n", out["gpu"].get<std::string>(),
                                     out["fits"].get<bool>() ? "fits" : "does not fit", capacityGiB);
    });
}

} // namespace

ORRERY_CLI_COMMAND(30, registerMemoryCommand, "memory");

} // namespace orrery::cli
