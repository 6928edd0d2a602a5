#include "test_support.h"

#include <nlohmann/json.hpp>

#include <fstream>

using orrery::test::cliPath;
using orrery::test::runCommand;

namespace {

// One V100; A(t=0, 100 s), B(t=10, 50 s), C(t=20, 10 s). FIFO: JCT 100, 140, 140 (avg 126.67);
// SJF: 100, 150, 90 (avg 113.33). See tests/core/test_policies.cpp.
const char* kScenario = R"({"format": "orrery-scenario", "version": 1, "name": "tiny",
  "cluster": {"nodes": [{"name": "v", "gpu": "v100", "count": 1, "gpus_per_node": 1}]},
  "workload": {"jobs": [{"id": "A", "arrival_s": 0, "gpus": 1, "duration_s": 100},
                        {"id": "B", "arrival_s": 10, "gpus": 1, "duration_s": 50},
                        {"id": "C", "arrival_s": 20, "gpus": 1, "duration_s": 10}]},
  "policies": ["fifo"]})";

std::string writeScenario()
{
    const QString path = QDir::temp().filePath("orrery_cli_simulate.json");
    std::ofstream(path.toStdString()) << kScenario;
    return path.toStdString();
}

} // namespace

class TestCliSimulate : public QObject
{
    Q_OBJECT
private slots:
    void jsonRunsPerPolicy()
    {
        const auto r = runCommand({cliPath(), "simulate", writeScenario(), "--policy", "fifo", "--policy", "sjf",
                                   "--seed", "3", "--threads", "2", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto doc = nlohmann::json::parse(r.out);
        const auto& runs = doc.at("runs");
        QCOMPARE(runs.size(), std::size_t(2));
        for (const char* key : {"policy", "jobs", "jobs_completed", "avg_jct_s", "p50_jct_s", "p95_jct_s", "p99_jct_s",
                                "avg_queue_s", "makespan_s", "utilization", "gpu_hours", "cost_usd", "decisions",
                                "decision_wall_s_total", "decision_solver_s_total", "wall_s"})
            QVERIFY2(runs[0].contains(key), key);
        QCOMPARE(runs[0]["policy"].get<std::string>(), std::string("fifo"));
        QCOMPARE(runs[1]["policy"].get<std::string>(), std::string("sjf"));
        QCOMPARE(runs[0]["jobs_completed"].get<int>(), 3);
        QVERIFY(std::abs(runs[0]["avg_jct_s"].get<double>() - 380.0 / 3) < 1e-6);
        QVERIFY(std::abs(runs[1]["avg_jct_s"].get<double>() - 340.0 / 3) < 1e-6);
        QCOMPARE(runs[0]["makespan_s"].get<double>(), 160.0);
        QCOMPARE(runs[0]["seed"].get<int>(), 3);
        // 160 busy GPU-seconds over 160 s of one GPU.
        QVERIFY(std::abs(runs[0]["utilization"].get<double>() - 1.0) < 1e-9);
        QCOMPARE(runs[0]["gpu_hours_by_type"].size(), std::size_t(1));
        QVERIFY(std::abs(runs[0]["gpu_hours_by_type"].begin()->get<double>() - 160.0 / 3600) < 1e-12);
    }

    /** GPU-hours per type add up to the total; the default scenario's serverless jobs use the RTX 2080 Ti too. */
    void gpuHoursByType()
    {
        const auto r = runCommand({cliPath(), "simulate", "default", "--policy", "fifo", "--policy", "sjf", "--json"});
        QCOMPARE(r.exitCode, 0);
        // Keep the document alive: a range-for over parse(...).at(...) would iterate a destroyed temporary.
        const auto doc = nlohmann::json::parse(r.out);
        for (const auto& run : doc.at("runs")) {
            const auto& byType = run.at("gpu_hours_by_type");
            QCOMPARE(byType.size(), std::size_t(3));
            double sum = 0;
            for (const auto& [type, hours] : byType.items())
                sum += hours.get<double>();
            const double total = run.at("gpu_hours").get<double>();
            QVERIFY(std::abs(sum - total) <= 1e-9 * total);
            QVERIFY(byType.at("rtx2080ti").get<double>() > 0);
            QVERIFY(byType.at("a100-40gb-sxm").get<double>() > 0);
        }
        const auto text = runCommand({cliPath(), "simulate", "default", "--policy", "fifo"});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.find("rtx2080ti_gpu_h") != std::string::npos);
    }

    void jsonKeepsRateSegmentsAndThroughputOverTime()
    {
        // FIFO on one V100 at rate 1 (reference seconds): A 0-100, B 100-150, C 150-160.
        const auto r = runCommand({cliPath(), "simulate", writeScenario(), "--policy", "fifo", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto run = nlohmann::json::parse(r.out).at("runs").at(0);
        const auto& seg = run.at("rate_segments");
        QCOMPARE(seg.at("job_index").get<std::vector<int>>(), (std::vector<int>{0, 1, 2}));
        QCOMPARE(seg.at("start_s").get<std::vector<double>>(), (std::vector<double>{0, 100, 150}));
        QCOMPARE(seg.at("end_s").get<std::vector<double>>(), (std::vector<double>{100, 150, 160}));
        QCOMPARE(seg.at("rate_per_s").get<std::vector<double>>(), (std::vector<double>{1, 1, 1}));
        QCOMPARE(seg.at("samples_per_s").get<std::vector<double>>(), (std::vector<double>{0, 0, 0}));
        // One unit of work per second throughout; the jobs' worth per second is 1 / each job's work.
        const auto& tp = run.at("throughput_over_time");
        QCOMPARE(tp.at("time_s").get<std::vector<double>>(), (std::vector<double>{0, 100, 150, 160}));
        QCOMPARE(tp.at("work_per_s").get<std::vector<double>>(), (std::vector<double>{1, 1, 1, 0}));
        QCOMPARE(tp.at("jobs_per_s").get<std::vector<double>>(), (std::vector<double>{0.01, 0.02, 0.1, 0}));
    }

    void tableUsesTheScenarioPolicies()
    {
        const auto r = runCommand({cliPath(), "simulate", writeScenario()});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.find("policy") != std::string::npos);
        QVERIFY(r.out.find("fifo") != std::string::npos);
        QVERIFY(r.out.find("3/3") != std::string::npos);
    }

    void unknownPolicyIsBadInput()
    {
        const auto r = runCommand({cliPath(), "simulate", writeScenario(), "--policy", "fifo_pref"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("did you mean \"fifo_perf\"") != std::string::npos, r.err.c_str());
    }

    void policiesListsDescriptions()
    {
        const auto r = runCommand({cliPath(), "policies", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto doc = nlohmann::json::parse(r.out);
        std::vector<std::string> names;
        for (const auto& p : doc.at("policies")) {
            names.push_back(p.at("name").get<std::string>());
            QVERIFY(!p.at("description").get<std::string>().empty());
        }
        // The baselines first, in registry order; other policies (frenzy, opportunistic, ...) follow.
        const std::vector<std::string> baselines{"fifo",     "fifo_perf",        "sjf",
                                                 "tiresias", "max_min_fairness", "max_min_fairness_perf"};
        QVERIFY(names.size() >= baselines.size());
        QCOMPARE(std::vector<std::string>(names.begin(), names.begin() + 6), baselines);
        const auto table = runCommand({cliPath(), "policies"});
        QCOMPARE(table.exitCode, 0);
        QVERIFY(table.out.find("tiresias") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCliSimulate)
#include "test_cli_simulate.moc"
