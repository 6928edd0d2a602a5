#include "test_support.h"

#include "io/scenario.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <fstream>

using orrery::test::cliPath;
using orrery::test::runCommand;
using orrery::test::sharedDataPath;
using namespace orrery;

// orrery-cli import --format sia|pollux (issue #20): default clusters, --cluster, --profiles, errors; and the
// imported scenarios simulate under sia and optimus.
class TestCliSia : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string out(const char* name) const { return m_dir.filePath(name).toStdString(); }

private slots:
    void importSiaDefaultCluster()
    {
        const std::string w = sharedDataPath("sia/workloads/philly/workload-1.csv");
        if (w.empty())
            QSKIP("shared data not present");
        const std::string scenario = out("sia.json");
        const auto r = runCommand({cliPath(), "import", "--format", "sia", w, "-o", scenario});
        QCOMPARE(r.exitCode, 0);
        // Sia's heterogeneous cluster, printed.
        QVERIFY2(r.out.find("64 GPUs on 11 nodes") != std::string::npos, r.out.c_str());
        QVERIFY2(r.out.find("goodput profiles: ") != std::string::npos, r.out.c_str());
        const io::Scenario s = io::loadScenario(scenario);
        QCOMPARE(s.workload.jobs.size(), std::size_t(160));
        QCOMPARE(s.options.restartModel, std::string("sia"));
        QCOMPARE(s.options.roundS, 60.0);
        QVERIFY(!s.options.goodputProfiles.empty());
        for (const auto& j : s.workload.jobs) {
            QVERIFY(!j.application.empty());
            QCOMPARE(j.minGpus, 1);
            QVERIFY(j.maxGpus >= j.gpus);
        }
        const auto check = runCommand({cliPath(), "scenario", "check", scenario});
        QCOMPARE(check.exitCode, 0);
    }

    void importPolluxAndSimulate()
    {
        const std::string w = sharedDataPath("pollux/workloads/workload-6.csv");
        if (w.empty())
            QSKIP("shared data not present");
        const std::string scenario = out("pollux.json");
        auto r = runCommand({cliPath(), "import", "--format", "pollux", w, "-o", scenario, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto j = nlohmann::json::parse(r.out);
        QCOMPARE(j["gpus"].get<int>(), 64);
        QCOMPARE(j["nodes"].get<int>(), 16);
        // --cluster overrides; --limit keeps the earliest arrivals.
        const std::string small = out("pollux-small.json");
        r = runCommand({cliPath(), "import", "--format", "pollux", w, "-o", small, "--cluster", "t4:16/4", "--limit",
                        "12", "--json"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(nlohmann::json::parse(r.out)["gpus"].get<int>(), 16);
        const auto sim = runCommand({cliPath(), "simulate", small, "--policy", "sia", "--policy", "optimus", "--policy",
                                     "tiresias:preset=pollux", "--json"});
        QCOMPARE(sim.exitCode, 0);
        QVERIFY(sim.out.find("\"sia\"") != std::string::npos);
    }

    void errorsNameFileLineField()
    {
        const std::string w = sharedDataPath("pollux/workloads/workload-6.csv");
        if (w.empty())
            QSKIP("shared data not present");
        const std::string bad = out("bad.csv");
        std::ofstream(bad) << "name,time,application,num_replicas,batch_size\ncifar10-0,0,cifar10,1,128\n"
                              "cifar10-1,10,cifar10,two,128\n";
        auto r = runCommand({cliPath(), "import", "--format", "pollux", bad, "-o", out("bad.json"), "--profiles",
                             sharedDataPath("sia/profiles")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("bad.csv:3: num_replicas: expected a positive integer") != std::string::npos,
                 r.err.c_str());
        // An application without profiles is refused on import, naming the directory.
        std::ofstream(bad) << "name,time,application,num_replicas,batch_size\nresnet-0,0,resnet,1,128\n";
        r = runCommand({cliPath(), "import", "--format", "pollux", bad, "-o", out("bad.json"), "--profiles",
                        sharedDataPath("sia/profiles")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("resnet") != std::string::npos &&
                     r.err.find("no such profile directory") != std::string::npos,
                 r.err.c_str());
        // Without --profiles next to no shared data: say what to give.
        r = runCommand({cliPath(), "import", "--format", "sia", bad, "-o", out("bad.json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("--profiles") != std::string::npos, r.err.c_str());
        // --profiles belongs to sia and pollux.
        r = runCommand({cliPath(), "import", "--format", "philly", w, "-o", out("x.json"), "--profiles", "x"});
        QCOMPARE(r.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliSia)
#include "test_cli_sia.moc"
