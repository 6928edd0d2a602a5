// orrery-cli serve place|simulate: placement round trip through the placement file, JSON reports, baselines,
// MAF traces, bad input (exit 2 with the file and field named), and serving runs stored with --db, listed, shown,
// exported to CSV and deleted (`serve runs`).
#include "test_support.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <algorithm>
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

    void thresholdSearchesPerMethod()
    {
        const std::vector<std::string> small{
            "--models", "bert-1.3b:2",        "--gpus", "2",           "--cv", "2", "--duration",
            "120",      "--memory-budget-gb", "13",     "--slo-scale", "3"};
        const auto found = cli(with({"serve", "threshold", "--metric", "rate", "--from", "1", "--to", "64",
                                     "--algorithms", "alpaserve,sr", "--threads", "2", "--json"},
                                    small));
        QVERIFY2(found.exitCode == 0, found.err.c_str());
        const auto doc = nlohmann::json::parse(found.out);
        QCOMPARE(doc["metric"].get<std::string>(), std::string("rate"));
        QCOMPARE(doc["results"].size(), std::size_t(2));
        const auto& alpa = doc["results"][0];
        QCOMPARE(alpa["method"].get<std::string>(), std::string("alpaserve"));
        const double value = alpa["value"].get<double>(), missed = alpa["missed"].get<double>();
        QVERIFY(value < missed && missed <= value * 1.05 + 1e-9);
        QVERIFY(value >= doc["results"][1]["value"].get<double>());
        // The probes say which met; the answer is the largest that did, the next the smallest that did not.
        double largestMet = 0, smallestMissed = 1e9;
        for (const auto& p : alpa["probes"]) {
            QCOMPARE(p["meets"].get<bool>(), p["attainment"].get<double>() >= 0.99);
            if (p["meets"].get<bool>())
                largestMet = std::max(largestMet, p["value"].get<double>());
            else
                smallestMissed = std::min(smallestMissed, p["value"].get<double>());
        }
        QCOMPARE(largestMet, value);
        QCOMPARE(smallestMissed, missed);

        const auto text = cli(
            with({"serve", "threshold", "--metric", "devices", "--from", "1", "--to", "2", "--algorithms", "alpaserve"},
                 small));
        QVERIFY2(text.exitCode == 0, text.err.c_str());
        QVERIFY(text.out.find("AlpaServe") != std::string::npos);

        const auto zero = cli(with({"serve", "threshold", "--metric", "rate", "--from", "0", "--to", "4"}, small));
        QCOMPARE(zero.exitCode, 2);
        QVERIFY2(zero.err.find("0 < from < to") != std::string::npos, zero.err.c_str());
        const auto method = cli(
            with({"serve", "threshold", "--metric", "cv", "--from", "1", "--to", "4", "--algorithms", "alpaserve,x"},
                 small));
        QCOMPARE(method.exitCode, 2);
        QVERIFY(method.err.find("--algorithms") != std::string::npos);
    }

    void ablationsAndBatchingThroughPlace()
    {
        for (const std::string algorithm : {"round-robin", "greedy"}) {
            const auto r = cli(with({"serve", "place", "--algorithm", algorithm, "--json"}, kSmall));
            QVERIFY2(r.exitCode == 0, r.err.c_str());
            const auto doc = nlohmann::json::parse(r.out);
            // Four GPUs: one 4-stage pipeline.
            QCOMPARE(doc["placement"]["groups"].size(), std::size_t(1));
            QCOMPARE(doc["placement"]["groups"][0]["stages"].get<int>(), 4);
        }
        const auto batched = cli(with({"serve", "place", "--max-batch", "4", "--equal-layer-split", "--json"}, kSmall));
        QVERIFY2(batched.exitCode == 0, batched.err.c_str());
        const double attainment = nlohmann::json::parse(batched.out)["attainment"].get<double>();
        QVERIFY(attainment > 0 && attainment <= 1);
        const auto bad = cli(with({"serve", "place", "--max-batch", "0"}, kSmall));
        QCOMPARE(bad.exitCode, 2);
    }

    void maf2TraceThroughPlace()
    {
        const auto r = cli({"serve", "place", "--models", "bert-1.3b:2", "--gpus", "2", "--trace",
                            sourcePath("data/serving/maf2_synthetic.csv"), "--window-min", "30", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const auto doc = nlohmann::json::parse(r.out);
        QVERIFY(doc["requests"].get<long long>() > 0);
        QVERIFY(doc["attainment"].get<double>() > 0);
        QTemporaryDir dir;
        const std::string file = dir.filePath("maf2.csv").toStdString();
        std::ofstream(file) << "app,func,end_timestamp,duration\na,f,10,12\n";
        const auto badTrace = cli({"serve", "place", "--models", "bert-1.3b:2", "--gpus", "2", "--trace", file});
        QCOMPARE(badTrace.exitCode, 2);
        QVERIFY2(badTrace.err.find("maf2.csv:2: duration: 12 s is longer") != std::string::npos, badTrace.err.c_str());
    }

    void storedRunsListShowExportDelete()
    {
        QTemporaryDir dir;
        const std::string db = dir.filePath("runs.sqlite").toStdString();
        const std::string file = dir.filePath("p.json").toStdString();
        const auto placed = cli(with({"serve", "place"}, with(kSmall, {"--output", file, "--json", "--db", db})));
        QVERIFY2(placed.exitCode == 0, placed.err.c_str());
        QVERIFY2(placed.err.find("stored serving run 1 in") != std::string::npos, placed.err.c_str());
        const auto report = nlohmann::json::parse(placed.out);
        const auto sim = cli(with({"serve", "simulate"}, with(kSmall, {"--placement", file, "--db", db})));
        QVERIFY2(sim.exitCode == 0, sim.err.c_str());

        const auto list = cli({"serve", "runs", "list", "--db", db, "--json"});
        QVERIFY2(list.exitCode == 0, list.err.c_str());
        const auto runs = nlohmann::json::parse(list.out)["serving_runs"];
        QCOMPARE(runs.size(), std::size_t(2));
        QCOMPARE(runs[0]["method"].get<std::string>(), std::string("alpaserve"));
        QCOMPARE(runs[1]["method"].get<std::string>(), std::string("given"));
        QCOMPARE(runs[0]["models"].get<std::string>(), std::string("bert-1.3b:4"));
        QCOMPARE(runs[0]["attainment"].get<double>(), report["attainment"].get<double>());
        // The given placement is the searched one: the same attainment.
        QCOMPARE(runs[1]["attainment"].get<double>(), report["attainment"].get<double>());
        QCOMPARE(cli({"serve", "runs", "list", "--db", db, "--method", "given", "--json"}).out.find("alpaserve"),
                 std::string::npos);
        const auto text = cli({"serve", "runs", "list", "--db", db});
        QVERIFY2(text.exitCode == 0 && text.out.find("attainment_pct") != std::string::npos, text.out.c_str());

        const auto show = cli({"serve", "runs", "show", "1", "--db", db, "--json"});
        QVERIFY2(show.exitCode == 0, show.err.c_str());
        const auto stored = nlohmann::json::parse(show.out);
        QCOMPARE(stored["served"].get<long long>(), report["served"].get<long long>());
        QCOMPARE(stored["groups"].size(), report["groups"].size());
        for (std::size_t g = 0; g < report["groups"].size(); ++g) {
            QCOMPARE(stored["groups"][g]["models"], report["groups"][g]["models"]);
            QCOMPARE(stored["groups"][g]["stages"], report["groups"][g]["stages"]);
            QCOMPARE(stored["groups"][g]["intra"], report["groups"][g]["intra"]);
        }
        QCOMPARE(stored["spec"]["gpus"].get<int>(), 4);
        QCOMPARE(stored["spec"]["memory_budget_gb"].get<double>(), 13.0);
        QCOMPARE(stored["models"].size(), std::size_t(4));
        QCOMPARE(stored["latency_cdf"].size(), std::size_t(200));
        const auto showText = cli({"serve", "runs", "show", "2", "--db", db});
        QVERIFY2(showText.out.find("given placement on 4 x v100-16gb") != std::string::npos, showText.out.c_str());

        const std::string csv = dir.filePath("runs.csv").toStdString();
        const auto exported = cli({"serve", "runs", "export", "--db", db, "-o", csv});
        QVERIFY2(exported.exitCode == 0, exported.err.c_str());
        std::ifstream in(csv);
        std::string header, row1, row2, extra;
        std::getline(in, header);
        std::getline(in, row1);
        std::getline(in, row2);
        QVERIFY(!std::getline(in, extra));
        QVERIFY2(
            header.rfind("run_id,created_at,method,model_set,models,gpu_type,gpus,rate_per_s,cv,slo_scale,requests,"
                         "served,rejected,attainment_pct,latency_mean_s,latency_p50_s,latency_p90_s,latency_p99_s,"
                         "latency_max_s,groups,replicas,search_s",
                         0) == 0,
            header.c_str());
        QVERIFY(row1.rfind("1,", 0) == 0 && row2.rfind("2,", 0) == 0);
        const auto models = cli({"serve", "runs", "export", "1", "--db", db, "--what", "models"});
        QVERIFY2(models.exitCode == 0, models.err.c_str());
        QCOMPARE(std::count(models.out.begin(), models.out.end(), '\n'), 5L);
        QVERIFY(models.out.rfind("run_id,model,kind,slo_s,requests,served,attainment_pct\r\n1,bert-1.3b#0,bert-1.3b,",
                                 0) == 0);
        const auto groups = cli({"serve", "runs", "export", "1", "--db", db, "--what", "groups"});
        QCOMPARE(std::count(groups.out.begin(), groups.out.end(), '\n'),
                 static_cast<long>(report["groups"].size()) + 1);

        const auto del = cli({"serve", "runs", "delete", "2", "--db", db});
        QVERIFY2(del.exitCode == 0, del.err.c_str());
        QCOMPARE(nlohmann::json::parse(cli({"serve", "runs", "list", "--db", db, "--json"}).out)["serving_runs"].size(),
                 std::size_t(1));
        const auto missing = cli({"serve", "runs", "show", "2", "--db", db});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY2(missing.err.find("no serving run with id 2") != std::string::npos, missing.err.c_str());
        const auto noStore = cli({"serve", "runs", "list", "--db", dir.filePath("none.sqlite").toStdString()});
        QCOMPARE(noStore.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliServe)
#include "test_cli_serve.moc"
