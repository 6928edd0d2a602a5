#include "test_support.h"

#include "provision_fixtures.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "provision/allocator.h"
#include "provision/baseline_placers.h"
#include "provision/cmr_placer.h"
#include "provision/cost_model.h"
#include "provision/estimator_profile.h"
#include "provision/iteration_time.h"
#include "provision/pipeline_bounds.h"
#include "provision/provision.h"
#include "provision/strategies.h"
#include "workload/model_library.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

using namespace orrery;
using namespace orrery::provision;
using orrery::test::juchiPool;
using orrery::test::simpleProfile;

namespace {

/** Truncation to two decimals, as the paper prints CMR values. */
double trunc2(double v)
{
    return std::floor(v * 100.0 + 1e-9) / 100.0;
}

/**
 * The spec's U-E1 mocked profile for Fig. 9: per-layer times that balance
 * [22, 16, 30] exactly (f = 1/22, 1/16, 1/30 s, b = 2f), memory that gives
 * l_m(3090, 0) = 26, l_m(A6000, 0) = 54, l_m(A6000, 1) = 58, l_m(A4000, 0) = 18 < 22,
 * and per-layer all-reduce 0.1 / 0.2 / 0.155 s at d = 2, so that
 * l_c(A6000, 1) = floor((22 * 0.1 + 2) / 0.155) = 27 and alpha = 58 / 27, while
 * l_c(A4000, 1) = 21 >= l_m(A4000, 1) = 19 (alpha = 1). The stage-0 sync makes
 * 22 the estimator's best stage-0 layer count.
 */
struct Fig9
{
    std::vector<PoolGpu> pool = {{orrery::test::paperGpu("rtx3090", 24, 142), 16, 2.5},
                                 {orrery::test::paperGpu("a4000", 16, 76), 16, 2},
                                 {orrery::test::paperGpu("a6000", 48, 154.8), 8, 6}};
    ProvisionJob job;
    TableProfileSource source;
    Fig9()
    {
        job.model.name = "vit-fig9";
        job.model.layers = 68;
        job.microBatches = 4;
        job.training.globalBatch = 8;
        job.interBandwidthGbitS = 2.5;
        const double bytesPerS = 2.5e9 / 8;
        source.set("rtx3090", simpleProfile(1.0 / 22, 0.7, 0.07, 0.1 * bytesPerS));
        source.set("a4000", simpleProfile(1.0 / 16, 0.7, 0.06, 0.2 * bytesPerS));
        source.set("a6000", simpleProfile(1.0 / 30, 0.7, 0.06, 0.155 * bytesPerS));
    }
};

/** The paper's 56-GPU setup as docs/experiments/espresso.md runs it (2.5 Gbit/s, the prototype's efficiencies). */
struct PaperSetup
{
    std::string dir = orrery::test::sourcePath("docs/experiments/espresso/");
    hardware::GpuCatalog catalog = hardware::GpuCatalog::fromFile(dir + "juchi-gpus.json");
    std::vector<PoolGpu> pool = [this] {
        std::vector<PoolGpu> out;
        for (const auto& [name, quota] :
             std::vector<std::pair<std::string, int>>{{"a6000", 8}, {"a30", 16}, {"rtx3090", 16}, {"a4000", 16}})
            out.push_back({catalog.at(name), quota, catalog.at(name).priceUsdPerHour});
        return out;
    }();
    EstimatorProfileSource source{{{"a30", 0.43}, {"a6000", 0.47}, {"a4000", 0.55}, {"rtx3090", 0.45}}};

    /** A LLaMA preset at seq 4096, B = 32, full recomputation, 100 iterations. */
    ProvisionJob llamaJob(const std::string& model, double sloS) const
    {
        ProvisionJob job;
        job.model = workload::resolveModel(dir + model + ".json");
        job.training.globalBatch = 32;
        job.training.seq = 4096;
        job.training.recompute = workload::Recompute::Full;
        job.iterations = 100;
        job.sloS = sloS;
        return job;
    }
};

ProvisionOptions opts(Strategy s, bool bp = true, bool cp = true, bool tcp = true)
{
    ProvisionOptions o;
    o.strategy = s;
    o.boundaryPruning = bp;
    o.costPruning = cp;
    o.timeCapacityPruning = tcp;
    return o;
}

} // namespace

