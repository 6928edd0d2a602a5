#include "test_support.h"

#include "io/error.h"
#include "io/scenario.h"
#include "io/workload_loader.h"
#include "workload/duration_distribution.h"
#include "workload/generator.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <set>

// generateJobs(mixedSpec(3, 60), seed 42): arrival, kind, batch or GPUs, iterations, durationS.
#define PINNED_STREAM "0.000 S 8 68973 0.0;140.149 S 8 33475 0.0;159.351 S 16 613 0.0;"

using namespace orrery;
using orrery::test::errorOf;
using namespace orrery::workload;

namespace {

GeneratorSpec mixedSpec(int jobs, double rate)
{
    GeneratorSpec g;
    g.jobs = jobs;
    g.ratePerHour = rate;
    g.mix = {MixEntry{3.0, "gpt2-124m", {8, 16}, {}}, MixEntry{1.0, "", {}, {1, 2, 4}}};
    return g;
}

} // namespace

class TestGenerator : public QObject
{
    Q_OBJECT

private slots:
    void phillyTable()
    {
        const auto& q = phillyDurationQuantiles();
        QCOMPARE(q.size(), std::size_t(201));
        // README: philly_runtime.csv spans 0.0 to 4,628,239 s with median 1,186.
        QCOMPARE(q.front(), 0.0);
        QCOMPARE(q.back(), 4628239.0);
        QCOMPARE(DurationDistribution::philly().quantile(0.5), 1186.0);
        for (std::size_t i = 1; i < q.size(); ++i)
            QVERIFY(q[i] >= q[i - 1]);
    }

    void csvDistribution()
    {
        // CRLF, trailing blank lines, an extra column; sorted on load.
        const auto d = DurationDistribution::fromCsvText("id,duration\r\na,300\r\nb,100\r\nc,200\r\n\r\n", "d.csv");
        QCOMPARE(d.quantile(0), 100.0);
        QCOMPARE(d.quantile(0.5), 200.0);
        QCOMPARE(d.quantile(0.75), 250.0);
        QCOMPARE(d.quantile(1), 300.0);
        // A single unnamed-purpose column is taken as is (the Tiresias yarn-gput files).
        QCOMPARE(DurationDistribution::fromCsvText("gput\n5\n7\n", "y.csv").quantile(1), 7.0);
        QCOMPARE(errorOf([] { DurationDistribution::fromCsvText("duration\n5\n-7\n", "bad.csv"); }),
                 std::string("bad.csv:3: duration: expected a non-negative number, got \"-7\""));
        QCOMPARE(errorOf([] { DurationDistribution::fromCsvText("a,b\n5,6\n", "bad.csv"); }),
                 std::string("bad.csv:1: header: expected a column named runtime, duration or duration_s (or a "
                             "single column)"));
        const std::string real = test::sharedDataPath("alibaba/philly_runtime.csv");
        if (real.empty())
            QSKIP("shared data not present");
        // The built-in table is this file's quantiles.
        const auto fromFile = DurationDistribution::fromCsvFile(real);
        QCOMPARE(fromFile.points().size(), std::size_t(83154));
        for (double u : {0.01, 0.25, 0.5, 0.9, 0.99})
            QVERIFY(std::abs(fromFile.quantile(u) - DurationDistribution::philly().quantile(u)) <=
                    0.05 + 1e-9 * fromFile.quantile(u));
    }

    void referenceRate()
    {
        // gpt2-124m, batch 8 at its default 1,024 tokens: 6 x P x 8 x 1024 FLOPs per iteration at 124.8 TFLOP/s.
        const auto& m = ModelLibrary::builtin().at("gpt2-124m");
        const double expected = 0.4 * 312e12 / (6.0 * static_cast<double>(m.paramCount()) * 8 * m.seq);
        QCOMPARE(referenceIterationsPerS(m, 8), expected);
        QVERIFY(expected > 1 && expected < 100);
    }

