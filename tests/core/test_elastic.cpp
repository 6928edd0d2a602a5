// Elastic jobs: GPU ranges in scenarios, the engine refusing counts outside them, View::rateOn agreeing with the
// rate the engine commits, and the restart records policies read.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "io/scenario.h"
#include "sim/policy.h"
#include "sim/simulator.h"

#include <nlohmann/json.hpp>

#include <functional>

using namespace orrery;
using orrery::test::errorOf;
using orrery::test::fixedJob;
using orrery::test::makeCluster;
using orrery::test::prepare;

namespace {

/** A policy that runs a script at each decision (the n-th call gets n), asking for wake-ups at `wakes`. */
class Scripted : public sim::Policy
{
public:
    Scripted(std::function<void(sim::Decision&, int)> script, std::vector<double> wakes = {})
        : m_script(std::move(script)), m_wakes(std::move(wakes))
    {}
    std::string name() const override { return "scripted"; }
    void schedule(sim::Decision& d) override
    {
        if (m_calls == 0)
            for (double t : m_wakes)
                d.wakeAt(t);
        m_script(d, m_calls++);
    }

private:
    std::function<void(sim::Decision&, int)> m_script;
    std::vector<double> m_wakes;
    int m_calls = 0;
};

workload::Job elasticJob(std::string id, int gpus, int minGpus, int maxGpus, std::vector<int> allowed = {})
{
    auto j = fixedJob(std::move(id), 0, gpus, 1000);
    j.minGpus = minGpus;
    j.maxGpus = maxGpus;
    j.allowedGpus = std::move(allowed);
    return j;
}

/** The first `n` GPUs of node `node` (4 GPUs per node in these clusters). */
std::vector<int> gpusOn(int node, int n, int perNode = 4)
{
    std::vector<int> out;
    for (int k = 0; k < n; ++k)
        out.push_back(node * perNode + k);
    return out;
}

std::vector<int> concat(std::vector<int> a, const std::vector<int>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

io::Scenario scenarioWithJob(const std::string& jobJson)
{
    const std::string text = R"({"format": "orrery-scenario", "version": 1,
        "cluster": {"nodes": [{"gpu": "v100", "count": 2, "gpus_per_node": 4}]},
        "workload": {"jobs": [)" +
                             jobJson + "]}}";
    return io::parseScenarioText(text, "e.json");
}

} // namespace

class TestElastic : public QObject
{
    Q_OBJECT

private slots:
    void engineRefusesCountsOutsideTheRange()
    {
        const auto cluster = makeCluster({{"v100-16gb", 2, 4}});
        const auto w = prepare(cluster, {elasticJob("e", 4, 2, 8, {2, 4, 8}), fixedJob("rigid", 0, 4, 1000)});
        Scripted three([](sim::Decision& d, int) { d.assign(0, gpusOn(0, 3)); });
        QCOMPARE(QString::fromStdString(errorOf([&] { sim::simulate(w, three, 0); })),
                 QString("policy \"scripted\" at t=0.0s: job \"e\" runs on one of 2, 4, 8 GPUs, not 3 (its elastic "
                         "range)"));
        Scripted rigid([](sim::Decision& d, int) { d.assign(1, gpusOn(1, 2)); });
        QCOMPARE(QString::fromStdString(errorOf([&] { sim::simulate(w, rigid, 0); })),
                 QString("policy \"scripted\" at t=0.0s: job \"rigid\" runs on exactly 4 GPUs, not 2 (its elastic "
                         "range)"));
        const auto w2 = prepare(cluster, {elasticJob("open", 2, 2, 6)});
        Scripted seven([](sim::Decision& d, int) { d.assign(0, concat(gpusOn(0, 4), gpusOn(1, 3))); });
        QCOMPARE(QString::fromStdString(errorOf([&] { sim::simulate(w2, seven, 0); })),
                 QString("policy \"scripted\" at t=0.0s: job \"open\" runs on 2 to 6 GPUs, not 7 (its elastic "
                         "range)"));
    }

    void aCountInsideTheRangeRunsAndScales()
    {
        // 1,000 reference seconds on 4 V100s; on 8 in two nodes the rate is 8/4 x 0.9 (cross-node factor).
        const auto w = prepare(makeCluster({{"v100-16gb", 2, 4}}), {elasticJob("e", 4, 2, 8, {2, 4, 8})});
        Scripted eight([](sim::Decision& d, int call) {
            if (call == 0)
                d.assign(0, concat(gpusOn(0, 4), gpusOn(1, 4)));
        });
        const auto r = sim::simulate(w, eight, 0);
        QCOMPARE(r.jobs[0].gpus, 8);
        QVERIFY(std::abs(r.jobs[0].endS - 1000 / 1.8) < 1e-9);
        // Its ideal run time is that of the best count of its range: 8 GPUs, across two nodes.
        QVERIFY(std::abs(w.job(0).idealS - 1000 / 1.8) < 1e-9);
    }

    void rateOnIsTheRateTheEngineCommits()
    {
        const auto w = prepare(makeCluster({{"v100-16gb", 1, 4}, {"k80", 1, 4}}), {elasticJob("e", 4, 1, 6)});
        const std::vector<int> six = concat(gpusOn(0, 4), gpusOn(1, 2));
        double predicted = -1, committed = -1, above = -1, below = -1;
        Scripted s(
            [&](sim::Decision& d, int call) {
                const auto& v = d.view();
                if (call == 0) {
                    predicted = v.rateOn(0, six);
                    above = v.rateOn(0, concat(gpusOn(0, 4), gpusOn(1, 4))); // 8 GPUs: uses 6 of them
                    below = v.rateOn(0, {});                                 // nothing
                    d.assign(0, six);
                } else if (call == 1) {
                    committed = v.currentRate(0);
                }
            },
            {10});
        sim::simulate(w, s, 0);
        // A mix runs at the slowest type's per-GPU rate: 6/4 x K80/V100 bandwidth, times the cross-node factor.
        const double k80 = w.type(1).memoryBandwidthGBps / w.type(0).memoryBandwidthGBps;
        QVERIFY(std::abs(predicted - 1.5 * k80 * 0.9) < 1e-12);
        QCOMPARE(committed, predicted);
        QCOMPARE(below, 0.0);
        // Above its max, more GPUs buy nothing: the rate is that of 6 (the set still spans both nodes).
        QVERIFY(std::abs(above - predicted) < 1e-12);
        QVERIFY(!w.accepts(0, 8));
        QVERIFY(w.accepts(0, 1));
    }

    void policiesSeeRestartsAndTimeLost()
    {
        // 4 GPUs from 0 to 100 (100 s of work done), then resized to 8: a 30 s pause, 900 s left at rate 2 x 0.9.
        const auto w = prepare(makeCluster({{"v100-16gb", 2, 4}}), {elasticJob("e", 4, 4, 8)});
        std::vector<std::pair<int, double>> seen;
        Scripted s(
            [&](sim::Decision& d, int call) {
                const auto& v = d.view();
                if (call == 0)
                    d.assign(0, gpusOn(0, 4));
                if (call == 1) {
                    d.release(0);
                    d.assign(0, concat(gpusOn(0, 4), gpusOn(1, 4)));
                }
                if (call >= 1)
                    seen.emplace_back(v.restarts(0), v.restartLostS(0));
            },
            {100, 110, 200});
        const auto r = sim::simulate(w, s, 0);
        QCOMPARE(seen.size(), std::size_t(3));
        QCOMPARE(seen[0].first, 0); // asked before the resize is committed
        QCOMPARE(seen[0].second, 0.0);
        QCOMPARE(seen[1].first, 1);
        QCOMPARE(seen[1].second, 10.0); // 10 s into the 30 s pause
        QCOMPARE(seen[2].second, 30.0);
        QCOMPARE(r.jobs[0].restarts, 1);
        QVERIFY(std::abs(r.jobs[0].endS - (130 + 900 / 1.8)) < 1e-9);
    }

    void scenariosDeclareRanges()
    {
        const auto s =
            scenarioWithJob(R"({"id": "e", "gpus": 4, "duration_s": 100, "allowed_gpus": [2, 4, 8], "arch": "vgg16"})");
        const auto& j = s.workload.jobs.front();
        QCOMPARE(j.minGpus, 2);
        QCOMPARE(j.maxGpus, 8);
        QCOMPARE(j.allowedGpus, (std::vector<int>{2, 4, 8}));
        QCOMPARE(j.arch, std::string("vgg16"));
        // A bound not given is the request.
        const auto up = scenarioWithJob(R"({"id": "e", "gpus": 4, "duration_s": 100, "max_gpus": 8})");
        QCOMPARE(up.workload.jobs.front().minGpus, 4);
        QCOMPARE(up.workload.jobs.front().maxGpus, 8);
        // Written back as read.
        const auto again = io::parseScenario(io::scenarioToJson(s), "again.json");
        QCOMPARE(again.workload.jobs, s.workload.jobs);
        QCOMPARE(io::scenarioToJsonText(s), io::scenarioToJson(s).dump());
        // No range: nothing written, nothing changed.
        const auto plain = scenarioWithJob(R"({"id": "p", "gpus": 4, "duration_s": 100})");
        QVERIFY(!io::scenarioToJson(plain)["workload"]["jobs"][0].contains("min_gpus"));
        QCOMPARE(plain.workload.jobs.front().minGpus, 0);
    }

    void badRangesAreRejected_data()
    {
        QTest::addColumn<QString>("job");
        QTest::addColumn<QString>("error");
        QTest::newRow("min above max") << R"({"gpus": 4, "duration_s": 1, "min_gpus": 6, "max_gpus": 5})"
                                       << "e.json: workload.jobs[0].max_gpus: max_gpus 5 is below min_gpus 6";
        QTest::newRow("request outside")
            << R"({"gpus": 4, "duration_s": 1, "min_gpus": 1, "max_gpus": 2})"
            << "e.json: workload.jobs[0].gpus: the request of 4 GPUs is outside the job's own range (1..2)";
        QTest::newRow("request not listed")
            << R"({"gpus": 3, "duration_s": 1, "allowed_gpus": [2, 4]})"
            << "e.json: workload.jobs[0].gpus: the request of 3 GPUs is outside the job's own range (2..4, not an "
               "allowed count)";
        QTest::newRow("not increasing")
            << R"({"gpus": 4, "duration_s": 1, "allowed_gpus": [4, 2]})"
            << "e.json: workload.jobs[0].allowed_gpus[1]: expected counts in increasing order, without repeats, got 2";
        QTest::newRow("listed outside") << R"({"gpus": 4, "duration_s": 1, "max_gpus": 4, "allowed_gpus": [4, 8]})"
                                        << "e.json: workload.jobs[0].allowed_gpus[1]: count 8 is outside "
                                           "min_gpus..max_gpus (4..4)";
        QTest::newRow("zero") << R"({"gpus": 4, "duration_s": 1, "allowed_gpus": [0, 4]})"
                              << "e.json: workload.jobs[0].allowed_gpus[0]: expected a GPU count in [1, 65536], got 0";
        QTest::newRow("empty list") << R"({"gpus": 4, "duration_s": 1, "allowed_gpus": []})"
                                    << "e.json: workload.jobs[0].allowed_gpus: expected a non-empty array of GPU "
                                       "counts, got an array";
        QTest::newRow("arch on serverless")
            << R"({"model": "gpt2-124m", "batch": 8, "iterations": 10, "arch": "vgg16"})"
            << "e.json: workload.jobs[0].arch: only fixed-request jobs (with \"gpus\") take this field";
    }
    void badRangesAreRejected()
    {
        QFETCH(QString, job);
        QFETCH(QString, error);
        QCOMPARE(QString::fromStdString(errorOf([&] { scenarioWithJob(job.toStdString()); })), error);
    }

    void preparingRefusesARequestOutsideItsRange()
    {
        auto j = elasticJob("bad", 4, 1, 2);
        QCOMPARE(QString::fromStdString(errorOf([&] {
                     prepare(makeCluster({{"v100-16gb", 1, 4}}), {j});
                 })),
                 QString("workload.jobs[0]: job \"bad\": its request of 4 GPUs is outside its own range (1..2)"));
    }
};

QTEST_GUILESS_MAIN(TestElastic)
#include "test_elastic.moc"