class TestProvision : public QObject
{
    Q_OBJECT
private slots:
    void estimatorIdentities() // U-E9
    {
        QCOMPARE(iterationTimeS({{1, 2, 0.5}}, 4, 0), 4 * 3 + 0.5);
        const auto t = simulateIteration({{1, 2, 0}, {1, 2, 0}, {1, 2, 0}}, 4, 0);
        QCOMPARE(t.iterationS, 18.0);
        QCOMPARE(t.lastBackwardEndS, (std::vector<double>{18, 16, 14}));
        // Syncs hidden by the earlier stages' backwards (Eq. 9) ...
        QCOMPARE(iterationTimeS({{1, 2, 0}, {1, 2, 1.5}, {1, 2, 3.9}}, 4, 0), 18.0);
        // ... until one is longer than the backward time left: 14 + 5.
        QCOMPARE(iterationTimeS({{1, 2, 0}, {1, 2, 1.5}, {1, 2, 5}}, 4, 0), 19.0);
        // (m + k - 1)(f + b) for equal stages, for several shapes.
        for (int k : {1, 2, 5, 8})
            for (int m : {1, 3, 4, 16}) {
                std::vector<StageTimes> st(static_cast<std::size_t>(k), {0.5, 1.0, 0});
                QCOMPARE(iterationTimeS(st, m, 0), (m + k - 1) * 1.5);
            }
        // p2p adds to the first micro-batch's round trip: 2 (k - 1) transfers on the critical path.
        QCOMPARE(iterationTimeS({{1, 2, 0}, {1, 2, 0}}, 1, 0.25), 6 + 2 * 0.25);
    }

    void costArithmetic() // U-E2, U-E6, U-E7
    {
        const auto pool = juchiPool();
        std::vector<Stage> minPlan = {{0, 1}, {2, 1}, {2, 1}, {2, 1}, {2, 1}, {2, 1}};
        QVERIFY(std::abs(planCost(pool, minPlan, 1, 40, 100) - 20.5556) < 1e-3);
        QVERIFY(std::abs(activeRatio(4, 3) - 4.0 / 6) < 1e-12);
        const double r = 154.8e12 * 0.47;
        const double t = lowerIterationS(1e17, activeRatio(4, 2), 4 * r);
        QVERIFY(std::abs(t - 429.5) < 0.05);
        QVERIFY(std::abs(trainingCost(1, t, 24) - 2.863) < 1e-3);
    }

    void boundaries() // U-E4, U-E5
    {
        QCOMPARE(powerOfTwoSizes(56), (std::vector<int>{1, 2, 4, 8, 16, 32}));
        QCOMPARE(totalQuota(juchiPool()), 56);
        QCOMPARE(stageQuota(juchiPool()[0], 4), 2);
        QCOMPARE(stageQuota(juchiPool()[3], 32), 0);
    }