    void pinnedStream()
    {
        // The same numbers on every platform and standard library: pinned, so a change to the stream shows.
        const auto jobs = generateJobs(mixedSpec(3, 60), 42, ModelLibrary::builtin(), DurationDistribution::philly());
        QCOMPARE(jobs[0].arrivalS, 0.0);
        QCOMPARE(jobs[0].id, std::string("g0"));
        const std::vector<Job> again =
            generateJobs(mixedSpec(3, 60), 42, ModelLibrary::builtin(), DurationDistribution::philly());
        QCOMPARE(jobs, again);
        QVERIFY(jobs[1].arrivalS > 0);
        QString pinned;
        for (const auto& j : jobs)
            pinned += QString("%1 %2 %3 %4 %5;")
                          .arg(j.arrivalS, 0, 'f', 3)
                          .arg(j.kind == JobKind::Serverless ? "S" : "F")
                          .arg(j.kind == JobKind::Serverless ? j.config.globalBatch : j.gpus)
                          .arg(j.iterations, 0, 'f', 0)
                          .arg(j.durationS, 0, 'f', 1);
        QCOMPARE(pinned, QString(PINNED_STREAM));
    }

    void sameSeedSameJobs()
    {
        ORRERY_CHECK_PROPERTY("same seed, same jobs; another seed, other jobs", [] {
            const auto seed = *rc::gen::arbitrary<std::uint64_t>();
            const int n = *rc::gen::inRange(2, 300);
            const double rate = *rc::gen::inRange(1, 5000);
            const auto spec = mixedSpec(n, rate);
            const auto a = generateJobs(spec, seed, ModelLibrary::builtin(), DurationDistribution::philly());
            const auto b = generateJobs(spec, seed, ModelLibrary::builtin(), DurationDistribution::philly());
            RC_ASSERT(a == b);
            const auto c = generateJobs(spec, seed + 1, ModelLibrary::builtin(), DurationDistribution::philly());
            RC_ASSERT(!(a == c));
        });
    }

    void jobsAreWellFormed()
    {
        ORRERY_CHECK_PROPERTY("ids, arrivals, clamped durations, mix choices", [] {
            auto spec = mixedSpec(*rc::gen::inRange(1, 400), *rc::gen::inRange(0, 1000));
            spec.minDurationS = *rc::gen::inRange(1, 600);
            spec.maxDurationS = spec.minDurationS + *rc::gen::inRange(0, 100000);
            const auto seed = *rc::gen::arbitrary<std::uint64_t>();
            const auto jobs = generateJobs(spec, seed, ModelLibrary::builtin(), DurationDistribution::philly());
            RC_ASSERT(jobs.size() == static_cast<std::size_t>(spec.jobs));
            const auto& model = ModelLibrary::builtin().at("gpt2-124m");
            for (std::size_t i = 0; i < jobs.size(); ++i) {
                const Job& j = jobs[i];
                RC_ASSERT(j.id == "g" + std::to_string(i));
                const bool ordered = i == 0 ? j.arrivalS == 0 : j.arrivalS >= jobs[i - 1].arrivalS;
                RC_ASSERT(ordered);
                if (spec.ratePerHour == 0)
                    RC_ASSERT(j.arrivalS == 0.0);
                if (j.kind == JobKind::Fixed) {
                    RC_ASSERT(j.durationS >= spec.minDurationS && j.durationS <= spec.maxDurationS);
                    RC_ASSERT(j.gpus == 1 || j.gpus == 2 || j.gpus == 4);
                } else {
                    RC_ASSERT(j.model == std::string("gpt2-124m"));
                    RC_ASSERT(j.config.globalBatch == 8 || j.config.globalBatch == 16);
                    const double rate = referenceIterationsPerS(model, j.config.globalBatch);
                    // iterations = ceil(duration x rate) for a duration inside the clamp.
                    RC_ASSERT(j.iterations >= std::max(1.0, std::ceil(spec.minDurationS * rate)));
                    RC_ASSERT(j.iterations <= std::ceil(spec.maxDurationS * rate));
                }
            }
        });
    }

    void poissonRate()
    {
        ORRERY_CHECK_PROPERTY("mean inter-arrival over 10,000 jobs is 3600/rate within 5%", [] {
            const double rate = *rc::gen::inRange(1, 100000) / 10.0;
            const auto seed = *rc::gen::arbitrary<std::uint64_t>();
            const auto jobs =
                generateJobs(mixedSpec(10000, rate), seed, ModelLibrary::builtin(), DurationDistribution::philly());
            const double meanGap = jobs.back().arrivalS / 9999.0;
            // The standard error of the mean of 9,999 exponential gaps is 1%; 5% is five of them.
            RC_ASSERT(std::abs(meanGap / (3600.0 / rate) - 1.0) < 0.05);
            // The mix's weights (3:1) hold too: 75% serverless, standard error 0.43%.
            int serverless = 0;
            for (const auto& j : jobs)
                serverless += j.kind == JobKind::Serverless;
            RC_ASSERT(std::abs(serverless / 10000.0 - 0.75) < 0.025);
        });
    }

