// AlpaServe's analysis pinned to the paper (spec D.2 item 10 and the list): the M/D/1 waiting time,
// W_simple − D = 2 (W_pipeline − D) at p = ½, the stage-partition DP on toy arrays, the Figure 1 toy
// averages, the two-model example (0.70 s vs 0.55 s), and the simulator against the M/D/1 closed form.
#include "test_support.h"

#include "io/error.h"
#include "serve/arrivals.h"
#include "serve/queueing.h"
#include "serve/request_simulator.h"
#include "serve/stage_partition.h"

#include <cmath>
#include <limits>

using namespace orrery;
using namespace orrery::serve;
using orrery::test::errorOf;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

SimGroup group(std::vector<StageTimes> models)
{
    SimGroup g;
    g.stages = static_cast<int>(models.front().stageS.size());
    g.models = std::move(models);
    return g;
}

StageTimes single(int model, double d)
{
    return {model, {d}, {}};
}

/** Brute force: every split of the layers into `stages` contiguous non-empty stages. */
double bruteForceMaxStage(const std::vector<double>& lat, int stages)
{
    const int K = static_cast<int>(lat.size());
    double best = kInf;
    // A bit mask over the K - 1 gaps, with stages - 1 bits set.
    for (unsigned mask = 0; mask < (1u << (K - 1)); ++mask) {
        if (__builtin_popcount(mask) != stages - 1)
            continue;
        double worst = 0, cur = 0;
        for (int i = 0; i < K; ++i) {
            cur += lat[static_cast<std::size_t>(i)];
            if (i == K - 1 || (mask >> i & 1u)) {
                worst = std::max(worst, cur);
                cur = 0;
            }
        }
        best = std::min(best, worst);
    }
    return best;
}

} // namespace

class TestServeAnalysis : public QObject
{
    Q_OBJECT

private slots:
    void mdOneWaitingTime()
    {
        // W = D + λD² / (2(1 − λD)): λ = 1.5, D = 0.4 gives 0.4 + 0.24 / 0.8 = 0.70 (the two-model example).
        QCOMPARE(queueing::mdOneWait(1.5, 0.4), 0.7);
        QVERIFY(std::abs(queueing::mdOneWait(2.0, 0.25) - (0.25 + 2.0 * 0.0625 / (2 * 0.5))) < 1e-15);
        QCOMPARE(queueing::mdOneWait(0.0, 0.3), 0.3);
        QVERIFY(std::isinf(queueing::mdOneWait(2.5, 0.4)));
    }

    void pipelineHalvesTheWaitAtEvenSplit()
    {
        // No overhead: D_s = 2 D_m = D; p = ½. Then W_simple = D + λD²/(4 − 2λD) and
        // W_pipeline = D + λD²/(8 − 4λD), so the waiting parts differ by exactly 2x.
        const double D = 0.4;
        for (double lambda : {0.1, 0.5, 1.0, 2.0, 3.0, 4.5}) {
            const double simple = queueing::twoModelSimpleWait(lambda, 0.5, D);
            const double pipeline = queueing::twoModelPipelineWait(lambda, D, D / 2);
            QVERIFY2(std::abs((simple - D) - 2 * (pipeline - D)) < 1e-12 * (1 + simple),
                     qPrintable(QString::number(lambda)));
            QVERIFY(std::abs(simple - (D + lambda * D * D / (4 - 2 * lambda * D))) < 1e-12);
            QVERIFY(std::abs(pipeline - (D + lambda * D * D / (8 - 4 * lambda * D))) < 1e-12);
        }
        // And p = ½ minimises the simple placement's wait.
        const double at = queueing::twoModelSimpleWait(2.0, 0.5, D);
        for (double p : {0.1, 0.3, 0.45, 0.55, 0.8})
            QVERIFY(queueing::twoModelSimpleWait(2.0, p, D) > at);
    }

    void stagePartitionDpOnToyArrays()
    {
        const std::vector<double> lat{1, 2, 3, 4, 5};
        StagePartition two = partitionStages(lat, 2);
        QCOMPARE(two.maxStageLatency, 9.0); // [1 2 3] [4 5]
        QCOMPARE(two.firstLayer, (std::vector<int>{0, 3}));
        QCOMPARE(two.stageLatency, (std::vector<double>{6, 9}));
        StagePartition three = partitionStages(lat, 3);
        QCOMPARE(three.maxStageLatency, 6.0); // [1 2 3] [4] [5]
        QCOMPARE(three.firstLayer, (std::vector<int>{0, 3, 4}));
        QCOMPARE(partitionStages(lat, 1).maxStageLatency, 15.0);
        QCOMPARE(partitionStages(lat, 5).maxStageLatency, 5.0);
        // Uneven layers: the DP beats the equal-layer split.
        const std::vector<double> skew{8, 1, 1, 1, 1, 1, 1, 2};
        QCOMPARE(partitionStages(skew, 2).maxStageLatency, 8.0);
        QCOMPARE(equalLayerStages(skew, 2).maxStageLatency, 11.0);
        QVERIFY(errorOf([&] { partitionStages(lat, 6); }).find("at least 6 layers") != std::string::npos);
        QVERIFY(errorOf([&] { partitionStages(lat, 0); }).find("stages") != std::string::npos);

        ORRERY_CHECK_PROPERTY("the DP's largest stage equals the brute-force minimum", [] {
            const auto ints = *rc::gen::container<std::vector<int>>(*rc::gen::inRange(1, 11), rc::gen::inRange(0, 50));
            std::vector<double> v(ints.begin(), ints.end());
            const int stages = *rc::gen::inRange(1, static_cast<int>(v.size()) + 1);
            const StagePartition p = partitionStages(v, stages);
            RC_ASSERT(p.maxStageLatency == bruteForceMaxStage(v, stages));
            RC_ASSERT(static_cast<int>(p.firstLayer.size()) == stages);
            RC_ASSERT(p.firstLayer.front() == 0);
            for (std::size_t s = 1; s < p.firstLayer.size(); ++s)
                RC_ASSERT(p.firstLayer[s] > p.firstLayer[s - 1]);
        });
    }

