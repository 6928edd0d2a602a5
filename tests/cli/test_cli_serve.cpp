// orrery-cli serve place|simulate: placement round trip through the placement file, JSON reports, baselines,
// MAF traces, and bad input (exit 2 with the file and field named).
#include "test_support.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <fstream>

using orrery::test::cliPath;
using orrery::test::runCommand;
using orrery::test::sourcePath;

namespace {

orrery::test::CommandResult cli(std::vector<std::string> args)
{
    args.insert(args.begin(), cliPath());
    return runCommand(args);
}

const std::vector<std::string> kSmall{
    "--models", "bert-1.3b:4",        "--gpus", "4", "--rate", "8", "--cv", "3", "--duration",
    "300",      "--memory-budget-gb", "13"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

class TestCliServe : public QObject
{
    Q_OBJECT
private slots:
    void placeThenSimulateRoundTrip()
    {
        QTemporaryDir dir;
        const std::string file = dir.filePath("placement.json").toStdString();
        const auto placed = cli(with({"serve", "place"}, with(kSmall, {"--output", file, "--json"})));
        QVERIFY2(placed.exitCode == 0, placed.err.c_str());
        const auto report = nlohmann::json::parse(placed.out);
        QCOMPARE(report["algorithm"].get<std::string>(), std::string("alpaserve"));
        const double attainment = report["attainment"].get<double>();
        QVERIFY(attainment > 0.5 && attainment <= 1.0);
        QVERIFY(report["placement"]["gpus"].get<int>() <= 4);
        QVERIFY(!report["groups"].empty());

        const auto sim = cli(with({"serve", "simulate"}, with(kSmall, {"--placement", file, "--json"})));
        QVERIFY2(sim.exitCode == 0, sim.err.c_str());
        const auto s = nlohmann::json::parse(sim.out);
        // Same models, traffic and seed: the simulation reproduces the search's attainment.
        QCOMPARE(s["attainment"].get<double>(), attainment);
        QCOMPARE(s["served"].get<long long>() + s["rejected"].get<long long>(), s["requests"].get<long long>());
        QVERIFY(s["latency"]["p99_s"].get<double>() <= 5 * 0.151 + 1e-9);
        QCOMPARE(s["latency_cdf"].size(), std::size_t(20));
        QCOMPARE(s["models"].size(), std::size_t(4));
        // The whole place report is accepted as a placement too.
        std::ofstream(dir.filePath("report.json").toStdString()) << placed.out;
        const auto again =
            cli(with({"serve", "simulate"}, with(kSmall, {"--placement", dir.filePath("report.json").toStdString()})));
        QVERIFY2(again.exitCode == 0, again.err.c_str());
        QVERIFY(again.out.find("SLO attainment") != std::string::npos);
    }

    void baselinesAndTraces()
    {
        const auto sr = cli(with({"serve", "place", "--algorithm", "sr", "--json"}, kSmall));
        QVERIFY2(sr.exitCode == 0, sr.err.c_str());
        const auto srDoc = nlohmann::json::parse(sr.out); // kept alive: the loop must not iterate a dead temporary
        for (const auto& g : srDoc["placement"]["groups"])
            QCOMPARE(g["stages"].get<int>() * g["intra"].get<int>(), 1);
        const auto cw = cli({"serve", "place", "--algorithm", "clockwork++", "--models", "bert-1.3b:4", "--gpus", "4",
                             "--trace", sourcePath("data/serving/maf1_synthetic.csv"), "--window-min", "30", "--json"});
        QVERIFY2(cw.exitCode == 0, cw.err.c_str());
        const auto j = nlohmann::json::parse(cw.out);
        QCOMPARE(j["segments"].size(), std::size_t(2)); // 120 minutes, re-placed every two 30-minute windows
        QCOMPARE(j["window_s"].get<double>(), 1800.0);
        const auto text = cli(with({"serve", "place"}, kSmall));
        QVERIFY2(text.exitCode == 0, text.err.c_str());
        QVERIFY(text.out.find("utilisation") != std::string::npos);
    }

    void badInputExitsTwo()
    {
        const auto unknown = cli({"serve", "place", "--models", "bert-1.4b:2", "--gpus", "2"});
        QCOMPARE(unknown.exitCode, 2);
        QVERIFY(unknown.err.find("did you mean \"bert-1.3b\"") != std::string::npos);
        const auto count = cli({"serve", "place", "--models", "bert-1.3b:x", "--gpus", "2"});
        QCOMPARE(count.exitCode, 2);
        QVERIFY(count.err.find("--models: bert-1.3b:x: expected a positive count") != std::string::npos);
        const auto none = cli({"serve", "place", "--gpus", "2"});
        QCOMPARE(none.exitCode, 2);
        const auto algorithm = cli(with({"serve", "place", "--algorithm", "magic"}, kSmall));
        QCOMPARE(algorithm.exitCode, 2);
        QVERIFY(algorithm.err.find("--algorithm") != std::string::npos);

        QTemporaryDir dir;
        const std::string bad = dir.filePath("bad.json").toStdString();
        std::ofstream(bad)
            << R"({"format":"orrery-serving-placement","version":1,"groups":[{"stages":1,"intra":1,"models":["bert-1.3b#9"]}]})";
        const auto missing = cli(with({"serve", "simulate", "--placement", bad}, kSmall));
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.find("bad.json: groups[0].models[0]: no model instance \"bert-1.3b#9\"") !=
                     std::string::npos,
                 missing.err.c_str());
        std::ofstream(bad)
            << R"({"format":"orrery-serving-placement","version":1,"groups":[{"stages":1,"intra":1,"models":["bert-1.3b#0","bert-1.3b#0"]}]})";
        const auto twice = cli(with({"serve", "simulate", "--placement", bad}, kSmall));
        QCOMPARE(twice.exitCode, 2);
        QVERIFY2(twice.err.find("bad.json: groups[0].models[1]: \"bert-1.3b#0\" is listed twice in one group") !=
                     std::string::npos,
                 twice.err.c_str());
        // BERT-6.7B (13.4 GB) does not fit one V100 under the 13 GB budget.
        std::ofstream(bad)
            << R"({"format":"orrery-serving-placement","version":1,"groups":[{"stages":1,"intra":1,"models":["bert-6.7b#0"]}]})";
        const auto full = cli({"serve", "simulate", "--placement", bad, "--models", "bert-6.7b", "--gpus", "4",
                               "--memory-budget-gb", "13"});
        QCOMPARE(full.exitCode, 2);
        QVERIFY2(full.err.find("bad.json: groups[0]: its models do not fit (1, 1)") != std::string::npos,
                 full.err.c_str());
        const auto trace = cli({"serve", "place", "--models", "bert-1.3b", "--gpus", "1", "--trace",
                                sourcePath("data/serving_models.json")});
        QCOMPARE(trace.exitCode, 2);
        QVERIFY(trace.err.find("serving_models.json") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliServe)
#include "test_cli_serve.moc"
