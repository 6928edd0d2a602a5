#include "estimate_test_helpers.h"
#include "test_support.h"

#include "estimate/model_terms.h"
#include "estimate/operator_time.h"
#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "hardware/gpu_curves.h"
#include "workload/model_library.h"

#include <cmath>

// What the libraries under a framework add to a step (docs/models/memory.md, "Library workspaces";
// docs/models/context-parallel.md, "PyTorch's ring"): the cuBLAS workspaces PyTorch and Transformer Engine allocate,
// FlashAttention-2's rate on Hopper, and the bookkeeping of PyTorch's 2024 ring attention.

using namespace orrery;
using namespace orrery::estimate;
using workload::Framework;
using workload::ModelLibrary;
using workload::ModelSpec;
using workload::TrainingConfig;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

const hardware::GpuType& gpu(const std::string& name)
{
    return hardware::GpuCatalog::builtin().at(name);
}

/** `base` with its published curves, FlashAttention-2 priced at the GEMM curve of its tiles. */
hardware::GpuType withoutFlash2Rate(const hardware::GpuType& base)
{
    hardware::GpuType t = base;
    t.curves = hardware::defaultCurves(base);
    t.curves->flash2Efficiency = 0;
    return t;
}

TrainingConfig longSequence(Framework framework, int seq)
{
    TrainingConfig c;
    c.globalBatch = 1;
    c.microBatch = 1;
    c.seq = seq;
    c.flashAttention = true;
    c.recompute = workload::Recompute::Full;
    c.framework = framework;
    return c;
}

double iterationS(const ModelSpec& m, const TrainingConfig& c, const Parallelism& par, const hardware::GpuType& type)
{
    PlanTarget t;
    t.gpu = &type;
    t.intraNode = type.intraLink;
    t.interNode = {hardware::LinkKind::InfiniBand, 50, 5};
    t.gpusPerNode = 8;
    return estimateThroughput(m, c, par, t).iterationS;
}

} // namespace

class TestEstimateLibraryOverheads : public QObject
{
    Q_OBJECT
private slots:
    void workspacesTakeTheGpusSizes()
    {
        // Only the workspaces depend on the GPU type in the memory model: the difference between a Hopper and an
        // Ampere part is theirs alone, and they are allocated (no slack, no context).
        const ModelSpec& dense = ModelLibrary::builtin().at("llama3-8b");
        const ModelSpec& moe = ModelLibrary::builtin().at("mixtral-8x7b");
        TrainingConfig c;
        c.globalBatch = 8;
        c.microBatch = 1;
        c.seq = 4096;
        c.flashAttention = true;
        c.zeroStage = 1;
        const Parallelism par{8, 1, 1};
        bool consistent = true;
        const auto delta = [&](const ModelSpec& m, Framework f) {
            c.framework = f;
            const MemoryBreakdown hopper = estimateMemory(m, c, par, &gpu("h100-sxm"));
            const MemoryBreakdown ampere = estimateMemory(m, c, par, &gpu("a100-80gb-sxm"));
            const double allocated = hopper.allocatedGiB() - ampere.allocatedGiB();
            consistent = consistent && std::abs(hopper.reservedGiB() - ampere.reservedGiB() - allocated) < 1e-12;
            // Without a GPU type: the pre-Hopper sizes.
            consistent = consistent && estimateMemory(m, c, par).allocatedGiB() == ampere.allocatedGiB();
            return allocated * kGiB / kMiB;
        };
        // PyTorch's two (forward thread, autograd): 32 MiB on sm90 against 8 MiB + 128 KiB.
        const double torch = 2 * (32 - 8.125);
        QVERIFY(std::abs(delta(dense, Framework::PyTorch) - torch) < 1e-6);
        QVERIFY(std::abs(delta(dense, Framework::Fsdp) - torch) < 1e-6);
        // Megatron-Core runs its GEMMs through Transformer Engine: one more workspace (32 MiB against 4), and four
        // more for the experts' grouped GEMMs. The MoE functional test's golden values differ by this between the
        // DGX H100 and DGX A100 static memory: 146,647,040 B = 139.9 MiB against 5 x 28 MiB.
        QVERIFY(std::abs(delta(dense, Framework::Megatron) - (torch + 28)) < 1e-6);
        QVERIFY(std::abs(delta(moe, Framework::Megatron) - (torch + 5 * 28)) < 1e-6);
        QVERIFY(consistent);
        // The absolute sizes.
        c.framework = Framework::Fsdp;
        QCOMPARE(detail::libraryWorkspaceBytes(dense, c, &gpu("a100-80gb-sxm")), 2 * 8.125 * kMiB);
        QCOMPARE(detail::libraryWorkspaceBytes(moe, c, &gpu("v100-16gb")), 2 * 8.125 * kMiB);
        c.framework = Framework::Megatron;
        QCOMPARE(detail::libraryWorkspaceBytes(moe, c, &gpu("a100-80gb-sxm")), (2 * 8.125 + 5 * 4) * kMiB);
        QCOMPARE(detail::libraryWorkspaceBytes(moe, c, &gpu("h200")), (2 * 32 + 5 * 32) * kMiB);
    }

