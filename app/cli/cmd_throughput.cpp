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

struct ThroughputArgs
{
    EstimateArgs train;
    int gpusPerNode = 8;
    double networkGBps = 25;
};

void registerThroughputCommand(CLI::App& app)
{
    auto args = std::make_shared<ThroughputArgs>();
    auto* cmd = app.add_subcommand("throughput", "Iteration time, samples/s, TFLOP/s and MFU of a model and layout");
    addTrainingOptions(cmd, args->train, true);
    cmd->add_option("--gpu", args->train.gpu, "GPU type (see `gpus`)")->required();
    cmd->add_option("--gpus-per-node", args->gpusPerNode, "GPUs per node (tp and small dp groups stay inside)")
        ->capture_default_str();
    cmd->add_option("--network-gbps", args->networkGBps, "Inter-node bandwidth per GPU, GB/s (default: 200 Gb/s IB)")
        ->capture_default_str();
    cmd->callback([args] {
        const workload::ModelSpec model = loadModel(args->train.model);
        const workload::TrainingConfig config = trainingConfig(args->train);
        const estimate::Parallelism par = parallelism(args->train);
        checkLayoutOptions(model, config, par);
        if (args->gpusPerNode < 1)
            throw Error("", "--gpus-per-node", fmt::format("expected a positive integer, got {}", args->gpusPerNode));
        if (!(args->networkGBps > 0))
            throw Error("", "--network-gbps", fmt::format("expected a positive number, got {}", args->networkGBps));
        estimate::PlanTarget target;
        target.gpu = &hardware::GpuCatalog::builtin().at(args->train.gpu);
        target.gpusPerNode = args->gpusPerNode;
        target.intraNode = target.gpu->intraLink;
        target.interNode = {hardware::LinkKind::InfiniBand, args->networkGBps, 5.0};
        const estimate::ThroughputEstimate r = estimate::estimateThroughput(model, config, par, target);
        const double memory = estimate::estimateMemory(model, config, par, memoryMode(args->train.mode)).totalGiB();
        const nlohmann::json out = {
            {"model", model.name},
            {"gpu", target.gpu->name},
            {"dp", par.dp},
            {"tp", par.tp},
            {"pp", par.pp},
            {"ep", par.ep},
            {"cp", par.cp},
            {"iteration_s", r.iterationS},
            {"samples_per_s", r.samplesPerS},
            {"tokens_per_s", r.tokensPerS},
            {"tflops_per_gpu", r.tflopsPerGpu},
            {"mfu", r.mfu},
            {"memory_gib", memory},
            {"fits", memory * kGiB < estimate::usableCapacityBytes(target, memoryMode(args->train.mode))}};
        if (args->train.json) {
            printJson(out);
            return;
        }
        Table table({"iteration_s", "samples/s", "tokens/s", "TFLOP/s/GPU", "MFU", "memory_gib"});
        table.add({fmt::format("{:.4g}", r.iterationS), fmt::format("{:.4g}", r.samplesPerS),
                   fmt::format("{:.4g}", r.tokensPerS), fmt::format("{:.1f}", r.tflopsPerGpu),
                   fmt::format("{:.1f}%", 100 * r.mfu), fmt::format("{:.2f}", memory)});
        std::cout << fmt::format("{} on {} x {} (dp={} tp={} pp={}{}):\n", model.name, par.gpus(), target.gpu->name,
                                 par.dp, par.tp, par.pp,
                                 (par.ep > 1 ? fmt::format(" ep={}", par.ep) : "") +
                                     (par.cp > 1 ? fmt::format(" cp={}", par.cp) : ""))
                  << table.render();
    });
}

} // namespace

ORRERY_CLI_COMMAND(31, registerThroughputCommand, "throughput");

} // namespace orrery::cli
