// `orrery-cli simulate` runs Frenzy and its Opportunistic baseline on the shipped NewWorkload
// scenario; `orrery-cli policies` lists both.
#include "test_support.h"

#include <nlohmann/json.hpp>

using orrery::test::cliPath;
using orrery::test::runCommand;
using orrery::test::sourcePath;

class TestCliFrenzy : public QObject
{
    Q_OBJECT
private slots:
    void simulateBothPolicies()
    {
        const auto r = runCommand({cliPath(), "simulate", sourcePath("data/scenarios/frenzy-newworkload-60.json"),
                                   "--policy", "frenzy", "--policy", "opportunistic", "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto doc = nlohmann::json::parse(r.out);
        QCOMPARE(doc["runs"].size(), std::size_t(2));
        std::map<std::string, nlohmann::json> runs;
        for (const auto& run : doc["runs"])
            runs[run["policy"].get<std::string>()] = run;
        QVERIFY(runs.count("frenzy") && runs.count("opportunistic"));
        for (const auto& [name, run] : runs) {
            QCOMPARE(run["jobs_completed"].get<int>(), 60);
            QVERIFY(run["avg_job_samples_per_s"].get<double>() > 0);
            QVERIFY(run["avg_jct_s"].get<double>() > run["avg_queue_s"].get<double>());
        }
        // The baseline asks for more GPUs than Frenzy's plans (it sizes every job for the smallest GPU),
        // so it books more GPU-hours for the same work.
        QVERIFY(runs["opportunistic"]["gpu_hours"].get<double>() > runs["frenzy"]["gpu_hours"].get<double>());
    }

    void policiesListsBoth()
    {
        const auto r = runCommand({cliPath(), "policies"});
        QCOMPARE(r.exitCode, 0);
        for (const char* line : {"frenzy ", "opportunistic "}) {
            const auto at = r.out.find(std::string("\n") + line);
            QVERIFY2(at != std::string::npos, line);
            const auto end = r.out.find('\n', at + 1);
            QVERIFY(end - at > 40); // a description follows the name
        }
    }
};

QTEST_GUILESS_MAIN(TestCliFrenzy)
#include "test_cli_frenzy.moc"
