#pragma once

#include <string>

namespace orrery::serve {

/** How one device group runs its models: `stages` inter-op (pipeline) stages of `intra` GPUs each. */
struct ParallelConfig
{
    int stages = 1; ///< inter-op degree
    int intra = 1;  ///< intra-op (tensor-parallel) degree
    int gpus() const { return stages * intra; }
    bool operator==(const ParallelConfig&) const = default;
    auto operator<=>(const ParallelConfig&) const = default;
    /** `(inter, intra)` as the paper writes it, e.g. `(4, 8)`. */
    std::string label() const { return "(" + std::to_string(stages) + ", " + std::to_string(intra) + ")"; }
};

} // namespace orrery::serve
