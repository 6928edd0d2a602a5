#include "test_support.h"

#include "estimate/frenzy_memory.h"
#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "util/units.h"
#include "workload/model_library.h"

#include <cmath>

using namespace orrery;
using namespace orrery::estimate;
using workload::ModelLibrary;
using workload::ModelSpec;
using workload::TrainingConfig;

namespace {

// The cuBLAS workspaces of a Megatron step without a GPU type (pre-Hopper sizes): PyTorch's two (8 MiB + 128 KiB
// each) and Transformer Engine's (4 MiB); docs/models/memory.md, "Library workspaces".
constexpr double kMegatronWorkspaces = (2 * 8.125 + 4) * 1024 * 1024;

TrainingConfig cfg(int batch, int seq)
{
    TrainingConfig c;
    c.globalBatch = batch;
    c.seq = seq;
    return c;
}

double frenzyBytes(const ModelSpec& m, int batch, int seq, Parallelism par, MemoryMode mode = MemoryMode::Frenzy)
{
    return frenzyRequiredBytes(m, cfg(batch, seq), par, mode);
}

/** Random decoder shapes: hidden a multiple of heads, GQA or not, gated or not. */
rc::Gen<ModelSpec> genModel()
{
    return rc::gen::exec([] {
        ModelSpec m;
        m.name = "random";
        m.family = *rc::gen::element(std::string("gpt2"), std::string("llama"));
        m.heads = *rc::gen::element(4, 8, 16, 32);
        m.kvHeads = *rc::gen::element(m.heads, m.heads / 4);
        m.hidden = m.heads * *rc::gen::element(32, 64, 128);
        m.layers = *rc::gen::inRange(1, 48);
        m.vocab = *rc::gen::inRange(1000, 130000);
        m.gatedMlp = *rc::gen::arbitrary<bool>();
        m.ffnHidden = m.gatedMlp ? (m.hidden * 8) / 3 : 4 * m.hidden;
        m.bias = !m.gatedMlp;
        m.tiedEmbeddings = *rc::gen::arbitrary<bool>();
        m.positions = m.gatedMlp ? 0 : 1024;
        m.seq = 1024;
        return m;
    });
}

rc::Gen<TrainingConfig> genConfig()
{
    return rc::gen::exec([] {
        TrainingConfig c;
        c.globalBatch = *rc::gen::inRange(1, 256);
        c.seq = *rc::gen::element(128, 512, 1024, 2048, 4096);
        c.precision =
            *rc::gen::element(workload::Precision::BF16, workload::Precision::FP16, workload::Precision::FP32);
        c.optimizer =
            *rc::gen::element(workload::Optimizer::Adam, workload::Optimizer::AdamW, workload::Optimizer::SGD);
        c.recompute =
            *rc::gen::element(workload::Recompute::None, workload::Recompute::Selective, workload::Recompute::Full);
        c.zeroStage = *rc::gen::inRange(0, 4);
        c.flashAttention = *rc::gen::arbitrary<bool>();
        c.sequenceParallel = *rc::gen::arbitrary<bool>();
        return c;
    });
}

rc::Gen<Parallelism> genPar(const ModelSpec& m)
{
    return rc::gen::exec([m] {
        Parallelism p;
        p.dp = *rc::gen::inRange(1, 64);
        p.tp = *rc::gen::element(1, 2, 4);
        p.pp = *rc::gen::inRange(1, std::min(8, m.layers) + 1);
        return p;
    });
}

} // namespace

class TestEstimateMemory : public QObject
{
    Q_OBJECT
private slots:
    // Spec A.10.2, U-F2.
    void frenzyParamCounts()
    {
        const auto& lib = ModelLibrary::builtin();
        QCOMPARE(frenzyParamCount(lib.at("gpt2-350m")), 353772544.0);
        QCOMPARE(frenzyParamCount(lib.at("gpt2-7b")), 6650007552.0);
    }

    // Spec A.10.2, U-F3: GPT2-350M, s = 1024, B = 8.
    void frenzyWorkedExampleGpt2Medium()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-350m");
        MemoryBreakdown one = estimateMemory(m, cfg(8, 1024), {1, 1, 1}, MemoryMode::Frenzy);
        const double staticGiB = one.weightsGiB + one.gradientsGiB + one.optimizerGiB;
        QCOMPARE(std::round(staticGiB * 1000) / 1000, 6.590);
        QCOMPARE(one.activationsGiB, 21.375); // 1024*8*1024*24*(10+24+80) bytes, exactly
        QCOMPARE(std::round(one.totalGiB() * 1000) / 1000, 27.965);
        QCOMPARE(one.overheadGiB, 0.0);

