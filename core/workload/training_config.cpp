#include "workload/training_config.h"

#include "io/error.h"

namespace orrery::workload {

std::string toString(Precision p)
{
    switch (p) {
    case Precision::BF16:
        return "bf16";
    case Precision::FP16:
        return "fp16";
    case Precision::FP32:
        return "fp32";
    }
    return "bf16";
}

std::string toString(Optimizer o)
{
    switch (o) {
    case Optimizer::Adam:
        return "adam";
    case Optimizer::AdamW:
        return "adamw";
    case Optimizer::SGD:
        return "sgd";
    case Optimizer::Adam8bit:
        return "adam8bit";
    case Optimizer::Adafactor:
        return "adafactor";
    }
    return "adam";
}

std::string toString(Recompute r)
{
    switch (r) {
    case Recompute::None:
        return "none";
    case Recompute::Selective:
        return "selective";
    case Recompute::Full:
        return "full";
    case Recompute::SelectiveOp:
        return "selective_op";
    }
    return "none";
}

std::string toString(Framework f)
{
    switch (f) {
    case Framework::Megatron:
        return "megatron";
    case Framework::DeepSpeed:
        return "deepspeed";
    case Framework::Fsdp:
        return "fsdp";
    case Framework::HF:
        return "hf";
    case Framework::LitGpt:
        return "litgpt";
    case Framework::PyTorch:
        return "pytorch";
    }
    return "megatron";
}

template <class E, std::size_t N> static E parseEnum(const std::string& s, const E (&values)[N], const char* accepted)
{
    for (E v : values)
        if (toString(v) == s)
            return v;
    throw Error(std::string("expected one of ") + accepted + ", got \"" + s + "\"");
}

Precision precisionFromString(const std::string& s)
{
    static const Precision all[] = {Precision::BF16, Precision::FP16, Precision::FP32};
    return parseEnum(s, all, "bf16, fp16, fp32");
}

Optimizer optimizerFromString(const std::string& s)
{
    static const Optimizer all[] = {Optimizer::Adam, Optimizer::AdamW, Optimizer::SGD, Optimizer::Adam8bit,
                                    Optimizer::Adafactor};
    return parseEnum(s, all, "adam, adamw, sgd, adam8bit, adafactor");
}

Recompute recomputeFromString(const std::string& s)
{
    static const Recompute all[] = {Recompute::None, Recompute::Selective, Recompute::Full, Recompute::SelectiveOp};
    return parseEnum(s, all, "none, selective, full, selective_op");
}

Framework frameworkFromString(const std::string& s)
{
    static const Framework all[] = {Framework::Megatron, Framework::DeepSpeed, Framework::Fsdp,
                                    Framework::HF,       Framework::LitGpt,    Framework::PyTorch};
    return parseEnum(s, all, "megatron, deepspeed, fsdp, hf, litgpt, pytorch");
}

void checkTrainingConfig(const TrainingConfig& config)
{
    const bool fp32 = config.precision == Precision::FP32;
    if (config.fp32Grads && fp32)
        throw Error("", "fp32_grads", "only meaningful with bf16 or fp16 precision (fp32 training has fp32 gradients)");
    if (config.pureHalf && (fp32 || config.autocast))
        throw Error("", "pure_half", "only meaningful with bf16 or fp16 precision and without autocast");
    if (config.fp8 && fp32)
        throw Error("", "fp8", "FP8 training keeps bf16/fp16 outside its GEMMs: it needs precision bf16 or fp16");
}

} // namespace orrery::workload