    void durationsFollowPhilly()
    {
        // Unclamped, the generated durations' median is Philly's (1,186 s) within sampling error.
        auto spec = mixedSpec(20001, 60);
        spec.minDurationS = 0.001;
        spec.maxDurationS = 1e9;
        spec.mix = {MixEntry{1.0, "", {}, {1}}};
        auto jobs = generateJobs(spec, 7, ModelLibrary::builtin(), DurationDistribution::philly());
        std::vector<double> d;
        for (const auto& j : jobs)
            d.push_back(j.durationS);
        std::nth_element(d.begin(), d.begin() + 10000, d.end());
        QVERIFY2(std::abs(d[10000] / 1186.0 - 1) < 0.08, qPrintable(QString::number(d[10000])));
    }

    void loadJobsCombinesSources()
    {
        const std::string msr = test::sharedDataPath("gavel/traces/msr_seed0_0e4a51.trace");
        if (msr.empty())
            QSKIP("shared data not present");
        QTemporaryDir dir;
        const std::string scenarioPath = dir.filePath("s.json").toStdString();
        {
            std::ofstream(dir.filePath("d.csv").toStdString()) << "duration\n100\n200\n";
        }
        nlohmann::json doc = {
            {"format", "orrery-scenario"},
            {"version", 1},
            {"name", "mixed"},
            {"cluster", {{"nodes", {{{"gpu", "v100"}, {"count", 2}, {"gpus_per_node", 8}}}}}},
            {"workload",
             {{"jobs",
               {{{"id", "0"}, {"arrival_s", 50}, {"gpus", 1}, {"duration_s", 10}},
                {{"id", "g1"}, {"arrival_s", 0}, {"gpus", 1}, {"duration_s", 10}}}},
              {"trace", {{"format", "gavel"}, {"path", msr}, {"limit", 5}}},
              {"generator",
               {{"jobs", 4}, {"rate_per_hour", 3600}, {"durations", "d.csv"}, {"mix", {{{"gpus", {2}}}}}}}}},
            {"options", {{"seed", 9}}}};
        std::ofstream(scenarioPath) << doc.dump();
        const io::Scenario s = io::loadScenario(scenarioPath);
        const auto jobs = io::loadJobs(s);
        QCOMPARE(jobs.size(), std::size_t(2 + 5 + 4));
        for (std::size_t i = 1; i < jobs.size(); ++i)
            QVERIFY(jobs[i - 1].arrivalS <= jobs[i].arrivalS);
        std::set<std::string> ids;
        for (const auto& j : jobs)
            ids.insert(j.id);
        QCOMPARE(ids.size(), jobs.size());
        // Inline ids win; the trace's "0" and the generator's "g1" are renamed.
        QVERIFY(ids.count("0") && ids.count("0~2") && ids.count("g1") && ids.count("g1~2"));
        for (const auto& j : jobs)
            if (j.id.rfind("g", 0) == 0 && j.id != "g1") {
                QCOMPARE(j.gpus, 2);
                QVERIFY(j.durationS >= 100 && j.durationS <= 200);
            }
        // Seeded by the scenario: loading twice gives the same jobs.
        QCOMPARE(io::loadJobs(s), jobs);
    }

    void loadJobsNeedsOpenbTypes()
    {
        const std::string pods = test::sharedDataPath("alibaba/openb_pod_list_gpuspec33.csv");
        if (pods.empty())
            QSKIP("shared data not present");
        nlohmann::json doc = {{"format", "orrery-scenario"},
                              {"version", 1},
                              {"name", "o"},
                              {"cluster", {{"nodes", {{{"gpu", "v100"}, {"count", 2}, {"gpus_per_node", 8}}}}}},
                              {"workload", {{"trace", {{"format", "openb"}, {"path", pods}}}}}};
        const io::Scenario s = io::parseScenario(doc, "o.json");
        const std::string e = errorOf([&] { io::loadJobs(s); });
        QVERIFY2(e.find("openb_pod_list_gpuspec33.csv: job \"") == 0, e.c_str());
        QVERIFY2(e.find("needs GPU type \"openb-g") != std::string::npos, e.c_str());
    }
};

QTEST_GUILESS_MAIN(TestGenerator)
#include "test_generator.moc"