        MemoryBreakdown d2 = estimateMemory(m, cfg(8, 1024), {2, 1, 1}, MemoryMode::Frenzy);
        QCOMPARE(d2.activationsGiB, 10.6875);
        QCOMPARE(d2.weightsGiB + d2.gradientsGiB + d2.optimizerGiB, staticGiB);

        MemoryBreakdown t2 = estimateMemory(m, cfg(8, 1024), {1, 2, 1}, MemoryMode::Frenzy);
        QCOMPARE(std::round((t2.weightsGiB + t2.gradientsGiB + t2.optimizerGiB) * 1000) / 1000, 3.295);
        QCOMPARE(t2.activationsGiB, 11.625); // the 10 term is not divided by t
    }

    // Spec A.10.1 table: GPT2-7B, B = 2, s = 1024, bytes.
    void frenzyGpt27bTable()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-7b");
        QCOMPARE(frenzyBytes(m, 2, 1024, {2, 4, 1}), 33250037760.0 + 3489660928.0);
        QVERIFY(std::abs(frenzyBytes(m, 2, 1024, {1, 8, 1}) - 21.457e9) < 1e6);
        QVERIFY(std::abs(frenzyBytes(m, 2, 1024, {1, 4, 1}) - 40.229e9) < 1e6);
        QVERIFY(std::abs(frenzyBytes(m, 2, 1024, {2, 2, 1}) - 72.137e9) < 1e6);
        QVERIFY(std::abs(frenzyBytes(m, 2, 1024, {1, 1, 1}) - 152.864e9) < 1e6);
        // The printed condition divides by d twice.
        QVERIFY(std::abs(frenzyBytes(m, 2, 1024, {2, 4, 1}, MemoryMode::FrenzyLiteral) - 34.995e9) < 1e6);
        QCOMPARE(frenzyBytes(m, 2, 1024, {1, 4, 1}, MemoryMode::FrenzyLiteral), frenzyBytes(m, 2, 1024, {1, 4, 1}));
    }

    // Spec A.10.1, U-F1: "GPT2-7B with batch 2 needs 8 A100s (t = 4, d = 2)".
    void frenzyPlansGpt27bNeedEightA100()
    {
        const auto& catalog = hardware::GpuCatalog::builtin();
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-7b");
        for (double capacity : {0.0, 40e9}) {
            PlanTarget a100;
            a100.gpu = &catalog.at("a100-40gb-sxm");
            a100.maxGpus = 64;
            a100.gpusPerNode = 8;
            a100.intraNode = a100.gpu->intraLink;
            a100.interNode = {hardware::LinkKind::InfiniBand, 25, 5};
            a100.capacityBytes = capacity; // 0: the nominal 40 GB in decimal units
            PlanOptions options;
            options.mode = MemoryMode::Frenzy;
            const auto plans = rankPlans(m, cfg(2, 1024), {a100}, options);
            QVERIFY(plans.size() >= 2);
            QCOMPARE(plans[0].count, 8);
            QCOMPARE(plans[0].par, (Parallelism{2, 4, 1}));
            QVERIFY(std::abs(plans[0].memoryGiB * kGiB - 36.740e9) < 1e6);
            QCOMPARE(plans[1].count, 8);
            QCOMPARE(plans[1].par, (Parallelism{1, 8, 1}));
            QVERIFY(std::abs(plans[1].memoryGiB * kGiB - 21.457e9) < 1e6);
            for (const auto& p : plans)
                QVERIFY(p.count >= 8);
            QCOMPARE(plans[0].gpu, std::string("a100-40gb-sxm"));
            QCOMPARE(plans[0].usdPerHour, 8 * a100.gpu->priceUsdPerHour);
            QVERIFY(plans[0].samplesPerS > 0);
        }
    }

    // Sensitivity noted in spec A.10.1: with 40 GiB, N = 4 (d=1, t=4) fits.
    void frenzyCapacityInGiBChangesTheAnswer()
    {
        const auto& catalog = hardware::GpuCatalog::builtin();
        PlanTarget a100;
        a100.gpu = &catalog.at("a100-40gb-sxm");
        a100.maxGpus = 64;
        a100.capacityBytes = 40 * kGiB;
        PlanOptions options;
        options.mode = MemoryMode::Frenzy;
        const auto plans = rankPlans(ModelLibrary::builtin().at("gpt2-7b"), cfg(2, 1024), {a100}, options);
        QVERIFY(!plans.empty());
        QCOMPARE(plans[0].par, (Parallelism{1, 4, 1}));
    }

    // Full mode, computed by hand: GPT-2 124M, B = 8, s = 1024, bf16 + Adam, one GPU.
    void fullModeGpt2SmallByHand()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-124m");
        const MemoryBreakdown r = estimateMemory(m, cfg(8, 1024), {1, 1, 1});
        const double P = 124439808;
        QCOMPARE(r.weightsGiB * kGiB, 2 * P);
        QCOMPARE(r.gradientsGiB * kGiB, 2 * P);
        QCOMPARE(r.optimizerGiB * kGiB, 12 * P);
        const double sbh = 1024.0 * 8 * 768;
        const double perLayer = 34 * sbh + 5.0 * 12 * 1024 * 1024 * 8; // Korthikanti: sbh(34 + 5as/h)
        const double logits = 4.0 * 1024 * 8 * 50257;
        const double act = 12 * perLayer + sbh /*embedding dropout*/ + 4 * sbh /*final norm + head inputs*/ + logits;
        QVERIFY(std::abs(r.activationsGiB * kGiB - act) < 1);
        // Logits gradient in the compute precision (bf16: 2 B), plus the allocator slack of 10% of the
        // per-step allocations.
        const double logitsGrad = 2.0 * 1024 * 8 * 50257;
        QVERIFY(std::abs(r.temporaryGiB() * kGiB - (logitsGrad + 0.1 * (act + logitsGrad) + kMegatronWorkspaces)) < 1);
        QCOMPARE(r.contextGiB, 0.5);
        QVERIFY(std::abs(r.slackGiB * kGiB - 0.1 * (act + logitsGrad)) < 1);
        QVERIFY(std::abs(r.reservedGiB() - (r.totalGiB() - 0.5)) < 1e-12);
        QVERIFY(std::abs(r.allocatedGiB() - (r.totalGiB() - 0.5 - r.slackGiB)) < 1e-12);
    }

    // Full mode options against hand-derived per-layer terms (LLaMA-2 7B: no dropout, gated MLP).
    void fullModeOptionsByHand()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-7b");
        const double s = 4096, b = 1, h = 4096, f = 11008, a = 32, l = 32, V = 32000;
        const double sbh = s * b * h;
        TrainingConfig c = cfg(1, 4096);
        const double head = 4 * sbh + 4 * s * b * V; // final norm + head inputs, fp32 logits
        // No recomputation, eager attention: 4e sbh replicated, Q K V + context 4e sbh, MLP 4e sbf, scores e a s^2 b.
        const double none = 8 * sbh + 8 * sbh + 8 * s * b * f + 2 * a * s * s * b;
        QVERIFY(std::abs(estimateMemory(m, c, {1, 1, 1}).activationsGiB * kGiB - (l * none + head)) < 1);
        c.flashAttention = true;
        const double flash = 8 * sbh + 8 * sbh + 8 * s * b * f + 4 * a * s * b;
        QVERIFY(std::abs(estimateMemory(m, c, {1, 1, 1}).activationsGiB * kGiB - (l * flash + head)) < 1);
        c.flashAttention = false;
        c.recompute = workload::Recompute::Selective;
        const double selective = 8 * sbh + 8 * sbh + 8 * s * b * f;
        QVERIFY(std::abs(estimateMemory(m, c, {1, 1, 1}).activationsGiB * kGiB - (l * selective + head)) < 1);
        // Full recomputation keeps each layer's input, plus the larger of two moments of backward: its start, with
        // the final norm's, the head's and the loss's tensors, and the re-run of a layer, which holds that layer's
        // full activations once those are gone. Eager attention's s^2 scores make the re-run the larger; with
        // flash attention the start of backward is (the logits' gradient, e sbV, adds to it as a temporary).
        c.recompute = workload::Recompute::Full;
        QVERIFY(std::abs(estimateMemory(m, c, {1, 1, 1}).activationsGiB * kGiB - (l * 2 * sbh + none)) < 1);
        c.flashAttention = true;
        QVERIFY(flash < head + 2 * s * b * V);
        QVERIFY(std::abs(estimateMemory(m, c, {1, 1, 1}).activationsGiB * kGiB - (l * 2 * sbh + head)) < 1);
        c.flashAttention = false;
        // Tensor + sequence parallelism with selective recomputation: everything split by t.
        c.recompute = workload::Recompute::Selective;
        c.sequenceParallel = true;
        const MemoryBreakdown sp = estimateMemory(m, c, {1, 4, 1});
        QVERIFY(std::abs(sp.activationsGiB * kGiB - (l * selective / 4 + 4 * sbh / 4 + 4 * s * b * V / 4)) < 1);
        // ZeRO over 8 replicas: 3 shards all states (plus the gathered-layer buffer).
        TrainingConfig z = cfg(8, 4096);
        const double P = double(m.paramCount());
        for (int stage = 0; stage <= 3; ++stage) {
            z.zeroStage = stage;
            const MemoryBreakdown r = estimateMemory(m, z, {8, 1, 1});
            QVERIFY(std::abs(r.optimizerGiB * kGiB - 12 * P / (stage >= 1 ? 8 : 1)) < 1);
            QVERIFY(std::abs(r.gradientsGiB * kGiB - 2 * P / (stage >= 2 ? 8 : 1)) < 1);
            QVERIFY(std::abs(r.weightsGiB * kGiB - 2 * P / (stage >= 3 ? 8 : 1)) < 1);
        }
        // fp32 + SGD: 4 + 4 + 4 bytes.
        TrainingConfig f32 = cfg(1, 4096);
        f32.precision = workload::Precision::FP32;
        f32.optimizer = workload::Optimizer::SGD;
        const MemoryBreakdown r = estimateMemory(m, f32, {1, 1, 1});
        QCOMPARE(r.weightsGiB, r.gradientsGiB);
        QCOMPARE(r.optimizerGiB, r.weightsGiB);
        QVERIFY(std::abs(r.weightsGiB * kGiB - 4 * P) < 1);
    }

    // PyTorch AMP: fp32 states, cached half weights, fp32 norm inputs and softmax output (+ its half copy).
    void autocastByHand()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("bert-large");
        TrainingConfig c = cfg(4, 512);
        c.precision = workload::Precision::FP16;
        c.autocast = true;
        const MemoryBreakdown r = estimateMemory(m, c, {1, 1, 1});
        const double P = double(m.paramCount());
        QVERIFY(std::abs(r.weightsGiB * kGiB - 4 * P) < 1);
        QVERIFY(std::abs(r.gradientsGiB * kGiB - 4 * P) < 1);
        QVERIFY(std::abs(r.optimizerGiB * kGiB - 8 * P) < 1);
        const double s = 512, b = 4, h = 1024, a = 16, V = 30522;
        const double sbh = s * b * h;
        // norm inputs fp32 + half QKV/MLP inputs + masks; Q K V context; MLP; fp32 softmax, mask, half copy
        const double layer = (12 + 2) * sbh + 8 * sbh + 16 * sbh + (4 + 1 + 2) * a * s * s * b;
        const double act = 24 * layer + sbh + 4 * sbh + 4 * s * b * V;
        QVERIFY(std::abs(r.activationsGiB * kGiB - act) < 1);
        const double temp = 4 * s * b * V + 2 * P;
        QVERIFY(std::abs(r.temporaryGiB() * kGiB - (temp + 0.1 * (act + temp) + kMegatronWorkspaces)) < 1);
    }

    // Megatron-Core bf16 keeps fp32 gradients: 18 B per parameter, 6 + 12/d with the distributed optimizer
    // (ZeRO-1), as its README tabulates.
    void fp32GradsByHand()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-7b");
        const double P = double(m.paramCount());
        TrainingConfig c = cfg(8, 4096);
        c.fp32Grads = true;
        const MemoryBreakdown r = estimateMemory(m, c, {1, 1, 1});
        QCOMPARE(r.weightsGiB * kGiB, 2 * P);
        QCOMPARE(r.gradientsGiB * kGiB, 4 * P);
        QCOMPARE(r.optimizerGiB * kGiB, 12 * P);
        c.zeroStage = 1;
        const MemoryBreakdown z = estimateMemory(m, c, {8, 1, 1});
        QCOMPARE((z.weightsGiB + z.gradientsGiB) * kGiB, 6 * P);
        QCOMPARE(z.optimizerGiB * kGiB, 12 * P / 8);
        // Ignored for fp32 training (its gradients are fp32 already) and autocast (likewise).
        TrainingConfig f32 = cfg(8, 4096);
        f32.precision = workload::Precision::FP32;
        TrainingConfig f32g = f32;
        f32g.fp32Grads = true;
        QCOMPARE(estimateMemory(m, f32g, {1, 1, 1}).gradientsGiB, estimateMemory(m, f32, {1, 1, 1}).gradientsGiB);
    }

    // Optimizer variants, bf16-true and CPU offload: bytes per parameter by hand.
    void optimizerVariantsPureHalfAndOffloadByHand()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-7b");
        const double P = double(m.paramCount());
        TrainingConfig c = cfg(8, 4096);
        c.optimizer = workload::Optimizer::Adam8bit;
        QCOMPARE(estimateMemory(m, c, {1, 1, 1}).optimizerGiB * kGiB, (4 + 2) * P); // fp32 master + 2 x 1 B
        c.optimizer = workload::Optimizer::Adafactor;
        QCOMPARE(estimateMemory(m, c, {1, 1, 1}).optimizerGiB * kGiB, 4 * P); // master only: factored moments
        c.precision = workload::Precision::FP32;
        QCOMPARE(estimateMemory(m, c, {1, 1, 1}).optimizerGiB, 0.0);
        // bf16-true: 2 + 2 + Adam's moments in bf16 (4), no master; litgpt trains bf16 this way by default.
        TrainingConfig pure = cfg(8, 4096);
        pure.pureHalf = true;
        const MemoryBreakdown r = estimateMemory(m, pure, {1, 1, 1});
        QCOMPARE((r.weightsGiB + r.gradientsGiB + r.optimizerGiB) * kGiB, 8 * P);
        TrainingConfig lit = cfg(8, 4096);
        lit.framework = workload::Framework::LitGpt;
        QCOMPARE(estimateMemory(m, lit, {1, 1, 1}).optimizerGiB, r.optimizerGiB);
        lit.autocast = true; // bf16-mixed: fp32 states again
        QCOMPARE(estimateMemory(m, lit, {1, 1, 1}).optimizerGiB * kGiB, 8 * P);
        // ZeRO-Offload: the master and the moments leave the GPU; training time pays PCIe and the CPU step.
        TrainingConfig off = cfg(8, 4096);
        off.offloadOptimizer = true;
        QCOMPARE(estimateMemory(m, off, {1, 1, 1}).optimizerGiB, 0.0);
        const auto& h100 = hardware::GpuCatalog::builtin().at("h100-sxm");
        const hardware::Link ib{hardware::LinkKind::InfiniBand, 25, 5};
        QVERIFY(estimateThroughput(m, off, {1, 1, 1}, h100, h100.intraLink, ib).iterationS >
                estimateThroughput(m, cfg(8, 4096), {1, 1, 1}, h100, h100.intraLink, ib).iterationS + 0.5);
    }

    // torchtitan's op-level selective checkpointing keeps far less than no recomputation and more than full.
    void selectiveOpCheckpointing()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama3-8b");
        TrainingConfig c = cfg(2, 8192);
        c.flashAttention = true;
        const double none = estimateMemory(m, c, {8, 1, 1}).activationsGiB;
        c.recompute = workload::Recompute::SelectiveOp;
        const double op = estimateMemory(m, c, {8, 1, 1}).activationsGiB;
        c.recompute = workload::Recompute::Full;
        const double full = estimateMemory(m, c, {8, 1, 1}).activationsGiB;
        QVERIFY(op < 0.6 * none);
        QVERIFY(op > full);
        // It re-runs half the matmul FLOPs: more hardware FLOPs than none, fewer than full.
        TrainingConfig t = cfg(2, 8192);
        const double flopsNone = hardwareFlopsPerIteration(m, t);
        t.recompute = workload::Recompute::SelectiveOp;
        const double flopsOp = hardwareFlopsPerIteration(m, t);
        t.recompute = workload::Recompute::Full;
        QVERIFY(flopsOp > flopsNone && flopsOp < hardwareFlopsPerIteration(m, t));
    }

    // One stage of a pipeline: the first holds p micro-batches and the embedding, the last the head;
    // estimateMemory is the larger of the two.
    void stageMemory()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt3-6.7b");
        TrainingConfig c = cfg(64, 2048);
        c.microBatch = 1;
        const Parallelism par{1, 1, 4};
        const MemoryBreakdown first = estimateStageMemory(m, c, par, 0);
        const MemoryBreakdown last = estimateStageMemory(m, c, par, 3);
        QCOMPARE(estimateMemory(m, c, par).totalGiB(), std::max(first.totalGiB(), last.totalGiB()));
        QVERIFY(first.activationsGiB > last.activationsGiB); // 4 micro-batches in flight against 1
        QVERIFY(estimateStageMemory(m, c, par, 1).totalGiB() < first.totalGiB());
        QVERIFY_THROWS_EXCEPTION(Error, estimateStageMemory(m, c, par, 4));
        QVERIFY_THROWS_EXCEPTION(Error, estimateStageMemory(m, c, par, -1));
    }

    // Pipeline: 1F1B keeps p micro-batches on stage 0; the head sits on the last stage.
    void pipelineFirstStageHoldsPMicroBatches()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt3-6.7b");
        TrainingConfig c = cfg(64, 2048);
        c.microBatch = 1;
        c.flashAttention = true;
        const MemoryBreakdown p1 = estimateMemory(m, c, {1, 1, 1});
        const MemoryBreakdown p4 = estimateMemory(m, c, {1, 1, 4});
        // Layer activations: p4 stage 0 holds 4 micro-batches of l/4 layers = the same as p1's one micro-batch
        // of l layers; p1 also carries the logits, which live on the last stage.
        QVERIFY(p4.activationsGiB < p1.activationsGiB);
        QVERIFY(p4.weightsGiB < p1.weightsGiB / 3.5);
        QVERIFY(p4.weightsGiB > p1.weightsGiB / 4.5);
    }

    void badInputIsAnError()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-124m");
        QVERIFY_THROWS_EXCEPTION(Error, estimateMemory(m, cfg(8, 1024), {0, 1, 1}));
        QVERIFY_THROWS_EXCEPTION(Error, estimateMemory(m, cfg(0, 1024), {1, 1, 1}));
        TrainingConfig z = cfg(8, 1024);
        z.zeroStage = 4;
        QVERIFY_THROWS_EXCEPTION(Error, estimateMemory(m, z, {1, 1, 1}));
        QVERIFY_THROWS_EXCEPTION(Error, estimateMemory(m, cfg(8, 1024), {1, 1, 13}));
    }

    void propertyNonDecreasingInBatchSeqAndSize()
    {
        ORRERY_CHECK_PROPERTY("memory grows with batch, sequence, layers and hidden", [] {
            const ModelSpec m = *genModel();
            const TrainingConfig c = *genConfig();
            const Parallelism par = *genPar(m);
            const MemoryMode mode = *rc::gen::element(MemoryMode::Full, MemoryMode::Frenzy);
            const double base = estimateMemory(m, c, par, mode).totalGiB();

            TrainingConfig more = c;
            more.globalBatch += *rc::gen::inRange(1, 64);
            RC_ASSERT(estimateMemory(m, more, par, mode).totalGiB() >= base);
            TrainingConfig longer = c;
            longer.seq *= 2;
            RC_ASSERT(estimateMemory(m, longer, par, mode).totalGiB() >= base);
            ModelSpec deeper = m;
            deeper.layers += *rc::gen::inRange(1, 16);
            RC_ASSERT(estimateMemory(deeper, c, par, mode).totalGiB() >= base);
            ModelSpec wider = m;
            wider.hidden += m.heads * 16;
            wider.ffnHidden += 4 * m.heads * 16;
            RC_ASSERT(estimateMemory(wider, c, par, mode).totalGiB() >= base);
        });
    }

    void propertyShardedTermsNonIncreasingInTp()
    {
        ORRERY_CHECK_PROPERTY("weights, gradients, optimizer and activations shrink with tp", [] {
            const ModelSpec m = *genModel();
            const TrainingConfig c = *genConfig();
            Parallelism par = *genPar(m);
            par.tp = 1;
            const MemoryMode mode = *rc::gen::element(MemoryMode::Full, MemoryMode::Frenzy);
            const MemoryBreakdown one = estimateMemory(m, c, par, mode);
            Parallelism wider = par;
            wider.tp = *rc::gen::element(2, 4, 8);
            const MemoryBreakdown more = estimateMemory(m, c, wider, mode);
            RC_ASSERT(more.weightsGiB <= one.weightsGiB);
            RC_ASSERT(more.gradientsGiB <= one.gradientsGiB);
            RC_ASSERT(more.optimizerGiB <= one.optimizerGiB);
            RC_ASSERT(more.activationsGiB <= one.activationsGiB);
        });
    }
};

QTEST_GUILESS_MAIN(TestEstimateMemory)
#include "test_estimate_memory.moc"