    void figureOneToyAverages()
    {
        // Four requests for model A at once; execution time y = 1.
        Workload w;
        w.models = 2;
        for (int i = 0; i < 4; ++i)
            w.requests.push_back({0.0, 0});
        SimOptions o;
        o.sloS = {kInf, kInf};
        o.recordLatencies = true;
        // (a) one dedicated GPU per model: 1y, 2y, 3y, 4y.
        const SimResult dedicated = simulateRequests({group({single(0, 1.0)}), group({single(1, 1.0)})}, w, o);
        QCOMPARE(dedicated.latencyS, (std::vector<double>{1, 2, 3, 4}));
        QVERIFY(std::abs(dedicated.meanLatencyS() - 2.5) < 1e-12);
        // (b) both models on a 2-stage pipeline over both GPUs, 10% overhead (0.1y between the halves).
        const SimGroup pipeline = group({{0, {0.5, 0.5}, {0.1}}, {1, {0.5, 0.5}, {0.1}}});
        const SimResult pipelined = simulateRequests({pipeline}, w, o);
        const std::vector<double> expected{1.1, 1.6, 2.1, 2.6};
        for (std::size_t i = 0; i < 4; ++i)
            QVERIFY(std::abs(pipelined.latencyS[i] - expected[i]) < 1e-12);
        QVERIFY(std::abs(pipelined.meanLatencyS() - 1.85) < 1e-12);
    }

    void twoModelExample()
    {
        // §3.1: two models, two GPUs, 0.4 s per request, Poisson 1.5 req/s per model. Simple placement 0.70 s,
        // model-parallel (2-stage pipeline, each GPU half of each model) 0.55 s; the paper measured these on
        // V100s, the M/D/1 forms give exactly them, and the simulator must agree within 2%.
        const Workload w = gammaWorkload({{1.5, 1.0}, {1.5, 1.0}}, 400000, 7);
        SimOptions o;
        o.sloS = {kInf, kInf};
        o.recordLatencies = true;
        const double simple = simulateRequests({group({single(0, 0.4)}), group({single(1, 0.4)})}, w, o).meanLatencyS();
        const double pipelined =
            simulateRequests({group({{0, {0.2, 0.2}, {0.0}}, {1, {0.2, 0.2}, {0.0}}})}, w, o).meanLatencyS();
        qInfo("two-model example: simple %.4f s (paper 0.70), model-parallel %.4f s (paper 0.55)", simple, pipelined);
        QVERIFY2(std::abs(simple - 0.70) / 0.70 < 0.02, qPrintable(QString::number(simple)));
        QVERIFY2(std::abs(pipelined - 0.55) / 0.55 < 0.02, qPrintable(QString::number(pipelined)));
        QVERIFY(std::abs(queueing::twoModelSimpleWait(3.0, 0.5, 0.4) - 0.70) < 1e-12);
        QVERIFY(std::abs(queueing::twoModelPipelineWait(3.0, 0.4, 0.2) - 0.55) < 1e-12);
    }

    void simulatorMatchesMdOneWithinTwoPercent()
    {
        // The fidelity question of Table 2 asked of our simulator: one group, one model, Poisson arrivals,
        // deterministic service, no SLO: the mean time in system must be the M/D/1 W within 2%.
        for (const auto& [lambda, d] : std::vector<std::pair<double, double>>{{1.0, 0.3}, {1.5, 0.4}, {8.0, 0.1}}) {
            const Workload w = gammaWorkload({{lambda, 1.0}}, 800000 / lambda, 11);
            SimOptions o;
            o.sloS = {kInf};
            o.recordLatencies = true;
            const double sim = simulateRequests({group({single(0, d)})}, w, o).meanLatencyS();
            const double closed = queueing::mdOneWait(lambda, d);
            qInfo("M/D/1 λ=%g D=%g: simulated %.4f s, closed form %.4f s", lambda, d, sim, closed);
            QVERIFY2(std::abs(sim - closed) / closed < 0.02,
                     qPrintable(QString("λ=%1 D=%2: sim %3 vs %4").arg(lambda).arg(d).arg(sim).arg(closed)));
        }
        // A pipeline is an M/D/1 queue in its largest stage: W = D_s + λD_m²/(2(1 − λD_m)) (uneven stages 0.3 + 0.1).
        const Workload w = gammaWorkload({{2.0, 1.0}}, 400000, 12);
        SimOptions o;
        o.sloS = {kInf};
        o.recordLatencies = true;
        const double sim = simulateRequests({group({{0, {0.3, 0.1}, {0.0}}})}, w, o).meanLatencyS();
        const double closed = queueing::twoModelPipelineWait(2.0, 0.4, 0.3);
        qInfo("pipeline 0.3 + 0.1 s at λ=2: simulated %.4f s, closed form %.4f s", sim, closed);
        QVERIFY2(std::abs(sim - closed) / closed < 0.02, qPrintable(QString::number(sim)));
    }
};

QTEST_GUILESS_MAIN(TestServeAnalysis)
#include "test_serve_analysis.moc"
