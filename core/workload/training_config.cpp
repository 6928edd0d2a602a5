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
    }
    return "none";
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
    static const Optimizer all[] = {Optimizer::Adam, Optimizer::AdamW, Optimizer::SGD};
    return parseEnum(s, all, "adam, adamw, sgd");
}

Recompute recomputeFromString(const std::string& s)
{
    static const Recompute all[] = {Recompute::None, Recompute::Selective, Recompute::Full};
    return parseEnum(s, all, "none, selective, full");
}

} // namespace orrery::workload