    void fig9CmrArithmetic() // U-E1 / E15
    {
        Fig9 f;
        const PipelineModel model(f.job, f.pool, f.source, 2);
        const std::vector<int> types = {0, 1, 2};
        QCOMPARE(model.maxLayers(0, 0, 3), 26);
        QCOMPARE(model.maxLayers(2, 0, 3), 54);
        QCOMPARE(model.maxLayers(2, 1, 3), 58);
        QVERIFY(model.maxLayers(1, 0, 3) < 22);
        QCOMPARE(loadBalancedLayers(model, types, 1), 13);
        QCOMPARE(loadBalancedLayers(model, types, 2), 28);

        CmrTrace trace;
        const Placement at22 = cmrPlaceWithStage0(model, types, 22, &trace);
        QVERIFY(at22.valid);
        QCOMPARE(trace.choices.size(), std::size_t(3));
        // Stage 0: the A4000 cannot hold 22 layers; 3090 6.99 vs A6000 7.91 (printed truncated).
        const auto& c0 = trace.choices[0].cmr;
        QCOMPARE(c0.size(), std::size_t(2));
        QCOMPARE(c0[0].first, 0);
        QVERIFY(std::abs(c0[0].second - 6.99) < 0.01);
        QCOMPARE(trunc2(c0[0].second), 6.99);
        QCOMPARE(c0[1].first, 2);
        QCOMPARE(trunc2(c0[1].second), 7.91);
        QCOMPARE(trace.choices[0].chosen, 0);
        // Stage 1: A4000 4.75 vs A6000 6.92.
        const auto& c1 = trace.choices[1].cmr;
        QCOMPARE(c1.size(), std::size_t(2));
        QCOMPARE(c1[0].first, 1);
        QVERIFY(std::abs(c1[0].second - 4.75) < 1e-9);
        QCOMPARE(trunc2(c1[1].second), 6.92);
        QCOMPARE(trace.choices[1].chosen, 1);
        QCOMPARE(trace.beforeAdjust, (std::vector<Stage>{{0, 22}, {1, 13}, {2, 28}}));
        QCOMPARE(at22.stages, (std::vector<Stage>{{0, 22}, {1, 16}, {2, 30}}));

        // The estimator's argmin over the stage-0 layer count is 22.
        int best0 = 0;
        const Placement best = cmrPlace(model, {2, 0, 1}, &best0);
        QCOMPARE(best0, 22);
        QCOMPARE(best.stages, (std::vector<Stage>{{0, 22}, {1, 16}, {2, 30}}));
        // Balanced stages: (m + k - 1)(f + b) = 18 s, then stage 0's sync of 22 layers.
        QVERIFY(std::abs(best.iterationS - (18 + 22 * 0.1)) < 1e-9);
    }

    void treeHasNoDuplicateLeaves() // U-E3
    {
        ProvisionJob job;
        job.model.layers = 6;
        job.microBatches = 1;
        job.training.globalBatch = 1;
        auto pool = juchiPool(8, 8, 8, 0);
        pool.pop_back();
        TableProfileSource src;
        for (const auto& g : pool)
            src.set(g.gpu.name, simpleProfile(10 / g.gpu.fp16TFlops, 0.1, 0.01, 0));
        auto o = opts(Strategy::Espresso, false, false, false);
        o.recordEvaluated = true;
        const auto r = provisionGpus(job, pool, src, o);
        std::multiset<std::vector<int>> leaves;
        for (const auto& e : r.evaluated)
            if (e.pp == 3)
                leaves.insert(e.gpuCounts);
        QCOMPARE(leaves.size(), std::size_t(10));
        QCOMPARE(std::set<std::vector<int>>(leaves.begin(), leaves.end()).size(), std::size_t(10));
    }

    void quotasAreRespected() // U-E4
    {
        ProvisionJob job;
        job.model.layers = 12;
        job.microBatches = 4;
        job.training.globalBatch = 32;
        auto pool = juchiPool(3, 2, 5, 4);
        TableProfileSource src;
        for (const auto& g : pool)
            src.set(g.gpu.name, simpleProfile(10 / g.gpu.fp16TFlops, 2, 0.2, 5e7));
        for (Strategy s :
             {Strategy::Espresso, Strategy::WhalePlus, Strategy::HphPlus, Strategy::SiaPlus, Strategy::Optimal}) {
            auto o = opts(s);
            o.recordEvaluated = true;
            const auto r = provisionGpus(job, pool, src, o);
            QVERIFY(r.hasPlan);
            QVERIFY(!r.evaluated.empty());
            for (const auto& e : r.evaluated)
                for (std::size_t t = 0; t < pool.size(); ++t)
                    QVERIFY2(e.gpuCounts[t] <= pool[t].quota, toString(s).c_str());
            const auto counts = r.plan.gpuCounts(pool.size());
            for (std::size_t t = 0; t < pool.size(); ++t)
                QVERIFY(counts[t] <= pool[t].quota);
        }
    }

