#include "test_support.h"

#include "estimate/plan.h"
#include "util/units.h"
#include "workload/model_library.h"

#include <cmath>

// Where a training step's memory peaks (docs/models/memory.md, "Where the peak is"): the start of backward or the
// optimizer step, which gradients exist when, how each framework stores the loss, and the extra tensors of eager
// LLaMA kernels. Every figure below is derived by hand from the PyTorch behaviour the docs describe.

using namespace orrery;
using namespace orrery::estimate;
using workload::Framework;
using workload::ModelLibrary;
using workload::ModelSpec;
using workload::TrainingConfig;

namespace {

// Without a GPU type the cuBLAS workspaces take their pre-Hopper sizes (docs/models/memory.md, "Library workspaces"):
// PyTorch's two (8 MiB + 128 KiB each), and Transformer Engine's under Megatron (4 MiB).
constexpr double kTorchWorkspaces = 2 * 8.125 * 1024 * 1024;
constexpr double kTeWorkspace = 4.0 * 1024 * 1024;

/** One GPU, bf16, AdamW, flash attention: our own measurements' set-up (scripts/validation). */
TrainingConfig eager(Framework framework, int batch, int microBatch, int seq)
{
    TrainingConfig c;
    c.framework = framework;
    c.globalBatch = batch;
    c.microBatch = microBatch;
    c.seq = seq;
    c.optimizer = workload::Optimizer::AdamW;
    c.flashAttention = true;
    return c;
}

double bytes(double gib)
{
    return gib * kGiB;
}

} // namespace

