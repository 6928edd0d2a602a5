#include "estimate_test_helpers.h"
#include "test_support.h"

#include "estimate/operator_time.h"
#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "workload/model_library.h"

#include <cmath>

using namespace orrery;
using namespace orrery::estimate;
using workload::ModelLibrary;
using workload::ModelSpec;
using workload::TrainingConfig;

namespace {

TrainingConfig cfg(int batch, int seq, int micro = 0)
{
    TrainingConfig c;
    c.globalBatch = batch;
    c.seq = seq;
    c.microBatch = micro;
    return c;
}

PlanTarget target(const std::string& gpu, double interGBps = 25, int perNode = 8)
{
    return test::planTarget(gpu, perNode, interGBps);
}

} // namespace

class TestEstimateThroughput : public QObject
{
    Q_OBJECT
private slots:
    // Narayanan et al. 2021, eq. (3): 72 B s l h^2 (1 + s/6h + V/12lh) and 96 (...V/16lh) with recomputation.
    void megatronFlopsFormula()
    {
        ModelSpec m = ModelLibrary::builtin().at("gpt3-175b");
        const double B = 1536, s = 2048, l = 96, h = 12288, V = 50257;
        TrainingConfig c = cfg(1536, 2048);
        const double plain = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
        QVERIFY(std::abs(modelFlopsPerIteration(m, c) / plain - 1) < 1e-12);
        QVERIFY(std::abs(hardwareFlopsPerIteration(m, c) / plain - 1) < 1e-12);
        c.recompute = workload::Recompute::Full;
        const double recompute = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
        QVERIFY(std::abs(hardwareFlopsPerIteration(m, c) / recompute - 1) < 1e-12);
        QVERIFY(std::abs(modelFlopsPerIteration(m, c) / plain - 1) < 1e-12);
        // Selective recomputation re-runs only the attention core: + 4 s h per token per layer.
        c.recompute = workload::Recompute::Selective;
        QVERIFY(std::abs(hardwareFlopsPerIteration(m, c) - (plain + B * s * l * 4 * s * h)) / plain < 1e-12);
    }

