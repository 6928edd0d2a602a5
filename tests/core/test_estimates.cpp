// Estimates versus truth (docs/simulator.md): seeded per-job error factors, what View::estimated* return,
// and the policies that read them.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "io/scenario.h"
#include "sched/registry.h"
#include "sim/estimate_error.h"
#include "sim/simulator.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace orrery;
using orrery::test::fixedJob;
using orrery::test::makeCluster;
using orrery::test::prepare;

namespace {

io::ScenarioOptions withError(const std::string& mode, double scale)
{
    io::ScenarioOptions o;
    o.estimateError = mode;
    o.estimateErrorScale = scale;
    return o;
}

/** Reads every estimate at its first decision, then does nothing more than FIFO. */
class Probe : public sim::Policy
{
public:
    std::string name() const override { return "probe"; }
    void schedule(sim::Decision& d) override
    {
        const auto& v = d.view();
        if (work.empty())
            for (int j = 0; j < v.jobCount(); ++j) {
                work.push_back(v.estimatedWork(j));
                remaining.push_back(v.estimatedRemainingWork(j));
                duration.push_back(v.estimatedDurationS(j));
                userMax.push_back(v.userMaxRuntimeS(j));
            }
        std::vector<int> queued = v.queued();
        std::sort(queued.begin(), queued.end());
        for (int j : queued)
            if (!d.place(j))
                break;
    }
    std::vector<double> work, remaining, duration, userMax;
};

std::vector<workload::Job> tenJobsAtZero()
{
    std::vector<workload::Job> jobs;
    for (int j = 0; j < 10; ++j)
        jobs.push_back(fixedJob("j" + std::to_string(j), 0, 1, 100 + 10 * j));
    return jobs;
}

std::string parseError(const nlohmann::json& options)
{
    nlohmann::json doc = {{"format", "orrery-scenario"},
                          {"version", 1},
                          {"cluster", {{"nodes", {{{"gpu", "v100"}, {"gpus_per_node", 1}}}}}},
                          {"workload", {{"jobs", {{{"gpus", 1}, {"duration_s", 10}}}}}},
                          {"options", options}};
    try {
        io::parseScenario(doc, "s.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

class TestEstimates : public QObject
{
    Q_OBJECT
private slots:
    void withoutErrorsEstimatesAreTheTruth()
    {
        auto jobs = tenJobsAtZero();
        jobs[3].maxRuntimeS = 500;
        const auto w = prepare(makeCluster({{"v100", 1, 1}}), jobs);
        QVERIFY(sim::estimateErrorFactors(w.options(), w.jobCount(), 7).empty());
        Probe p;
        sim::simulate(w, p, 7);
        for (int j = 0; j < w.jobCount(); ++j) {
            QCOMPARE(p.work[static_cast<std::size_t>(j)], w.job(j).work);
            QCOMPARE(p.remaining[static_cast<std::size_t>(j)], w.job(j).work);
            QCOMPARE(p.duration[static_cast<std::size_t>(j)], w.job(j).idealS);
        }
        QCOMPARE(p.userMax[3], 500.0);
        QCOMPARE(p.userMax[0], -1.0);
    }

    void uniformErrorsStayInTheirBandAndFollowTheSeed()
    {
        const auto o = withError("uniform", 0.2);
        const auto a = sim::estimateErrorFactors(o, 2000, 11);
        QCOMPARE(a, sim::estimateErrorFactors(o, 2000, 11));
        QVERIFY(a != sim::estimateErrorFactors(o, 2000, 12));
        for (double f : a)
            QVERIFY(f >= 0.8 && f <= 1.2);
        const double mean = std::accumulate(a.begin(), a.end(), 0.0) / a.size();
        QVERIFY(std::abs(mean - 1) < 0.01); // U(-0.2, 0.2): standard error of the mean 0.0026
        QVERIFY(*std::min_element(a.begin(), a.end()) < 0.81 && *std::max_element(a.begin(), a.end()) > 1.19);
        // A job's factor depends on its index, not on the number of jobs.
        const auto fewer = sim::estimateErrorFactors(o, 10, 11);
        QVERIFY(std::equal(fewer.begin(), fewer.end(), a.begin()));
    }

    void lognormalErrorsHaveTheirSigma()
    {
        const auto f = sim::estimateErrorFactors(withError("lognormal", 0.5), 20000, 3);
        double sum = 0, sq = 0;
        for (double x : f) {
            QVERIFY(x > 0);
            sum += std::log(x);
            sq += std::log(x) * std::log(x);
        }
        const double mean = sum / f.size();
        const double sigma = std::sqrt(sq / f.size() - mean * mean);
        QVERIFY2(std::abs(mean) < 0.02, std::to_string(mean).c_str());
        QVERIFY2(std::abs(sigma - 0.5) < 0.02, std::to_string(sigma).c_str());
    }

    void viewReturnsTheTruthTimesTheFactor()
    {
        const auto o = withError("lognormal", 0.3);
        const auto w = prepare(makeCluster({{"v100", 1, 1}}), tenJobsAtZero(), o);
        Probe p;
        sim::simulate(w, p, 5);
        const auto f = sim::estimateErrorFactors(o, w.jobCount(), 5);
        for (int j = 0; j < w.jobCount(); ++j) {
            const auto i = static_cast<std::size_t>(j);
            QCOMPARE(p.work[i], w.job(j).work * f[i]);
            QCOMPARE(p.duration[i], w.job(j).idealS * f[i]);
            QCOMPARE(p.remaining[i], w.job(j).work * f[i]);
        }
    }

    void sjfOrdersByTheEstimate()
    {
        // Ten jobs at t=0 on one GPU: SJF starts them in the order of their estimated run times, which with
        // +-40% errors on durations 100..190 s differs from the true order.
        for (const auto& [mode, scale] : std::vector<std::pair<std::string, double>>{{"none", 0}, {"uniform", 0.4}}) {
            const auto o = withError(mode, scale);
            const auto w = prepare(makeCluster({{"v100", 1, 1}}), tenJobsAtZero(), o);
            auto sjf = sched::makePolicy("sjf");
            const auto r = sim::simulate(w, *sjf, 9);
            const auto f = sim::estimateErrorFactors(o, w.jobCount(), 9);
            std::vector<int> byStart(10), byEstimate(10);
            std::iota(byStart.begin(), byStart.end(), 0);
            std::iota(byEstimate.begin(), byEstimate.end(), 0);
            std::sort(byStart.begin(), byStart.end(),
                      [&](int a, int b) { return r.jobs[a].startS < r.jobs[b].startS; });
            const auto est = [&](int j) {
                return w.job(j).idealS * (f.empty() ? 1.0 : f[static_cast<std::size_t>(j)]);
            };
            std::sort(byEstimate.begin(), byEstimate.end(), [&](int a, int b) { return est(a) < est(b); });
            QCOMPARE(byStart, byEstimate);
            std::vector<int> truth(10);
            std::iota(truth.begin(), truth.end(), 0);
            QCOMPARE(byStart == truth, mode == "none");
        }
    }

    void sameSeedSameErrorsSameRun()
    {
        const auto o = withError("uniform", 0.5);
        const auto w = prepare(makeCluster({{"v100", 1, 2}}), tenJobsAtZero(), o);
        auto a = sched::makePolicy("sjf");
        auto b = sched::makePolicy("sjf");
        const auto r1 = sim::simulate(w, *a, 4);
        const auto r2 = sim::simulate(w, *b, 4);
        for (std::size_t j = 0; j < r1.jobs.size(); ++j)
            QCOMPARE(r1.jobs[j].startS, r2.jobs[j].startS);
    }

    void oraclesAreLabelled()
    {
        QVERIFY(sched::policyInfo("sjf").traits.oracle);
        QVERIFY(sched::policyInfo("edf").traits.oracle);
        QVERIFY(!sched::policyInfo("fifo").traits.oracle);
        QVERIFY(!sched::policyInfo("tiresias").traits.oracle);
        QVERIFY(!sched::policyInfo("frenzy").traits.oracle);
    }

    void scenarioOptionsAreChecked()
    {
        QCOMPARE(parseError({{"estimate_error", "uniform"}, {"estimate_error_scale", 0.2}}), std::string("no error"));
        QVERIFY(parseError({{"estimate_error", "gaussian"}}).find("options.estimate_error") != std::string::npos);
        QVERIFY(parseError({{"estimate_error", "uniform"}, {"estimate_error_scale", 1}})
                    .find("s.json: options.estimate_error_scale: a uniform error is a half-width below 1") !=
                std::string::npos);
        QVERIFY(parseError({{"estimate_error_scale", 0.2}}).find("needs \"estimate_error\"") != std::string::npos);
        QVERIFY(parseError({{"estimate_error", "lognormal"}, {"estimate_error_scale", 9}}).find("sigma up to 5") !=
                std::string::npos);
        // Written back only when set, so a scenario without it keeps its text.
        nlohmann::json doc = {{"format", "orrery-scenario"},
                              {"version", 1},
                              {"cluster", {{"nodes", {{{"gpu", "v100"}, {"gpus_per_node", 1}}}}}},
                              {"workload", {{"jobs", {{{"gpus", 1}, {"duration_s", 10}}}}}}};
        QVERIFY(!io::scenarioToJson(io::parseScenario(doc, "s")).at("options").contains("estimate_error"));
        doc["options"] = {{"estimate_error", "lognormal"}, {"estimate_error_scale", 0.3}};
        const auto back = io::parseScenario(io::scenarioToJson(io::parseScenario(doc, "s")), "s");
        QCOMPARE(back.options.estimateError, std::string("lognormal"));
        QCOMPARE(back.options.estimateErrorScale, 0.3);
    }
};

QTEST_GUILESS_MAIN(TestEstimates)
#include "test_estimates.moc"
