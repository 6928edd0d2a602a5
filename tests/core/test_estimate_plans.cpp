#include "test_support.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "workload/model_library.h"

#include <tuple>

using namespace orrery;
using namespace orrery::estimate;
using workload::ModelLibrary;
using workload::ModelSpec;
using workload::TrainingConfig;

namespace {

TrainingConfig cfg(int batch, int seq)
{
    TrainingConfig c;
    c.globalBatch = batch;
    c.seq = seq;
    return c;
}

const hardware::Link kIb{hardware::LinkKind::InfiniBand, 25, 5};

} // namespace

class TestEstimatePlans : public QObject
{
    Q_OBJECT
private slots:
    void fullModePlansOverTheCatalogAreFeasibleAndOrdered()
    {
        const auto& catalog = hardware::GpuCatalog::builtin();
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-13b");
        TrainingConfig c = cfg(64, 4096);
        c.flashAttention = true;
        c.recompute = workload::Recompute::Selective;
        const auto targets = targetsFromTypes(catalog.types(), 64, kIb);
        const auto plans = rankPlans(m, c, targets);
        QVERIFY(!plans.empty());
        for (std::size_t i = 0; i < plans.size(); ++i) {
            const Plan& p = plans[i];
            const auto& gpu = catalog.at(p.gpu);
            QCOMPARE(p.count, p.par.dp * p.par.tp * p.par.pp);
            QCOMPARE(p.par.pp, 1);
            QVERIFY(p.par.tp <= 8 && m.heads % p.par.tp == 0);
            QCOMPARE(64 % p.par.dp, 0);
            QVERIFY(p.count <= 64);
            QVERIFY(p.memoryGiB < gpu.memoryGiB);
            QCOMPARE(p.memoryGiB, estimateMemory(m, c, p.par).totalGiB());
            QCOMPARE(p.usdPerHour, p.count * gpu.priceUsdPerHour);
            QVERIFY(p.samplesPerS > 0 && std::abs(p.samplesPerS * p.iterationS - 64) < 1e-9);
            if (i > 0) {
                const Plan& q = plans[i - 1];
                QVERIFY(std::make_tuple(q.count, q.par.tp, q.par.pp, q.memoryGiB) <=
                        std::make_tuple(p.count, p.par.tp, p.par.pp, p.memoryGiB));
            }
        }
        // 13B parameters at 16 B each (~194 GiB of states) cannot fit one 80 GiB GPU without sharding.
        QVERIFY(plans.front().count >= 4);
        // Infeasible layouts are dropped: nothing on 11 GiB cards with fewer than 24 GPUs.
        for (const auto& p : plans)
            if (p.gpu == "rtx2080ti")
                QVERIFY(p.count >= 24);
    }

    void throughputAndCostRankings()
    {
        const auto& catalog = hardware::GpuCatalog::builtin();
        const ModelSpec& m = ModelLibrary::builtin().at("gpt2-1.5b");
        const auto targets = targetsFromTypes(catalog.types(), 32, kIb);
        PlanOptions byThroughput;
        byThroughput.rank = PlanRank::Throughput;
        const auto fast = rankPlans(m, cfg(32, 1024), targets, byThroughput);
        QVERIFY(fast.size() > 10);
        for (std::size_t i = 1; i < fast.size(); ++i)
            QVERIFY(fast[i - 1].samplesPerS >= fast[i].samplesPerS);
        PlanOptions byCost;
        byCost.rank = PlanRank::Cost;
        const auto cheap = rankPlans(m, cfg(32, 1024), targets, byCost);
        QCOMPARE(cheap.size(), fast.size());
        for (std::size_t i = 1; i < cheap.size(); ++i)
            QVERIFY(cheap[i - 1].usdPerHour / cheap[i - 1].samplesPerS <= cheap[i].usdPerHour / cheap[i].samplesPerS);
    }

    void pipelinePlansWhenAllowed()
    {
        const auto& catalog = hardware::GpuCatalog::builtin();
        const ModelSpec& m = ModelLibrary::builtin().at("llama2-70b");
        TrainingConfig c = cfg(128, 4096);
        c.flashAttention = true;
        c.recompute = workload::Recompute::Selective;
        c.sequenceParallel = true;
        std::vector<PlanTarget> targets = targetsFromTypes(catalog.types(), 128, kIb);
        std::erase_if(targets, [](const PlanTarget& t) { return t.gpu->name != "a100-80gb-sxm"; });
        QCOMPARE(targets.size(), std::size_t(1));
        QVERIFY(rankPlans(m, c, targets).empty() || rankPlans(m, c, targets).front().par.pp == 1);
        PlanOptions options;
        options.allowPipeline = true;
        const auto plans = rankPlans(m, c, targets, options);
        QVERIFY(!plans.empty());
        bool sawPipeline = false;
        for (const auto& p : plans) {
            sawPipeline = sawPipeline || p.par.pp > 1;
            QCOMPARE(m.layers % p.par.pp, 0);
            QVERIFY(p.count <= 128);
        }
        QVERIFY(sawPipeline);
    }

    void clusterAvailabilityCapsTheCount()
    {
        const auto& catalog = hardware::GpuCatalog::builtin();
        PlanTarget t;
        t.gpu = &catalog.at("v100-16gb");
        t.maxGpus = 4;
        t.gpusPerNode = 4;
        t.intraNode = t.gpu->intraLink;
        t.interNode = kIb;
        const auto plans = rankPlans(ModelLibrary::builtin().at("gpt2-350m"), cfg(4, 1024), {t});
        QVERIFY(!plans.empty());
        for (const auto& p : plans)
            QVERIFY(p.count <= 4 && p.par.tp <= 4);
        QVERIFY(rankPlans(ModelLibrary::builtin().at("llama2-70b"), cfg(16, 4096), {t}).empty());
        PlanTarget none;
        QVERIFY_THROWS_EXCEPTION(Error, rankPlans(ModelLibrary::builtin().at("gpt2-350m"), cfg(16, 1024), {none}));
    }
};

QTEST_GUILESS_MAIN(TestEstimatePlans)
#include "test_estimate_plans.moc"