    // Gated MLP and GQA: the matrices are counted as they are (LLaMA-2 70B: 8 KV heads, 3 MLP matrices).
    void gatedAndGqaFlops()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-70b");
        const double h = 8192, kv = 8 * 128, f = 28672, s = 4096, l = 80, V = 32000;
        const double perToken = l * 3 * (2 * (2 * h * h + 2 * h * kv + 3 * h * f) + 4 * s * h) + 3 * 2 * h * V;
        QVERIFY(std::abs(modelFlopsPerIteration(m, cfg(1, 4096)) / (s * perToken) - 1) < 1e-12);
    }

    // One GPU, no gradient accumulation: every layer's operator-level time (never below the host's issue time),
    // the embedding and the head, then the memory-bound optimizer step and the framework's per-iteration cost.
    void singleGpuIsLayersPlusOptimizerStep()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-350m");
        const PlanTarget a100 = target("a100-80gb-sxm");
        const TrainingConfig c = cfg(16, 1024);
        const ThroughputEstimate r = estimateThroughput(m, c, {1, 1, 1}, a100);
        const detail::KernelRates rates = detail::kernelRates(*a100.gpu, c.precision);
        const detail::FrameworkProfile& megatron = detail::frameworkProfile(workload::Framework::Megatron);
        const double layers = m.layers * detail::layerPassTimes(m, c, 1024, 16, 1, rates, megatron).wallS() +
                              detail::embeddingPassTimes(m, c, 1024, 16, 1, rates, megatron).wallS() +
                              detail::headPassTimes(m, c, 1024, 16, 1, rates, megatron).wallS();
        const double step = double(m.paramCount()) * (2 + 2 + 2 * 12) / rates.bytesPerS;
        QVERIFY(std::abs(r.iterationS - layers - step - megatron.iterationHostMs * 1e-3) < 1e-9);
        QVERIFY(std::abs(r.samplesPerS - 16 / r.iterationS) < 1e-9);
        QVERIFY(std::abs(r.tokensPerS - 16 * 1024 / r.iterationS) < 1e-6);
        QVERIFY(std::abs(r.mfu - r.tflopsPerGpu / 312) < 1e-12);
        QVERIFY(r.mfu < achievableEfficiency(*a100.gpu));
        // The closed-form FLOPs stay the yardstick: the GEMMs of the model cannot beat the large-GEMM rate.
        QVERIFY(r.iterationS > hardwareFlopsPerIteration(m, c) / rates.gemmFlops);
    }

    // GEMM efficiency saturates with size (wave fill, reduction depth) and a skinny GEMM is memory-bound.
    void gemmEfficiencySaturatesWithAMemoryFloor()
    {
        const auto& gpu = hardware::GpuCatalog::builtin().at("h100-sxm");
        const detail::KernelRates r = detail::kernelRates(gpu, workload::Precision::BF16);
        double previous = 0;
        for (double n : {256.0, 1024.0, 4096.0, 16384.0}) {
            const double rate = 2 * n * n * n / detail::gemmS(r, n, n, n);
            QVERIFY(rate > previous);
            QVERIFY(rate < r.gemmFlops);
            previous = rate;
        }
        QVERIFY(previous > 0.95 * r.gemmFlops);
        // m = 1: 2 n k FLOPs against n k weights read: bandwidth sets the time.
        const double n = 8192, k = 8192;
        const double memory = r.elementBytes * (k + k * n + n) / r.bytesPerS + r.launchGapS;
        QVERIFY(std::abs(detail::gemmS(r, 1, n, k) - memory) < 1e-12);
        // fp32 runs on the CUDA cores: slower than the tensor path.
        const detail::KernelRates fp32 = detail::kernelRates(gpu, workload::Precision::FP32);
        QVERIFY(detail::gemmS(fp32, 4096, 4096, 4096) > 5 * detail::gemmS(r, 4096, 4096, 4096));
    }

    // With pp = 1 the micro-batch size matters: small micro-batches of a small model are bound by per-kernel
    // and host costs, so gradient accumulation over b = 1 is much slower than b = 4 for the same batch.
    void microBatchSizeMattersWithoutPipeline()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-124m");
        const PlanTarget a100 = target("a100-80gb-sxm");
        const double b1 = estimateThroughput(m, cfg(64, 1024, 1), {8, 1, 1}, a100).iterationS;
        const double b4 = estimateThroughput(m, cfg(64, 1024, 4), {8, 1, 1}, a100).iterationS;
        const double b8 = estimateThroughput(m, cfg(64, 1024, 8), {8, 1, 1}, a100).iterationS;
        QVERIFY(b1 > 1.5 * b4);
        QVERIFY(b4 >= b8);
        // A large model with enough tokens per micro-batch is compute-bound: the micro-batch size changes little.
        const ModelSpec& big = ModelLibrary::builtin().at("llama2-70b");
        TrainingConfig c1 = cfg(64, 4096, 2), c4 = cfg(64, 4096, 8);
        c1.flashAttention = c4.flashAttention = true;
        c1.recompute = c4.recompute = workload::Recompute::Full;
        const double big1 = estimateThroughput(big, c1, {8, 8, 1}, target("h100-sxm")).iterationS;
        const double big4 = estimateThroughput(big, c4, {8, 8, 1}, target("h100-sxm")).iterationS;
        QVERIFY(big1 < 1.15 * big4);
    }

    // A tensor-parallel group larger than a node runs its all-reduces over the inter-node link.
    void tensorParallelAcrossNodesUsesTheNetwork()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt3-13b");
        TrainingConfig c = cfg(16, 2048, 1);
        c.flashAttention = true;
        const double slow16 = estimateThroughput(m, c, {1, 16, 1}, target("a100-80gb-sxm", 5)).iterationS;
        const double fast16 = estimateThroughput(m, c, {1, 16, 1}, target("a100-80gb-sxm", 100)).iterationS;
        QVERIFY(slow16 > 1.2 * fast16);
        const double slow8 = estimateThroughput(m, c, {1, 8, 1}, target("a100-80gb-sxm", 10)).iterationS;
        const double fast8 = estimateThroughput(m, c, {1, 8, 1}, target("a100-80gb-sxm", 100)).iterationS;
        QCOMPARE(slow8, fast8);
    }

    // Frameworks: eager code (unfused element-wise kernels, Python per op) is slower than Megatron's fused
    // kernels on the same GPU work; flash attention beats materialised scores at long sequences.
    void frameworkAndAttentionKernels()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt3-1.3b");
        const PlanTarget a100 = target("a100-80gb-sxm");
        TrainingConfig c = cfg(8, 2048, 8);
        const double megatron = estimateThroughput(m, c, {1, 1, 1}, a100).iterationS;
        c.framework = workload::Framework::HF;
        const double hf = estimateThroughput(m, c, {1, 1, 1}, a100).iterationS;
        QVERIFY(hf > megatron);
        c.flashAttention = true;
        QVERIFY(estimateThroughput(m, c, {1, 1, 1}, a100).iterationS < hf);
    }

    // The data-parallel ring all-reduce uses the inter-node link once dp * tp exceeds a node: with k ranks
    // of the group per node it crosses the boundary on k NICs at once (NCCL channels), capped by NVLink.
    void dataParallelUsesSlowestLink()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-124m");
        const TrainingConfig c = cfg(128, 1024);
        const double bytes = 2.0 * double(m.paramCount());
        const double slow = estimateThroughput(m, c, {16, 1, 1}, target("a100-40gb-sxm", 10)).iterationS;
        const double fast = estimateThroughput(m, c, {16, 1, 1}, target("a100-40gb-sxm", 100)).iterationS;
        // 8 ranks per node: 8 x 10 = 80 GB/s; 8 x 100 capped by the 300 GB/s NVLink.
        QVERIFY(std::abs((slow - fast) - 2.0 * 15 / 16 * bytes * (1 / 80e9 - 1 / 300e9)) < 1e-9);
        // tp = 8: one rank of each data-parallel group per node, the eight groups share the node's NICs.
        const ModelSpec& big = ModelLibrary::builtin().at("gpt3-6.7b");
        TrainingConfig cb = cfg(64, 2048);
        cb.microBatch = 1;
        const double s8 = estimateThroughput(big, cb, {4, 8, 1}, target("a100-40gb-sxm", 10)).iterationS;
        const double f8 = estimateThroughput(big, cb, {4, 8, 1}, target("a100-40gb-sxm", 20)).iterationS;
        const double perGpuBytes = 2.0 * (double(big.paramCount()) - 2048.0 * 4096 * 7 / 8) / 8; // positions replicated
        QVERIFY(s8 - f8 > 0.9 * 2.0 * 3 / 4 * perGpuBytes * (1 / 10e9 - 1 / 20e9));
        QVERIFY(s8 - f8 < 1.1 * 2.0 * 3 / 4 * perGpuBytes * (1 / 10e9 - 1 / 20e9));
        // Within one node the inter-node link does not matter.
        const double in1 = estimateThroughput(m, c, {8, 1, 1}, target("a100-40gb-sxm", 10)).iterationS;
        const double in2 = estimateThroughput(m, c, {8, 1, 1}, target("a100-40gb-sxm", 100)).iterationS;
        QCOMPARE(in1, in2);
        // The five-argument form assumes 8 GPUs per node.
        const PlanTarget t = target("a100-40gb-sxm", 10);
        QCOMPARE(estimateThroughput(m, c, {16, 1, 1}, *t.gpu, t.intraNode, t.interNode).iterationS, slow);
    }

    // 1F1B: an iteration is (m + p - 1) micro-batch slots plus the constant tail.
    void pipelineBubble()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt3-6.7b");
        const PlanTarget a100 = target("a100-80gb-sxm");
        const int p = 4;
        const double t4 = estimateThroughput(m, cfg(4, 2048, 1), {1, 1, p}, a100).iterationS;
        const double t8 = estimateThroughput(m, cfg(8, 2048, 1), {1, 1, p}, a100).iterationS;
        const double t12 = estimateThroughput(m, cfg(12, 2048, 1), {1, 1, p}, a100).iterationS;
        const double slot = (t8 - t4) / 4;
        QVERIFY(std::abs((t12 - t8) - (t8 - t4)) < 1e-9);
        const double tail = t4 - (4 + p - 1) * slot; // optimizer step of the largest stage
        QVERIFY(tail > 0 && tail < 0.5 * slot);
    }

    // A heterogeneous pipeline runs at the pace of its slowest stage.
    void heterogeneousPipelineSlowestStageSetsPace()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt3-2.7b");
        const auto& catalog = hardware::GpuCatalog::builtin();
        const auto* a100 = &catalog.at("a100-80gb-sxm");
        const auto* v100 = &catalog.at("v100-32gb");
        const hardware::Link ib{hardware::LinkKind::InfiniBand, 25, 5};
        const TrainingConfig c = cfg(32, 2048, 1);
        const double mixed = estimatePipelineThroughput(m, c, {1, 1, 2}, {a100, v100}, ib).iterationS;
        const double slow = estimatePipelineThroughput(m, c, {1, 1, 2}, {v100, v100}, ib).iterationS;
        const double fast = estimatePipelineThroughput(m, c, {1, 1, 2}, {a100, a100}, ib).iterationS;
        // Same pace per micro-batch; only the optimizer-step tail (embedding vs head stage) differs slightly.
        QVERIFY(std::abs(mixed / slow - 1) < 1e-4);
        QVERIFY(fast < mixed);
        QVERIFY_THROWS_EXCEPTION(Error, estimatePipelineThroughput(m, c, {1, 1, 2}, {a100}, ib));
    }

    void propertySamplesPerSecondGrowWithBatch()
    {
        ORRERY_CHECK_PROPERTY("samples/s non-decreasing in batch at fixed parallelism", [] {
            const auto& lib = ModelLibrary::builtin();
            const auto& catalog = hardware::GpuCatalog::builtin();
            const ModelSpec& m = lib.models()[*rc::gen::inRange<std::size_t>(0, lib.models().size())];
            PlanTarget t = target(catalog.types()[*rc::gen::inRange<std::size_t>(0, catalog.size())].name,
                                  *rc::gen::element(10.0, 25.0, 50.0));
            Parallelism par{*rc::gen::inRange(1, 32), *rc::gen::element(1, 2, 4, 8), *rc::gen::inRange(1, 5)};
            TrainingConfig c =
                cfg(*rc::gen::inRange(1, 512), *rc::gen::element(512, 1024, 2048), *rc::gen::element(0, 1, 2));
            c.recompute =
                *rc::gen::element(workload::Recompute::None, workload::Recompute::Selective, workload::Recompute::Full);
            c.zeroStage = *rc::gen::inRange(0, 4);
            const ThroughputEstimate base = estimateThroughput(m, c, par, t);
            RC_ASSERT(base.iterationS > 0);
            RC_ASSERT(base.mfu > 0 && base.mfu < 1);
            TrainingConfig more = c;
            more.globalBatch += *rc::gen::inRange(1, 512);
            RC_ASSERT(estimateThroughput(m, more, par, t).samplesPerS >= base.samplesPerS * (1 - 1e-12));
        });
    }

    void layerProfileMatchesTheWholeModel()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-7b");
        const auto& gpu = hardware::GpuCatalog::builtin().at("a100-80gb-sxm");
        TrainingConfig c = cfg(8, 4096, 1);
        c.flashAttention = true;
        const LayerProfile profile = profileLayers(m, c, gpu, 2);
        QCOMPARE(profile.layers.size(), std::size_t(m.layers + 2));
        QCOMPARE(profile.layers.front().name, std::string("embedding"));
        QCOMPARE(profile.layers.back().name, std::string("head"));
        double flops = 0, activations = 0;
        for (const auto& layer : profile.layers) {
            flops += layer.flopsForward;
            activations += layer.activationBytes;
            QVERIFY(layer.backwardS >= layer.forwardS || layer.name == "embedding");
        }
        // 3 passes over the whole model on 2 GPUs = one micro-batch's share of the iteration's FLOPs.
        QVERIFY(std::abs(3 * flops * 2 / hardwareFlopsPerIteration(m, cfg(1, 4096)) - 1) < 1e-12);
        // Per-layer activations agree with the memory model (one micro-batch, pp = 1).
        const MemoryBreakdown mem = estimateMemory(m, c, {1, 2, 1});
        QVERIFY(std::abs(activations - mem.activationsGiB * 1024.0 * 1024 * 1024) < 1);
    }
};

QTEST_GUILESS_MAIN(TestEstimateThroughput)
#include "test_estimate_throughput.moc"