    void siaPlusUsesPowersOfTwoOfOneType()
    {
        ProvisionJob job;
        job.model.layers = 12;
        job.training.globalBatch = 32;
        const auto pool = juchiPool(8, 6, 16, 3);
        TableProfileSource src;
        for (const auto& g : pool)
            src.set(g.gpu.name, simpleProfile(10 / g.gpu.fp16TFlops, 2, 0.2, 5e7));
        auto o = opts(Strategy::SiaPlus);
        o.recordEvaluated = true;
        const auto r = provisionGpus(job, pool, src, o);
        QVERIFY(!r.evaluated.empty());
        for (const auto& e : r.evaluated) {
            int types = 0, total = 0;
            for (int c : e.gpuCounts) {
                types += c > 0;
                total += c;
            }
            QCOMPARE(types, 1);
            QCOMPARE(total & (total - 1), 0);
        }
    }

    void baselineOrders() // U-E11: Whale+ by memory, HPH+ by compute (D < C < A < B)
    {
        ProvisionJob job;
        job.model.layers = 8;
        job.training.globalBatch = 8;
        const auto pool = juchiPool();
        TableProfileSource src;
        for (const auto& g : pool)
            src.set(g.gpu.name, simpleProfile(0.1, 1, 0.1, 0));
        const PipelineModel model(job, pool, src, 1);
        QCOMPARE(hphOrder(model, {0, 1, 2, 3}), (std::vector<int>{3, 2, 0, 1}));
        QCOMPARE(whaleOrder(model, {3, 2, 1, 0}), (std::vector<int>{0, 1, 2, 3}));
        const Placement h = hphPlace(model, {0, 1, 2, 3});
        QVERIFY(h.valid);
        QCOMPARE(h.stages.front().gpu, 3);
        // Equal per-layer times: the IP balances 8 layers as 2 per stage.
        for (const auto& s : h.stages)
            QCOMPARE(s.layers, 2);
        const Placement w = whalePlace(model, {3, 2, 1, 0});
        QVERIFY(w.valid);
        QCOMPARE(w.stages.front().gpu, 0);
    }

    void infeasibleSloReturnsFastestPlan() // U-E10
    {
        Fig9 f;
        f.job.iterations = 100;
        f.job.sloS = 1; // far below anything achievable
        for (Strategy s :
             {Strategy::Espresso, Strategy::SiaPlus, Strategy::WhalePlus, Strategy::HphPlus, Strategy::Optimal}) {
            const auto r = provisionGpus(f.job, f.pool, f.source, opts(s));
            QVERIFY2(!r.feasible, toString(s).c_str());
            QVERIFY2(r.hasPlan, toString(s).c_str());
            QVERIFY(r.plan.totalS > f.job.sloS);
        }
        // The same job with a reachable SLO is feasible and meets it.
        f.job.sloS = 4000;
        const auto ok = provisionGpus(f.job, f.pool, f.source, opts(Strategy::Espresso));
        QVERIFY(ok.feasible);
        QVERIFY(ok.plan.totalS <= 4000);
    }

    void badInputIsAnError()
    {
        Fig9 f;
        auto pool = f.pool;
        pool[1].quota = -1;
        QVERIFY_THROWS_EXCEPTION(Error, provisionGpus(f.job, pool, f.source));
        auto job = f.job;
        job.iterations = 0;
        QVERIFY_THROWS_EXCEPTION(Error, provisionGpus(job, f.pool, f.source));
        QVERIFY_THROWS_EXCEPTION(Error, strategyFromString("greedy"));
        QVERIFY(strategyFromString("HPH+") == Strategy::HphPlus);
    }