    void flashAttention2RunsAtItsShareOfTheGemmRateOnHopper()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama3-8b");
        const hardware::GpuType& h100 = gpu("h100-sxm");
        const hardware::GpuType gemmCurve = withoutFlash2Rate(h100);
        QCOMPARE(hardware::defaultCurves(h100).flash2Efficiency, 0.40);
        QCOMPARE(hardware::defaultCurves(gpu("a100-80gb-sxm")).flash2Efficiency, 0.0);
        // One layer's attention, forward: the causal half of two kernels' worth (Q K^T and P V, 2 s^2 d FLOPs each per
        // head, with a launch gap each) at 0.40 of the GEMM rate.
        const TrainingConfig c = longSequence(Framework::PyTorch, 32768);
        const detail::KernelRates r = detail::kernelRates(h100, c.precision);
        const detail::PassTimes pass =
            detail::layerPassTimes(m, c, 32768, 1, 1, r, detail::frameworkProfile(Framework::PyTorch));
        const double perProduct = 2.0 * 32768.0 * 32768.0 * m.headDim() * m.heads;
        const double expected = 0.5 * 2 * (perProduct / (r.gemmFlops * 0.40) + r.launchGapS);
        QVERIFY(std::abs(pass.attentionForwardS / expected - 1) < 1e-12);
        QVERIFY(std::abs(pass.attentionBackwardS / pass.attentionForwardS - 2.5) < 1e-12);
        // At 32K tokens attention dominates: the eager frameworks are slower with the Hopper rate, Megatron (cuDNN
        // fused attention through Transformer Engine) does not use it.
        for (Framework f : {Framework::PyTorch, Framework::Fsdp, Framework::HF, Framework::LitGpt})
            QVERIFY(iterationS(m, longSequence(f, 32768), {1, 1, 1}, h100) >
                    1.2 * iterationS(m, longSequence(f, 32768), {1, 1, 1}, gemmCurve));
        const TrainingConfig megatron = longSequence(Framework::Megatron, 32768);
        QCOMPARE(iterationS(m, megatron, {1, 1, 1}, h100), iterationS(m, megatron, {1, 1, 1}, gemmCurve));
    }

    void torchRingBookkeepingGrowsWithTheRing()
    {
        // fsdp (torchtitan) and pytorch share the eager kernels and FlashAttention-2; at a fixed 32K tokens per rank,
        // zero 0 and one data-parallel rank, what separates them beyond a constant is PyTorch's ring: per step after
        // the first, (e + 4) + 12 + 8 + 12 + 4e bytes per element of the rank's attention output forward (twice under
        // full recomputation) and 3 (8 + e) + 16 + 16 + 4e backward, on every layer. Its exchange (h-wide K and V,
        // fp32 dK and dV) hides under attention on NVLink.
        const ModelSpec& m = ModelLibrary::builtin().at("llama3-8b");
        const hardware::GpuType& h100 = gpu("h100-sxm");
        const auto gap = [&](int cp) {
            TrainingConfig fsdp = longSequence(Framework::Fsdp, 32768 * cp);
            fsdp.optimizer = workload::Optimizer::SGD; // the optimizer steps of the two profiles differ: keep it small
            TrainingConfig plain = fsdp;
            plain.framework = Framework::PyTorch;
            const Parallelism par{1, 1, 1, 1, cp};
            return iterationS(m, fsdp, par, h100) - iterationS(m, plain, par, h100);
        };
        const double e = 2;
        const double perStep = 2 * ((e + 4) + 12 + 8 + 12 + 4 * e) + (3 * (8 + e) + 16 + 16 + 4 * e);
        const detail::KernelRates r = detail::kernelRates(h100, workload::Precision::BF16);
        const double outputBytes = 32768.0 * m.hidden;
        for (int cp : {2, 4, 8}) {
            const double expected = m.layers * (cp - 1) * perStep * outputBytes / r.bytesPerS;
            QVERIFY2(std::abs((gap(cp) - gap(1)) / expected - 1) < 0.02,
                     qPrintable(QString("cp %1: %2 s against %3 s").arg(cp).arg(gap(cp) - gap(1)).arg(expected)));
        }
    }
};

QTEST_GUILESS_MAIN(TestEstimateLibraryOverheads)
#include "test_estimate_library_overheads.moc"
