// Dropped jobs and SLO figures through `orrery-cli simulate` and the run store (docs/simulator.md).
#include "test_support.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <fstream>

using orrery::test::cliPath;
using orrery::test::runCommand;

namespace {

// One V100. edf: a 0-100 meets 500; b must start by 50 and is dropped then; c 100-150 meets 160; d must start by
// 140 and is dropped then; e (no deadline) 150-160. See tests/core/test_slo.cpp.
const char* kScenario = R"({"format": "orrery-scenario", "version": 1, "name": "slo",
  "cluster": {"nodes": [{"name": "v", "gpu": "v100", "count": 1, "gpus_per_node": 1}]},
  "workload": {"jobs": [
    {"id": "a", "arrival_s": 0, "gpus": 1, "duration_s": 100, "slo_class": "gold", "deadline_s": 500, "reward": 3},
    {"id": "b", "arrival_s": 10, "gpus": 1, "duration_s": 100, "slo_class": "gold", "deadline_s": 150},
    {"id": "c", "arrival_s": 20, "gpus": 1, "duration_s": 50, "deadlines": [{"at_s": 160, "reward": 2}]},
    {"id": "d", "arrival_s": 30, "gpus": 1, "duration_s": 100, "deadline_s": 240, "max_runtime_s": 200},
    {"id": "e", "arrival_s": 40, "gpus": 1, "duration_s": 10}]},
  "policies": ["edf", "fifo"]})";

} // namespace

class TestCliLifecycle : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_scenario = m_dir.filePath("slo.json").toStdString();
        std::ofstream(m_scenario) << kScenario;
    }

    void jsonShowsDroppedJobsAndSloFigures()
    {
        const auto r = runCommand({cliPath(), "simulate", m_scenario, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto runs = nlohmann::json::parse(r.out).at("runs");
        const auto& edf = runs[0];
        QCOMPARE(edf["policy"].get<std::string>(), std::string("edf"));
        QCOMPARE(edf["jobs_completed"].get<int>(), 3);
        QCOMPARE(edf["jobs_dropped"].get<int>(), 2);
        QCOMPARE(edf["slo_jobs"].get<int>(), 4);
        QCOMPARE(edf["slo_attainment"].get<double>(), 0.5);
        QCOMPARE(edf["deadlines_met"].get<int>(), 2);
        QCOMPARE(edf["reward"].get<double>(), 5.0);
        QCOMPARE(edf["gpu_hours_used"].get<double>(), edf["gpu_hours_billed"].get<double>());
        QCOMPARE(edf["slo_by_class"].size(), std::size_t(1));
        QCOMPARE(edf["slo_by_class"][0]["slo_class"].get<std::string>(), std::string("gold"));
        QCOMPARE(edf["slo_by_class"][0]["jobs_met"].get<int>(), 1);
        // FIFO drops nothing: every job finishes, late or not (a 0-100, b 100-200, c 200-250, d 250-350).
        const auto& fifo = runs[1];
        QCOMPARE(fifo["jobs_dropped"].get<int>(), 0);
        QCOMPARE(fifo["jobs_completed"].get<int>(), 5);
        QCOMPARE(fifo["deadlines_met"].get<int>(), 1);
    }

    void ratiosAreNullWithoutDeadlines()
    {
        const auto r = runCommand({cliPath(), "simulate", "default", "--policy", "fifo", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto run = nlohmann::json::parse(r.out).at("runs")[0];
        QVERIFY(run["slo_attainment"].is_null());
        QVERIFY(run["deadline_met_ratio"].is_null());
        QCOMPARE(run["jobs_dropped"].get<int>(), 0);
        QVERIFY(!run.contains("slo_by_class"));
    }

    void tableAndStoreShowDrops()
    {
        const auto db = m_dir.filePath("runs.sqlite").toStdString();
        auto r = runCommand({cliPath(), "simulate", m_scenario, "--db", db});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("dropped") != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find("50.0%") != std::string::npos, r.out.c_str());
        r = runCommand({cliPath(), "runs", "show", "1", "--db", db, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto run = nlohmann::json::parse(r.out);
        const auto& jobs = run.at("jobs");
        QCOMPARE(jobs[1]["job_id"].get<std::string>(), std::string("b"));
        QCOMPARE(jobs[1]["dropped_s"].get<double>(), 50.0);
        QCOMPARE(jobs[1]["drop_reason"].get<std::string>(), std::string("cannot meet its deadline"));
        QVERIFY(jobs[1]["end_s"].is_null());
        QVERIFY(jobs[1]["jct_s"].is_null());
        QVERIFY(jobs[0]["deadlines"][0]["met"].get<bool>());
        // The drops, beside EDF's reasons for the jobs that waited (docs/simulator.md, "Why a job waits").
        int drops = 0, reasons = 0;
        for (const auto& e : run.at("job_events")) {
            drops += e.at("kind") == "drop";
            reasons += e.at("kind") == "reason";
        }
        QCOMPARE(drops, 2);
        QVERIFY(reasons > 0);
        QCOMPARE(run.at("job_events").size(), std::size_t(drops + reasons));
    }

private:
    QTemporaryDir m_dir;
    std::string m_scenario;
};

QTEST_GUILESS_MAIN(TestCliLifecycle)
#include "test_cli_lifecycle.moc"
