#include "hardware/gpu_curves.h"

#include "hardware/gpu_type.h"

#include <array>
#include <string_view>

namespace orrery::hardware {

namespace {

struct Entry
{
    std::string_view prefix; ///< catalog name prefix
    GpuCurves curves;
    int computeMajor = 8; ///< CUDA compute capability, major (0: not CUDA)
};

// Every figure is documented with its source in docs/models/gpu-curves.md. SM / CU counts: the vendors'
// datasheets and architecture whitepapers. GEMM efficiencies: the fraction of the dense bf16/fp16 peak that
// large GEMMs sustain *during training* (power-limited clocks included): fitted to the large-model rows of
// data/validation for A100, H100 and V100, the others scaled from the published isolated-cuBLAS figures by
// the A100's ratio (0.70 / 0.82). Memory efficiency: published BabelStream / STREAM-copy figures over the
// datasheet bandwidth. Kernel floor: the launch-to-launch gap of back-to-back small kernels (~4 µs NVIDIA,
// ~6 µs ROCm).
// FP8 GEMMs against bf16 ones on the same large shapes (docs/models/fp8.md). Hopper: our profiler's fits on an
// H100 SXM (1331 vs 742 TFLOP/s) and an H200 (1311 vs 743), data/calibration/*-2026-11-26.json; the datasheets
// promise 2x (1979 vs 989 dense). Ada (L4, L40S, RTX 4090): the datasheets' 2x fp8/bf16 (fp32 accumulate)
// ratio, scaled by the share of it Hopper was measured to keep (1.78 / 2). Older parts: no FP8 tensor cores.
constexpr double kHopperFp8 = 1.78;
// FlashAttention-2 on Hopper: PyTorch SDPA's flash backend measured 287-304 TFLOP/s forward on an H100 SXM (head
// dim 128, sequences 1K-16K; pytorch/benchmark PR #2296) against 742 TFLOP/s of large cuBLAS bf16 GEMMs on the
// same part (our profiler, data/calibration/h100-sxm-2026-11-26.json): 0.40 of the GEMM rate, flat in the
// sequence length. The FlashAttention-3 paper's "only 35% utilization on H100" for FlashAttention-2 agrees.
constexpr double kHopperFlash2 = 0.40;
constexpr double kAdaFp8 = 2.0 * kHopperFp8 / 2.0;

const std::array kTable{
    // Hopper: cuBLAS bf16 reaches ~0.75 of the 989 TFLOP/s dense peak on large GEMMs; HBM3 copy ~0.9. In
    // training, 0.60 of the peak: fitted on the runs of current software (our own PyTorch 2.11 / CUDA 13 steps on
    // an H200 and an H100, 2026-11-26/27, and torchtitan's 2024-25 H100 benchmarks); MosaicML's early-2023 H100
    // table (torch 1.13) ran ~10 % slower (docs/models/gpu-curves.md).
    // Misaligned GEMMs: 0.22 of the aligned in-training rate, measured on an H200 (GPT-2's three logits GEMMs
    // in a PyTorch training step, docs/models/profiler.md); the same fallback kernels (sm75-era mma.sync,
    // no TMA) serve every Hopper part.
    Entry{"h100-sxm",
          {132, 0.60, 0.85, 128, 64, 0.90, 4, "H100 SXM5: 132 SMs (NVIDIA H100 whitepaper)", 0.22, kHopperFp8,
           kHopperFlash2},
          9},
    Entry{"h200",
          {132, 0.60, 0.85, 128, 64, 0.90, 4, "H200: GH100 die of H100 SXM, 132 SMs; HBM3e", 0.22, kHopperFp8,
           kHopperFlash2},
          9},
    Entry{"h100-pcie",
          {114, 0.62, 0.85, 128, 64, 0.90, 4, "H100 PCIe: 114 SMs (NVIDIA H100 whitepaper)", 0.22, kHopperFp8,
           kHopperFlash2},
          9},
    // Ampere datacenter: cuBLAS bf16 ~0.82 of 312 TFLOP/s on large GEMMs; HBM2e copy ~0.88.
    Entry{"a100", {108, 0.70, 0.90, 128, 48, 0.88, 4, "A100: 108 SMs (NVIDIA A100 whitepaper)"}},
    Entry{"a800", {108, 0.70, 0.90, 128, 48, 0.88, 4, "A800: A100 die, 108 SMs"}},
    Entry{"a30", {56, 0.70, 0.90, 128, 48, 0.88, 4, "A30: 56 SMs (NVIDIA A30 datasheet)"}},
    // Ampere / Ada workstation and inference parts (GDDR6): the tensor peak counted with fp32 accumulation.
    Entry{"a10", {72, 0.68, 0.90, 128, 48, 0.85, 4, "A10: 72 SMs (NVIDIA A10 datasheet)"}},
    Entry{"a4000", {48, 0.68, 0.90, 128, 48, 0.85, 4, "RTX A4000: 48 SMs"}},
    Entry{"a6000", {84, 0.68, 0.90, 128, 48, 0.85, 4, "RTX A6000: 84 SMs"}},
    Entry{"rtx3090", {82, 0.68, 0.90, 128, 48, 0.85, 4, "RTX 3090: 82 SMs"}},
    Entry{"rtx4090", {128, 0.68, 0.90, 128, 48, 0.85, 4, "RTX 4090: 128 SMs", 0.5, kAdaFp8}},
    Entry{"l40s", {142, 0.62, 0.90, 128, 48, 0.85, 4, "L40S: 142 SMs (NVIDIA L40S datasheet)", 0.5, kAdaFp8}},
    Entry{"l4",
          {58, 0.55, 0.90, 128, 48, 0.85, 4, "L4: 58 SMs; 72 W part, clocks drop under sustained GEMM", 0.5, kAdaFp8}},
    // Volta / Turing: cuBLAS HGEMM ~0.8 of the tensor peak; HBM2 copy ~0.85.
    Entry{"v100", {80, 0.55, 0.90, 128, 32, 0.85, 4, "V100: 80 SMs (NVIDIA V100 whitepaper)"}, 7},
    Entry{"t4", {40, 0.50, 0.90, 128, 32, 0.85, 4, "T4: 40 SMs; 70 W part, clocks drop under sustained GEMM"}, 7},
    Entry{"rtx2080ti", {68, 0.55, 0.90, 128, 32, 0.85, 4, "RTX 2080 Ti: 68 SMs"}, 7},
    Entry{"quadro-rtx6000", {72, 0.55, 0.90, 128, 32, 0.85, 4, "Quadro RTX 6000: 72 SMs"}, 7},
    // Pascal / Kepler: no tensor cores; the fp16 peak is the packed-half SIMT rate.
    Entry{"p100", {56, 0.68, 0.90, 64, 32, 0.80, 5, "P100: 56 SMs (NVIDIA P100 whitepaper)"}, 6},
    Entry{"k80", {13, 0.68, 0.80, 64, 32, 0.75, 6, "K80: one GK210 die, 13 SMs"}, 3},
    // CDNA: rocBLAS / hipBLASLt reach about half the bf16 dense peak on large GEMMs; HBM copy ~0.8.
    Entry{"mi300x", {304, 0.40, 0.80, 256, 64, 0.80, 6, "MI300X: 304 CUs (AMD CDNA 3 whitepaper)"}, 0},
    Entry{"mi250x", {220, 0.42, 0.80, 256, 64, 0.80, 6, "MI250X: 2 x 110 CUs (AMD CDNA 2 whitepaper)"}, 0},
};

// A type added by a scenario or a calibration file without curves: a mid-range tensor-core part.
const GpuCurves kGeneric{100, 0.62, 0.85, 128, 48, 0.85, 4, "generic default (no published figures)"};

} // namespace

const GpuCurves& defaultCurves(const GpuType& gpu)
{
    for (const Entry& e : kTable)
        if (std::string_view(gpu.name).starts_with(e.prefix))
            return e.curves;
    return kGeneric;
}

int computeCapabilityMajor(const GpuType& gpu)
{
    for (const Entry& e : kTable)
        if (std::string_view(gpu.name).starts_with(e.prefix))
            return e.computeMajor;
    return 8;
}

const GpuCurves& curvesFor(const GpuType& gpu)
{
    return gpu.curves ? *gpu.curves : defaultCurves(gpu);
}

} // namespace orrery::hardware
