#include "estimate_args.h"

#include "io/error.h"
#include "workload/model_library.h"

#include <fmt/format.h>

#include <algorithm>

namespace orrery::cli {

namespace {

/**
 * Runs a core check and renames the field of its error to the option that sets it: core names the scenario key
 * (`pure_half`, `virtual_stages`), whose option is the same words with dashes (`--pure-half`, `--virtual-stages`).
 */
template <class Check> void withOptionNames(Check check)
{
    try {
        check();
    } catch (const Error& e) {
        if (!e.file().empty() || e.location().empty())
            throw;
        std::string option = "--" + e.location();
        std::replace(option.begin(), option.end(), '_', '-');
        throw Error("", option, e.message());
    }
}

} // namespace

void addTrainingOptions(CLI::App* cmd, EstimateArgs& args, bool layout)
{
    cmd->add_option("--model", args.model, "Model: library name (see `models`) or a model JSON file")->required();
    cmd->add_option("--batch", args.batch, "Global batch size B (samples per iteration)")->required();
    cmd->add_option("--seq", args.seq, "Sequence length (default: the model's)");
    cmd->add_option("--micro-batch", args.microBatch, "Micro-batch size b (default: B / dp)");
    if (layout) {
        cmd->add_option("--dp", args.dp, "Data-parallel size")->capture_default_str();
        cmd->add_option("--tp", args.tp, "Tensor-parallel size")->capture_default_str();
        cmd->add_option("--pp", args.pp, "Pipeline-parallel size")->capture_default_str();
        cmd->add_option("--ep", args.ep,
                        "Expert-parallel size for an MoE model: its experts split over ep ranks of the data-parallel "
                        "group (divides dp and the number of experts)")
            ->capture_default_str();
        cmd->add_option("--cp", args.cp,
                        "Context-parallel size: each sequence split over cp ranks running ring attention (needs "
                        "--flash-attn; the sequence divisible by 2 cp); N = dp x tp x pp x cp")
            ->capture_default_str();
    }
    cmd->add_option(
           "--virtual-stages", args.virtualStages,
           "Interleaved 1F1B: layer chunks per pipeline rank (Megatron's virtual pipeline size; 1 = plain 1F1B)")
        ->capture_default_str();
    cmd->add_option("--zero", args.zero, "ZeRO stage over the data-parallel group: 0, 1, 2 or 3")
        ->capture_default_str();
    cmd->add_option("--recompute", args.recompute, "Activation recomputation: none, selective, full or selective_op")
        ->capture_default_str();
    cmd->add_option("--precision", args.precision, "bf16, fp16 (mixed precision) or fp32")->capture_default_str();
    cmd->add_option("--optimizer", args.optimizer, "adam, adamw, sgd, adam8bit or adafactor")->capture_default_str();
    cmd->add_option(
           "--framework", args.framework,
           "Training framework: megatron, deepspeed, fsdp, hf, litgpt or pytorch (kernels, overheads, defaults)")
        ->capture_default_str();
    cmd->add_flag("--pure-half", args.pureHalf,
                  "bf16-true: weights, gradients and optimizer states in bf16/fp16, no fp32 master copy");
    cmd->add_flag("--offload-optimizer", args.offloadOptimizer,
                  "Optimizer states and master weights in host memory, stepped on the CPU (ZeRO-Offload)");
    cmd->add_flag("--flash-attn", args.flashAttention, "Flash attention (no s^2 attention scores kept)");
    cmd->add_flag("--sequence-parallel", args.sequenceParallel, "Megatron sequence parallelism (with --tp > 1)");
    cmd->add_flag("--autocast", args.autocast,
                  "PyTorch AMP semantics for bf16/fp16 (fp32 states, cached half weights)");
    cmd->add_flag(
        "--fp32-grads", args.fp32Grads,
        "Keep gradients in fp32 with bf16/fp16 (Megatron-Core's bf16 default; 4 B instead of 2 per parameter)");
    cmd->add_flag("--fp8", args.fp8,
                  "FP8 training (Transformer Engine style): the layers' linear GEMMs in FP8, with FP8 weight copies; "
                  "needs a GPU with FP8 tensor cores");
    cmd->add_option("--mode", args.mode, "Memory model: full (itemised) or frenzy (the paper's formula)")
        ->capture_default_str();
    cmd->add_flag("--json", args.json, "Machine-readable output");
}

workload::TrainingConfig trainingConfig(const EstimateArgs& args)
{
    const auto positive = [](const char* option, int value) {
        if (value < 1)
            throw Error("", option, fmt::format("expected a positive integer, got {}", value));
    };
    positive("--batch", args.batch);
    if (args.seq < 0)
        throw Error("", "--seq", fmt::format("expected a positive integer, got {}", args.seq));
    if (args.microBatch < 0)
        throw Error("", "--micro-batch", fmt::format("expected a positive integer, got {}", args.microBatch));
    if (args.zero < 0 || args.zero > 3)
        throw Error("", "--zero", fmt::format("expected 0, 1, 2 or 3, got {}", args.zero));
    workload::TrainingConfig c;
    c.globalBatch = args.batch;
    c.seq = args.seq;
    c.microBatch = args.microBatch;
    c.zeroStage = args.zero;
    c.flashAttention = args.flashAttention;
    c.sequenceParallel = args.sequenceParallel;
    c.autocast = args.autocast;
    c.fp32Grads = args.fp32Grads;
    const auto named = [](const char* option, auto parse, const std::string& text) {
        try {
            return parse(text);
        } catch (const Error& e) {
            throw Error("", option, e.message());
        }
    };
    c.recompute = named("--recompute", workload::recomputeFromString, args.recompute);
    c.precision = named("--precision", workload::precisionFromString, args.precision);
    c.optimizer = named("--optimizer", workload::optimizerFromString, args.optimizer);
    c.framework = named("--framework", workload::frameworkFromString, args.framework);
    c.pureHalf = args.pureHalf;
    c.offloadOptimizer = args.offloadOptimizer;
    if (args.virtualStages < 1)
        throw Error("", "--virtual-stages", fmt::format("expected a positive integer, got {}", args.virtualStages));
    c.virtualStages = args.virtualStages;
    c.fp8 = args.fp8;
    withOptionNames([&] { workload::checkTrainingConfig(c); });
    return c;
}

estimate::Parallelism parallelism(const EstimateArgs& args)
{
    for (const auto& [option, value] :
         {std::pair{"--dp", args.dp}, std::pair{"--tp", args.tp}, std::pair{"--pp", args.pp},
          std::pair{"--ep", args.ep}, std::pair{"--cp", args.cp}})
        if (value < 1)
            throw Error("", option, fmt::format("expected a positive integer, got {}", value));
    return {args.dp, args.tp, args.pp, args.ep, args.cp};
}

estimate::MemoryMode memoryMode(const std::string& mode)
{
    if (mode == "full")
        return estimate::MemoryMode::Full;
    if (mode == "frenzy")
        return estimate::MemoryMode::Frenzy;
    if (mode == "frenzy-literal")
        return estimate::MemoryMode::FrenzyLiteral;
    throw Error("", "--mode", fmt::format("expected full, frenzy or frenzy-literal, got \"{}\"", mode));
}

workload::ModelSpec loadModel(const std::string& nameOrFile)
{
    return workload::resolveModel(nameOrFile);
}

void checkLayoutOptions(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                        const estimate::Parallelism& par)
{
    withOptionNames([&] { estimate::checkLayout(model, config, par); });
}

} // namespace orrery::cli
