// AlpaServe's 99%-attainment searches (threshold_search.h) on small cases: each answer meets the target when run
// again as a full placement search, and the value one step beyond it does not; ending a probe's search at the first
// placement meeting the target changes no answer; batch-means confidence; bad ranges and cancelling.
#include "test_support.h"

#include "io/error.h"
#include "serve/serving_run.h"
#include "serve/threshold_search.h"

#include <cmath>
#include <stop_token>

using namespace orrery;
using namespace orrery::serve;
using orrery::test::errorOf;

namespace {

ServingSpec smallSpec()
{
    ServingSpec s;
    s.models = {{"bert-1.3b", 2}};
    s.gpus = 2;
    s.memoryBudgetGB = 13;
    s.ratePerS = 6;
    s.cv = 2;
    s.durationS = 120;
    s.sloScale = 3;
    return s;
}

double fullAttainment(const ServingSpec& base, ThresholdMetric metric, const std::string& method, double value)
{
    ServingSpec spec = withThresholdValue(base, metric, value);
    spec.method = method;
    return runServing(spec).attainment();
}

ThresholdOptions range(double lo, double hi)
{
    ThresholdOptions o;
    o.lo = lo;
    o.hi = hi;
    o.threads = 2;
    return o;
}

/** The answer meets the target, the value next to it misses, and they are within the tolerance. */
void checkAnswer(const ServingSpec& spec, ThresholdMetric metric, const ThresholdResult& r, const ThresholdOptions& o)
{
    QVERIFY2(r.value && r.missed, r.method.c_str());
    QVERIFY(fullAttainment(spec, metric, r.method, *r.value) >= o.target);
    QVERIFY(fullAttainment(spec, metric, r.method, *r.missed) < o.target);
    const double lo = std::min(*r.value, *r.missed), hi = std::max(*r.value, *r.missed);
    if (metric == ThresholdMetric::Devices)
        QCOMPARE(hi - lo, 1.0);
    else
        QVERIFY(hi <= lo * (1 + o.relativeTolerance) + 1e-12);
    QVERIFY(attainmentRises(metric) ? *r.value > *r.missed : *r.value < *r.missed);
}

} // namespace

class TestServeThreshold : public QObject
{
    Q_OBJECT

private slots:
    void rateAndCvAnswersMeetAndTheNextStepMisses()
    {
        const ServingSpec spec = smallSpec();
        for (ThresholdMetric metric : {ThresholdMetric::Rate, ThresholdMetric::Cv}) {
            const ThresholdOptions o = metric == ThresholdMetric::Rate ? range(1, 64) : range(0.25, 16);
            const auto results = searchThresholds(spec, metric, {kMethodAlpaServe, kMethodSelectiveReplication}, o);
            QCOMPARE(results.size(), std::size_t(2));
            for (const auto& r : results)
                checkAnswer(spec, metric, r, o);
            // AlpaServe's search space holds Selective Replication's, and both bisect the same range.
            QVERIFY(*results[0].value >= *results[1].value);
        }
    }

    void devicesAndSloScaleAnswersMeetAndTheNextStepMisses()
    {
        ServingSpec spec = smallSpec();
        spec.models = {{"bert-1.3b", 4}};
        spec.gpus = 8;
        spec.ratePerS = 12;
        const ThresholdOptions devices = range(1, 8);
        const auto d = searchThresholds(spec, ThresholdMetric::Devices, {kMethodAlpaServe}, devices);
        checkAnswer(spec, ThresholdMetric::Devices, d.front(), devices);
        const ThresholdOptions slo = range(0.5, 20);
        const auto s = searchThresholds(spec, ThresholdMetric::SloScale, {kMethodAlpaServe}, slo);
        checkAnswer(spec, ThresholdMetric::SloScale, s.front(), slo);
    }

    void stoppingAtTheTargetChangesNoAnswer()
    {
        ThresholdOptions early = range(1, 64);
        ThresholdOptions full = early;
        full.stopAtTarget = false;
        const auto a = searchThresholds(smallSpec(), ThresholdMetric::Rate, {kMethodAlpaServe}, early);
        const auto b = searchThresholds(smallSpec(), ThresholdMetric::Rate, {kMethodAlpaServe}, full);
        QCOMPARE(a.front().value, b.front().value);
        QCOMPARE(a.front().probes.size(), b.front().probes.size());
        for (std::size_t i = 0; i < a.front().probes.size(); ++i)
            QCOMPARE(a.front().probes[i].meets, b.front().probes[i].meets);
    }

    void parallelRoundsNarrowFaster()
    {
        ThresholdOptions wide = range(1, 64);
        wide.probesPerRound = 3;
        const auto r = searchThresholds(smallSpec(), ThresholdMetric::Rate, {kMethodAlpaServe}, wide);
        checkAnswer(smallSpec(), ThresholdMetric::Rate, r.front(), wide);
        // Each round cuts the bracket's log-width by 4 instead of 2: 64x down to 5% in 4 rounds, not 7.
        QVERIFY(r.front().probes.size() <= 2 + 3 * 4);
    }

    void rangeEnds()
    {
        // The whole range meets: the answer is its hard end, with nothing missed.
        const auto easy = searchThresholds(smallSpec(), ThresholdMetric::Rate, {kMethodAlpaServe}, range(0.1, 0.2));
        QCOMPARE(*easy.front().value, 0.2);
        QVERIFY(!easy.front().missed);
        // Even the easy end misses: no answer.
        const auto hard = searchThresholds(smallSpec(), ThresholdMetric::Rate, {kMethodAlpaServe}, range(500, 900));
        QVERIFY(!hard.front().value);
        QCOMPARE(*hard.front().missed, 500.0);
    }

    void batchMeans()
    {
        QCOMPARE(batchMeansHalfWidth(std::vector<double>(100, 1.0)), 0.0);
        // Batches alternately all served and all rejected: means 1, 0, 1, ...; s = sqrt(2.5 / 9), t(9) = 2.262.
        std::vector<double> v;
        for (int k = 0; k < 10; ++k)
            v.insert(v.end(), 10, k % 2 == 0 ? 1.0 : 0.0);
        QVERIFY(std::abs(batchMeansHalfWidth(v) - 2.262 * std::sqrt(2.5 / 9 / 10)) < 1e-12);
        QVERIFY(std::isnan(batchMeansHalfWidth({1, 0, 1})));
    }

    void badInputAndCancel()
    {
        QVERIFY(errorOf([] {
                    searchThresholds(smallSpec(), ThresholdMetric::Rate, {kMethodAlpaServe}, range(0, 4));
                }).find("range") != std::string::npos);
        QVERIFY(errorOf([] {
                    searchThresholds(smallSpec(), ThresholdMetric::Rate, {kMethodAlpaServe}, range(4, 2));
                }).find("0 < from < to") != std::string::npos);
        std::stop_source source;
        source.request_stop();
        util::Progress stopped;
        stopped.stop = source.get_token();
        QVERIFY_THROWS_EXCEPTION(Cancelled, searchThresholds(smallSpec(), ThresholdMetric::Rate, {kMethodAlpaServe},
                                                             range(1, 64), &stopped));
    }
};

QTEST_GUILESS_MAIN(TestServeThreshold)
#include "test_serve_threshold.moc"