    void cancelStopsTheSearch()
    {
        Fig9 f;
        std::atomic<bool> stop{true};
        QVERIFY_THROWS_EXCEPTION(Cancelled, provisionGpus(f.job, f.pool, f.source, {}, &stop));
    }

    void optimalRefusesHugeSearches()
    {
        // Four interchangeable types (same datasheet, profile and price): every mix of a pipeline of
        // 25 stages has the same lower bound, below the optimum, so no multiset is ruled out, and a
        // mix has up to 25! / (6! 6! 6! 7!) orders that no bound tells apart: still hopeless.
        ProvisionJob job;
        job.model.name = "deep";
        job.model.layers = 200;
        job.microBatches = 4;
        job.training.globalBatch = 4;
        std::vector<PoolGpu> pool;
        TableProfileSource source;
        for (const char* name : {"g1", "g2", "g3", "g4"}) {
            pool.push_back({orrery::test::paperGpu(name, 16, 100), 16, 2});
            source.set(name, simpleProfile(0.01, 1.5, 0.1, 0));
        }
        auto o = opts(Strategy::Optimal);
        o.optimalBudgetS = 3600;
        const auto estimate = estimateOptimal(job, pool, source);
        QVERIFY(estimate.candidates > 0);
        QCOMPARE(estimate.candidates, estimate.held);
        QVERIFY(estimate.seconds > 3600);
        try {
            provisionGpus(job, pool, source, o);
            QFAIL("expected a refusal");
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("optimal") != std::string::npos && what.find("survive") != std::string::npos,
                     what.c_str());
        }
    }

    void optimalAnswersThePaperCluster()
    {
        // LLaMA-3B and LLaMA-7B on the 56-GPU cluster at their Table IV SLOs, 2.5 Gbit/s: the sizes the
        // old order-counting estimate refused. Optimal now answers, within the same plan space as
        // Espresso, and is never dearer than Espresso's plan.
        const PaperSetup paper;
        const auto& pool = paper.pool;
        const auto& source = paper.source;
        std::vector<std::pair<std::string, double>> cases = {{"llama-3b", 3700}, {"llama-7b", 5500}};
        // Under ASan each model's space and seed take ~20x longer: LLaMA-3B alone covers the same code there.
        if (orrery::test::kSanitized)
            cases.pop_back();
        for (const auto& [model, sloS] : cases) {
            const ProvisionJob job = paper.llamaJob(model, sloS);
            const auto estimate = estimateOptimal(job, pool, source);
            QVERIFY2(estimate.seconds < ProvisionOptions{}.optimalBudgetS, model.c_str());
            const auto best = provisionGpus(job, pool, source, opts(Strategy::Optimal));
            const auto espresso = provisionGpus(job, pool, source, opts(Strategy::Espresso));
            QVERIFY2(best.feasible && espresso.feasible, model.c_str());
            QVERIFY(best.plan.cost <= espresso.plan.cost * (1 + 1e-12));
            QVERIFY(best.plan.totalS <= sloS);
            int layers = 0;
            for (int s = 0; s < best.plan.pp(); ++s) {
                const auto& st = best.plan.stages[static_cast<std::size_t>(s)];
                layers += st.layers;
            }
            QCOMPARE(layers, job.model.layers);
            const auto counts = best.plan.gpuCounts(pool.size());
            for (std::size_t t = 0; t < pool.size(); ++t)
                QVERIFY(counts[t] <= pool[t].quota);
        }
    }

    void optimalStopsAtItsTimeLimit()
    {
        // LLaMA-7B at 2.5 Gbit/s with a 2,000 s SLO (0.36x Table IV's): the up-front estimate lets it
        // through (~1.4 M surviving orders, ~142 s), but the search runs for many minutes. A time limit
        // of 0.2 s must end it with a clear error instead.
        const PaperSetup paper;
        const auto& pool = paper.pool;
        const auto& source = paper.source;
        const ProvisionJob job = paper.llamaJob("llama-7b", 2000);
        auto o = opts(Strategy::Optimal);
        o.optimalTimeLimitS = 0.2;
        // The estimate builds the space and the seed the search builds again; under ASan that is ~40 s, and the
        // dev build checks it.
        if (!orrery::test::kSanitized)
            QVERIFY(estimateOptimal(job, pool, source).seconds < o.optimalBudgetS);
        try {
            provisionGpus(job, pool, source, o);
            QFAIL("expected the time limit to stop the search");
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("time limit of 0.2 s") != std::string::npos &&
                         what.find("espresso") != std::string::npos,
                     what.c_str());
        }
    }

    void nothingBeatsOptimal()
    {
        // Optimal is exhaustive inside BP's (d, k) boundaries, so it bounds every search within them
        // (Sia+ picks k = 2^n / d outside them and is compared in docs/experiments instead).
        ORRERY_CHECK_PROPERTY("every strategy and pruning setting costs at least Optimal", [] {
            auto in = orrery::test::genSmallInstance();
            const auto best = provisionGpus(in.job, in.pool, in.source, opts(Strategy::Optimal));
            for (Strategy s : {Strategy::Espresso, Strategy::WhalePlus, Strategy::HphPlus})
                for (int mask = 1; mask < 8; mask += 2) {
                    const auto r = provisionGpus(in.job, in.pool, in.source, opts(s, mask & 1, mask & 2, mask & 4));
                    if (r.feasible) {
                        RC_ASSERT(best.feasible);
                        RC_ASSERT(r.plan.cost >= best.plan.cost * (1 - 1e-9));
                        RC_ASSERT(r.plan.totalS <= in.job.sloS * (1 + 1e-9) || in.job.sloS == 0);
                    }
                }
        });
    }

    void exhaustivePlaceMatchesBruteForce()
    {
        // The bounded order-and-split search against plain enumeration of every distinct order and
        // every split within l_m: its bounds (PipelineBounds, the placed-stage bounds) cut nothing
        // better, with point-to-point and all-reduce times (random boundary and gradient bytes).
        ORRERY_CHECK_PROPERTY("exhaustivePlace equals enumerating every order and split", [] {
            auto in = orrery::test::genSmallInstance();
            const int d = *rc::gen::element(1, 2, 4);
            const PipelineModel model(in.job, in.pool, in.source, d);
            const int k = *rc::gen::inRange(1, std::min(5, in.job.model.layers) + 1);
            std::vector<int> types;
            for (int s = 0; s < k; ++s)
                types.push_back(*rc::gen::inRange(0, model.types()));
            std::sort(types.begin(), types.end());
            double best = INFINITY;
            do {
                std::vector<Stage> stages(static_cast<std::size_t>(k));
                std::function<void(int, int)> split = [&](int s, int rest) {
                    const auto us = static_cast<std::size_t>(s);
                    if (s == k - 1) {
                        if (rest >= 1 && rest <= model.maxLayers(types[us], s, k)) {
                            stages[us] = {types[us], rest};
                            best = std::min(best, iterationTimeS(model, stages));
                        }
                        return;
                    }
                    for (int l = 1; l <= std::min(rest - (k - 1 - s), model.maxLayers(types[us], s, k)); ++l) {
                        stages[us] = {types[us], l};
                        split(s + 1, rest - l);
                    }
                };
                split(0, model.layers());
            } while (std::next_permutation(types.begin(), types.end()));
            const Placement p = exhaustivePlace(model, types);
            RC_ASSERT(p.valid == (best < INFINITY));
            if (p.valid)
                RC_ASSERT(std::abs(p.iterationS - best) <= 1e-9 * best);
        });
    }

    void boundsNeverExceedAPlacement()
    {
        // PipelineBounds against the simulated time of random complete placements of the multiset.
        ORRERY_CHECK_PROPERTY("the multiset lower bound is below every placement's time", [] {
            auto in = orrery::test::genSmallInstance();
            const int d = *rc::gen::element(1, 2, 4);
            const PipelineModel model(in.job, in.pool, in.source, d);
            const int k = *rc::gen::inRange(1, in.job.model.layers + 1);
            std::vector<int> counts(static_cast<std::size_t>(model.types()), 0);
            std::vector<Stage> stages;
            int layers = model.layers();
            for (int s = 0; s < k; ++s) {
                const int t = *rc::gen::inRange(0, model.types());
                ++counts[static_cast<std::size_t>(t)];
                const int l = s == k - 1 ? layers : *rc::gen::inRange(1, layers - (k - 1 - s) + 1);
                stages.push_back({t, l});
                layers -= l;
            }
            const Placement p = scorePlacement(model, stages);
            RC_PRE(p.valid); // skip splits that overfill a stage
            const PipelineBounds bounds(model, k);
            RC_ASSERT(bounds.lowerIterS(counts) <= p.iterationS * (1 + 1e-12));
            // And after every placed prefix, as the order search uses it.
            double prefF = 0, prefW = 0, maxB = 0;
            int rest = model.layers();
            for (int s = 0; s < k; ++s) {
                const auto t = model.stageTimes(stages[static_cast<std::size_t>(s)].gpu,
                                                stages[static_cast<std::size_t>(s)].layers, s, k);
                prefF += t.forwardS;
                prefW += t.forwardS + t.backwardS;
                maxB = std::max(maxB, t.backwardS);
                rest -= stages[static_cast<std::size_t>(s)].layers;
                --counts[static_cast<std::size_t>(stages[static_cast<std::size_t>(s)].gpu)];
                RC_ASSERT(bounds.restLowerS(prefF, prefW, maxB, rest, counts, k - 1 - s) <= p.iterationS * (1 + 1e-12));
            }
        });
    }

    void treeWithExhaustivePlacerIsOptimal()
    {
        ORRERY_CHECK_PROPERTY("the cost tree without CP/TCP, placing exhaustively, equals Optimal", [] {
            auto in = orrery::test::genSmallInstance();
            const auto best = provisionGpus(in.job, in.pool, in.source, opts(Strategy::Optimal));
            const auto tree =
                allocate(in.job, in.pool, in.source, opts(Strategy::Espresso, true, false, false), exhaustivePlace);
            RC_ASSERT(tree.feasible == best.feasible);
            if (best.feasible)
                RC_ASSERT(std::abs(tree.plan.cost - best.plan.cost) <= 1e-9 * best.plan.cost);
        });
    }

    void pruningNeverCutsABetterPlan()
    {
        // With the exhaustive placer, a search with a pruning rule on must return Optimal's plan:
        // every plan the rule cut was no cheaper than the one returned. This holds for the valid
        // bounds; the paper's CP and TCP formulas are heuristics and RapidCheck finds instances
        // where they cut the optimum (docs/models/espresso.md), so they are measured, not asserted.
        for (int mask : {3, 5, 7}) {
            const std::string name = mask == 3 ? "CP" : mask == 5 ? "TCP" : "CP+TCP";
            ORRERY_CHECK_PROPERTY(name + " never prunes a plan cheaper than the one returned", [mask] {
                auto in = orrery::test::genSmallInstance();
                const auto best = provisionGpus(in.job, in.pool, in.source, opts(Strategy::Optimal));
                auto o = opts(Strategy::Espresso, true, mask & 2, mask & 4);
                o.validBounds = true;
                const auto tree = allocate(in.job, in.pool, in.source, o, exhaustivePlace);
                RC_ASSERT(tree.feasible == best.feasible);
                if (best.feasible)
                    RC_ASSERT(std::abs(tree.plan.cost - best.plan.cost) <= 1e-9 * best.plan.cost);
            });
        }
    }
};

QTEST_GUILESS_MAIN(TestProvision)
#include "test_provision.moc"