class TestEstimateMemoryPhases : public QObject
{
    Q_OBJECT
private slots:
    // Without gradient accumulation PyTorch's backward starts with no gradients (zero_grad(set_to_none=True)): the
    // peak there is the weights, the AdamW states and the activations, GPT-2 124M in pure bf16 exactly
    // 6P + 12 layers x (34 sbh + 4 a s b) + the embedding's dropout mask + the final norm's and head's inputs + the
    // loss's log-softmax and the two gradients of the cross entropy (3 x 2 sbV).
    void backwardStartsWithoutGradients()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-124m");
        TrainingConfig c = eager(Framework::PyTorch, 16, 16, 1024);
        c.pureHalf = true;
        const double P = double(m.paramCount()), s = 1024, b = 16, h = 768, a = 12, V = 50257;
        const double sbh = s * b * h;
        const double layers = 12 * (34 * sbh + 4 * a * s * b);
        const double expected = 6 * P + layers + sbh + 4 * sbh + 6 * s * b * V;
        const MemoryBreakdown r = estimateMemory(m, c, {1, 1, 1});
        QVERIFY(std::abs(bytes(r.allocatedGiB()) - expected - kTorchWorkspaces) < 16);
        QCOMPARE(r.gradientsGiB, 0.0);
        // Two micro-batches of 16: the first one's gradients are there when the second's backward starts.
        c.globalBatch = 32;
        const MemoryBreakdown accumulated = estimateMemory(m, c, {1, 1, 1});
        QVERIFY(std::abs(bytes(accumulated.allocatedGiB()) - (expected + 2 * P + kTorchWorkspaces)) < 16);
        QVERIFY(std::abs(bytes(accumulated.gradientsGiB) - 2 * P) < 1);
        // Megatron keeps its gradient buffer between steps: the gradients are there either way.
        TrainingConfig megatron = c;
        megatron.framework = Framework::Megatron;
        megatron.globalBatch = 16;
        QVERIFY(std::abs(bytes(estimateMemory(m, megatron, {1, 1, 1}).gradientsGiB) - 2 * P) < 1);
    }

    // With little to keep for backward (one micro-batch, full recomputation) the peak is the foreach AdamW step:
    // weights, states, all gradients and the square roots of the second moments, one moment's worth.
    void optimizerStepPeaksUnderForeachAdamW()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-1.5b");
        TrainingConfig c = eager(Framework::PyTorch, 1, 1, 1024);
        c.recompute = workload::Recompute::Full;
        c.autocast = true;
        const double P = double(m.paramCount());
        // Autocast: fp32 weights 4, gradients 4, moments 8, sqrt of the second moments 4.
        MemoryBreakdown r = estimateMemory(m, c, {1, 1, 1});
        QVERIFY(std::abs(bytes(r.allocatedGiB()) - 20 * P - kTorchWorkspaces) < 64);
        QVERIFY(std::abs(bytes(r.gradientsGiB) - 4 * P) < 1);
        QCOMPARE(r.activationsGiB, 0.0);
        // Pure bf16: 2 + 2 + 4 + 2.
        c.autocast = false;
        c.pureHalf = true;
        r = estimateMemory(m, c, {1, 1, 1});
        QVERIFY(std::abs(bytes(r.allocatedGiB()) - 10 * P - kTorchWorkspaces) < 64);
        // A fused step (Megatron) has no temporaries: its peak is where its gradients meet the activations.
        c.framework = Framework::Megatron;
        QVERIFY(estimateMemory(m, c, {1, 1, 1}).allocatedGiB() < r.allocatedGiB());
    }

    // The loss's tensors at the start of backward, per framework, with the gradients alive in all of them (two
    // micro-batches) so that only the loss differs on a model without LLaMA kernels.
    void crossEntropyPerFramework()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-124m");
        const double logits = 1024.0 * 16 * 50257;
        const auto allocated = [&](Framework f, bool amp) {
            TrainingConfig c = eager(f, 32, 16, 1024);
            c.autocast = amp;
            return bytes(estimateMemory(m, c, {1, 1, 1}).allocatedGiB());
        };
        // Megatron: fp32 softmax + its gradient in place, cast to bf16 (4 + 2); under autocast an fp32 gradient (4 +
        // 4). PyTorch: log-softmax + its gradient in the loss precision + the logits' gradient in bf16: 2 + 2 + 2 in
        // bf16, 4 + 4 + 2 under autocast (the log-softmax reads bf16 and writes fp32).
        // Megatron's Transformer Engine has a cuBLAS workspace of its own.
        QVERIFY(std::abs(allocated(Framework::PyTorch, true) - allocated(Framework::Megatron, true) - 2 * logits +
                         kTeWorkspace) < 64);
        // torchtitan casts the logits to fp32 first: 4 + 4 + 4 against Megatron's 4 + 2.
        QVERIFY(std::abs(allocated(Framework::Fsdp, false) - allocated(Framework::Megatron, false) - 6 * logits +
                         kTeWorkspace) < 64);
    }

    // Eager RMSNorm keeps an fp32 tensor per norm, eager rotary the rotated q and k; litgpt's fused kernels keep
    // neither. Both pure bf16 (litgpt's default) with two micro-batches, whose loss tensors are the same size.
    void eagerLlamaKernelsKeepMore()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("openllama-3b");
        const double s = 2048, b = 2, h = 3200, sbh = s * b * h;
        const auto allocated = [&](Framework f, bool amp) {
            TrainingConfig c = eager(f, 4, 2, 2048);
            c.autocast = amp;
            c.pureHalf = !amp;
            return bytes(estimateMemory(m, c, {1, 1, 1}).allocatedGiB());
        };
        // Per layer 2 norms x 4 sbh + rotated q and k 2 x 2 sbh (no GQA), and the final norm's 4 sbh.
        const double perLayer = 8 * sbh + 4 * sbh;
        QVERIFY(std::abs(allocated(Framework::PyTorch, false) - allocated(Framework::LitGpt, false) -
                         (26 * perLayer + 4 * sbh)) < 64);
        // Under autocast PyTorch's loss keeps 2 sbV more than the in-place one (both cast the fp32 norm output
        // twice for their separate gate and up projections).
        QVERIFY(std::abs(allocated(Framework::PyTorch, true) - allocated(Framework::LitGpt, true) -
                         (26 * perLayer + 4 * sbh + 2 * s * b * 32000)) < 64);
        // That second cast: 2 sbh per layer more than Megatron's fused gate-and-up projection, which casts once.
        const auto withGrads = [&](Framework f) {
            TrainingConfig c = eager(f, 4, 2, 2048);
            c.autocast = true;
            c.flashAttention = true;
            return bytes(estimateMemory(m, c, {1, 1, 1}).activationsGiB);
        };
        QVERIFY(std::abs(withGrads(Framework::LitGpt) - withGrads(Framework::Megatron) - 26 * 2 * sbh) < 64);
    }

    // Under autocast with full recomputation the checkpointed layers save no half copies of their weights: the
    // cache of all of them lives only until the forward's autocast region ends. On a model with a tiny vocabulary
    // the end of the forward pass is then the peak, with that cache as its temporary.
    void autocastCacheEndsWithTheForwardUnderFullRecomputation()
    {
        ModelSpec m = ModelLibrary::builtin().at("gpt2-350m");
        m.vocab = 128;
        TrainingConfig c = eager(Framework::PyTorch, 2, 1, 1024);
        c.autocast = true;
        c.recompute = workload::Recompute::Full;
        c.optimizer = workload::Optimizer::SGD; // no foreach temporaries: the optimizer step is not the peak
        const double P = double(m.paramCount());
        const MemoryBreakdown r = estimateMemory(m, c, {1, 1, 1});
        // The temporary holds the cache (2P) and the head's bf16 logits; the layer inputs are fp32 (autocast's
        // residual stream): 24 x 4 sbh.
        const double temporary = bytes(r.temporaryGiB() - r.slackGiB) - kTorchWorkspaces;
        QVERIFY(temporary >= 2 * P);
        QVERIFY(temporary < 2 * P + 1024.0 * 1024 * 1024 * 0.01);
        QVERIFY(bytes(r.activationsGiB) >= 24 * 4 * 1024.0 * 1024);
        // Two micro-batches: the fp32 gradients of the first are alive.
        QVERIFY(std::abs(bytes(r.gradientsGiB) - 4 * P) < 1);
    }

    // Properties over the library's models and every framework: the optimizer step always holds the weights, the
    // states and all the gradients; gradient accumulation never lowers the peak and raises it by at most the
    // gradients (a single GPU: the activations of one micro-batch either way).
    void accumulationAddsAtMostTheGradients()
    {
        ORRERY_CHECK_PROPERTY("0 <= peak(accumulating) - peak(one micro-batch) <= gradients", [] {
            const auto& lib = ModelLibrary::builtin();
            ModelSpec m = lib.models()[*rc::gen::inRange<std::size_t>(0, lib.models().size())];
            if (m.isMoe())
                return; // ep = 1 on one GPU: the dense path is what this checks
            const auto f = *rc::gen::element(Framework::Megatron, Framework::DeepSpeed, Framework::Fsdp, Framework::HF,
                                             Framework::LitGpt, Framework::PyTorch);
            const int b = *rc::gen::inRange(1, 9);
            TrainingConfig one = eager(f, b, b, *rc::gen::element(256, 1024, 2048));
            one.autocast = *rc::gen::arbitrary<bool>();
            one.pureHalf = !one.autocast && *rc::gen::arbitrary<bool>();
            one.flashAttention = *rc::gen::arbitrary<bool>();
            one.recompute = *rc::gen::element(workload::Recompute::None, workload::Recompute::Selective,
                                              workload::Recompute::Full, workload::Recompute::SelectiveOp);
            one.optimizer =
                *rc::gen::element(workload::Optimizer::AdamW, workload::Optimizer::SGD, workload::Optimizer::Adafactor);
            TrainingConfig accumulating = one;
            accumulating.globalBatch = b * *rc::gen::inRange(2, 5);
            const MemoryBreakdown single = estimateMemory(m, one, {1, 1, 1});
            const MemoryBreakdown many = estimateMemory(m, accumulating, {1, 1, 1});
            const double gradients = many.gradientsGiB;
            RC_ASSERT(gradients > 0);
            RC_ASSERT(single.allocatedGiB() >= single.weightsGiB + single.optimizerGiB + gradients - 1e-9);
            RC_ASSERT(many.allocatedGiB() >= single.allocatedGiB() - 1e-9);
            RC_ASSERT(many.allocatedGiB() <= single.allocatedGiB() + gradients + 1e-9);
        });
    }
};

QTEST_GUILESS_MAIN(TestEstimateMemoryPhases)
#include "test_estimate_memory_phases.moc"
