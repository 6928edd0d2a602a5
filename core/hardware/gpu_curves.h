#pragma once

#include <string>

namespace orrery::hardware {

struct GpuType;

/**
 * How fast a GPU type runs the kernels of a training step, beyond its datasheet peaks: the
 * operator-level time model of core/estimate prices every GEMM and every memory-bound kernel with
 * these. Defaults for every catalog type come from published figures (docs/models/gpu-curves.md);
 * a measured calibration can replace them.
 */
struct GpuCurves
{
    /** Streaming multiprocessors (AMD: compute units): how many output tiles one wave of a GEMM fills. */
    int sms = 108;
    /** Fraction of the dense fp16/bf16 tensor peak that large GEMMs sustain during training (clocks under load). */
    double gemmEfficiency = 0.62;
    /** Fraction of the fp32 (non-tensor) peak that SGEMM sustains on large GEMMs. */
    double fp32GemmEfficiency = 0.85;
    /** Output-tile edge (elements) of the library's large-GEMM kernels: one wave covers sms tiles of tile x tile. */
    double tile = 128;
    /** Reduction depth (k) at which a GEMM's main loop reaches half its steady rate (prologue/epilogue cost). */
    double halfK = 48;
    /** Fraction of the datasheet memory bandwidth a streaming kernel sustains (STREAM/BabelStream copy). */
    double memoryEfficiency = 0.85;
    /** Shortest kernel on the GPU timeline, launch gap included (µs). */
    double kernelFloorUs = 4;
    /** Where the figures come from. */
    std::string source;
    /**
     * Fraction of the aligned rate a GEMM reaches when one of its dimensions is not a multiple of 16 bytes
     * of elements (GPT-2's 50,257-entry vocabulary): the library falls back to kernels without vectorised
     * (Hopper: TMA) loads. Measured by the profiler (docs/models/profiler.md).
     */
    double misalignedGemmEfficiency = 0.5;
    /**
     * Large FP8 GEMMs (Transformer Engine / torchao training) run this many times faster than bf16 ones on the
     * same shapes; 0: no FP8 tensor cores (before Ada and Hopper). Measured by the profiler where it ran
     * (docs/models/fp8.md); defaults in docs/models/gpu-curves.md.
     */
    double fp8GemmSpeedup = 0;
    /**
     * Rate of FlashAttention-2 kernels (PyTorch SDPA's flash backend, the flash-attn 2 package) as a fraction of the
     * large-GEMM rate; 0: they run at the GEMM curve of their (s x s x d) tiles, as on the parts they were written
     * for. Hopper: FlashAttention-2 keeps Ampere's mma.sync instructions (no wgmma, no TMA) and reaches a smaller
     * share of the peak than cuBLAS or Hopper-native attention (cuDNN, FlashAttention-3). docs/models/gpu-curves.md.
     */
    double flash2Efficiency = 0;

    bool operator==(const GpuCurves&) const = default;
};

/** The published-figure defaults for `gpu` (by catalog name; a generic profile for unknown types). */
const GpuCurves& defaultCurves(const GpuType& gpu);

/**
 * The CUDA compute capability's major version of `gpu` (9: Hopper, 8: Ampere and Ada, 7: Volta and Turing), by
 * catalog name; 8 for a type the table does not know, 0 for AMD parts. Libraries size their workspaces by it.
 */
int computeCapabilityMajor(const GpuType& gpu);

/** What the estimator runs `gpu` at: its measured curves (a calibration, docs/models/profiler.md) when it
 *  carries them, else defaultCurves(). */
const GpuCurves& curvesFor(const GpuType& gpu);

} // namespace orrery::hardware
