#include "estimate_test_helpers.h"
#include "test_support.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "workload/model_library.h"

#include <cmath>

// Context parallelism (ring attention; docs/models/context-parallel.md): memory, time, plans, refusals.

using namespace orrery;
using namespace orrery::estimate;
using workload::ModelLibrary;
using workload::ModelSpec;
using workload::TrainingConfig;

namespace {

TrainingConfig longContext(int batch, int seq)
{
    TrainingConfig c;
    c.globalBatch = batch;
    c.microBatch = 1;
    c.seq = seq;
    c.flashAttention = true;
    c.zeroStage = 1;
    return c;
}

PlanTarget target(const std::string& gpu, int gpusPerNode, double networkGBps)
{
    return test::planTarget(gpu, gpusPerNode, networkGBps);
}

} // namespace

class TestEstimateContextParallel : public QObject
{
    Q_OBJECT
private slots:
    void activationsSplitOverTheRing()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama3-8b");
        const TrainingConfig c = longContext(8, 32768);
        const MemoryBreakdown one = estimateMemory(m, c, {2, 1, 1, 1, 1});
        const MemoryBreakdown four = estimateMemory(m, c, {2, 1, 1, 1, 4});
        // With flash attention every saved tensor is linear in the rank's tokens: exactly a quarter.
        QVERIFY(std::abs(four.activationsGiB * 4 / one.activationsGiB - 1) < 1e-12);
        // The weights are replicated over the ring; the distributed optimizer shards over dp x cp.
        QCOMPARE(four.weightsGiB, one.weightsGiB);
        QVERIFY(std::abs(four.optimizerGiB * 4 / one.optimizerGiB - 1) < 1e-12);
        QCOMPARE(Parallelism({2, 1, 1, 1, 4}).gpus(), 8);
    }

    void memoryNonIncreasingInCp()
    {
        ORRERY_CHECK_PROPERTY("per-GPU memory non-increasing in cp", [] {
            const auto& lib = ModelLibrary::builtin();
            const ModelSpec& m = lib.models()[*rc::gen::inRange<std::size_t>(0, lib.models().size())];
            const int cp = *rc::gen::element(1, 2, 4, 8);
            TrainingConfig c = longContext(*rc::gen::inRange(1, 16), 16 * *rc::gen::element(64, 256, 1024));
            c.zeroStage = *rc::gen::inRange(0, 4);
            c.recompute =
                *rc::gen::element(workload::Recompute::None, workload::Recompute::Selective, workload::Recompute::Full);
            // dp >= 2: a communicator (NCCL buffers) exists with or without the ring.
            const Parallelism par{*rc::gen::inRange(2, 8), *rc::gen::element(1, 2), 1, 1, cp};
            Parallelism wider = par;
            wider.cp = 2 * cp;
            RC_ASSERT(estimateMemory(m, c, wider).totalGiB() <= estimateMemory(m, c, par).totalGiB() + 1e-12);
        });
    }

    void ringExchangeHidesUnderAttentionOnNvlink()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama3-8b");
        const TrainingConfig c = longContext(1, 65536);
        const Parallelism par{1, 1, 1, 1, 8};
        // cp 8 inside one node: the network does not matter (dp = 1, no pipeline), and at 64K tokens each ring
        // step's attention outlasts the transfer of a K/V chunk, so cp nearly divides the time by 8.
        const double slowNet = estimateThroughput(m, c, par, target("h100-sxm", 8, 1)).iterationS;
        const double fastNet = estimateThroughput(m, c, par, target("h100-sxm", 8, 50)).iterationS;
        QCOMPARE(slowNet, fastNet);
        const double alone = estimateThroughput(m, c, {1, 1, 1}, target("h100-sxm", 8, 50)).iterationS;
        QVERIFY2(alone / fastNet > 6, std::to_string(alone / fastNet).c_str());
        // One GPU per node: every step crosses the network; on a slow one the transfers are exposed.
        const double crossSlow = estimateThroughput(m, c, par, target("h100-sxm", 1, 1)).iterationS;
        const double crossFast = estimateThroughput(m, c, par, target("h100-sxm", 1, 400)).iterationS;
        QVERIFY(crossSlow > 1.2 * crossFast);
        // Short sequences leave little attention to hide under: cp helps much less than at 64K.
        const TrainingConfig shortSeq = longContext(1, 2048);
        const double shortGain = estimateThroughput(m, shortSeq, {1, 1, 1}, target("h100-sxm", 8, 50)).iterationS /
                                 estimateThroughput(m, shortSeq, par, target("h100-sxm", 8, 50)).iterationS;
        QVERIFY(shortGain < alone / fastNet);
    }

    void layoutsAreRefusedByName()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama3-8b");
        TrainingConfig c = longContext(8, 8192);
        c.flashAttention = false;
        const auto names = [&](const TrainingConfig& config, const Parallelism& par) {
            try {
                estimateMemory(m, config, par);
            } catch (const Error& e) {
                return std::string(e.what()).find("cp") != std::string::npos;
            }
            return false;
        };
        QVERIFY(names(c, {1, 1, 1, 1, 2})); // no flash attention
        c.flashAttention = true;
        QVERIFY(names(longContext(8, 8190), {1, 1, 1, 1, 2})); // 8190 not divisible by 4
        QVERIFY(names(c, {1, 1, 1, 1, 0}));
        QVERIFY_THROWS_EXCEPTION(
            Error, estimateThroughput(m, longContext(8, 8190), {1, 1, 1, 1, 2}, target("h100-sxm", 8, 50)));
        checkContextLayout(m, c, {1, 1, 1, 1, 4});
    }

    void plansEnumerateCpOnlyWhenAsked()
    {
        const ModelSpec& m = ModelLibrary::builtin().at("llama3-8b");
        const TrainingConfig c = longContext(8, 131072);
        std::vector<PlanTarget> targets{target("h100-sxm", 8, 50)};
        targets[0].maxGpus = 64;
        PlanOptions options;
        for (const Plan& p : rankPlans(m, c, targets, options))
            QCOMPARE(p.par.cp, 1);
        options.allowContextParallel = true;
        const auto plans = rankPlans(m, c, targets, options);
        QVERIFY(!plans.empty());
        bool sawCp = false;
        for (const Plan& p : plans) {
            QCOMPARE(p.count, p.par.gpus());
            QVERIFY(p.count <= 64);
            QCOMPARE(p.memoryGiB, estimateMemory(m, c, p.par).totalGiB());
            sawCp = sawCp || p.par.cp > 1;
        }
        QVERIFY(sawCp);
        // 128K tokens of LLaMA-3 8B activations do not fit one H100 per replica without splitting the sequence
        // (or the model): the smallest plan splits something.
        QVERIFY(plans.front().par.cp > 1 || plans.front().par.tp > 1);
    }
};

QTEST_GUILESS_MAIN(TestEstimateContextParallel)
#include "test_estimate_context_parallel.moc"
