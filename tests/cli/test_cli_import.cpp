#include "test_support.h"

#include "io/scenario.h"
#include "io/workload_loader.h"
#include "workload/gavel_trace.h"
#include "workload/philly_trace.h"

#include <nlohmann/json.hpp>

#include <QTemporaryDir>

#include <fstream>

using orrery::test::cliPath;
using orrery::test::runCommand;
using orrery::test::sharedDataPath;
using namespace orrery;

class TestCliImport : public QObject
{
    Q_OBJECT

    QTemporaryDir m_dir;

    std::string out(const char* name) const { return m_dir.filePath(name).toStdString(); }

private slots:
    void helpListsImport()
    {
        const auto r = runCommand({cliPath(), "--help"});
        QVERIFY(r.out.find("import") != std::string::npos);
        const auto h = runCommand({cliPath(), "import", "--help"});
        QCOMPARE(h.exitCode, 0);
        for (const char* opt : {"--format", "--cluster", "--throughputs", "--gavel-compat", "--nodes", "--limit"})
            QVERIFY2(h.out.find(opt) != std::string::npos, opt);
    }

    void gavelRoundTrip()
    {
        const std::string trace = sharedDataPath("gavel/traces/poisson1000_1gpu_lam150_seed0.trace");
        const std::string tputs = sharedDataPath("gavel/simulation_throughputs.json");
        if (trace.empty() || tputs.empty())
            QSKIP("shared data not present");
        const std::string scenario = out("gavel.json");
        const auto r = runCommand({cliPath(), "import", "--format", "gavel", trace, "--throughputs", tputs, "--cluster",
                                   "v100:36,p100:36,k80:36", "--gavel-compat", "-o", scenario, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto summary = nlohmann::json::parse(r.out);
        QCOMPARE(summary["jobs"].get<int>(), 1000);
        QCOMPARE(summary["gpus"].get<int>(), 108);
        // It passes the scenario checker, and loads back to the very jobs the reader gives.
        const auto check = runCommand({cliPath(), "scenario", "check", scenario});
        QCOMPARE(check.exitCode, 0);
        QVERIFY(check.out.find("valid (108 nodes, 108 GPUs, 1000 jobs)") != std::string::npos);
        const io::Scenario s = io::loadScenario(scenario);
        QVERIFY(s.options.gavelCompat);
        QVERIFY(!s.options.throughputs.empty());
        QVERIFY(io::loadScenario(scenario).resolvePath(s.options.throughputs).find("simulation_throughputs.json") !=
                std::string::npos);
        const auto direct = workload::readGavelTrace(trace);
        QCOMPARE(io::loadJobs(s), direct);
        QCOMPARE(s.cluster.gpusOfType(s.cluster.catalog().indexOf("k80")), 36);
    }

    void msrWithLimitAndNodeSize()
    {
        const std::string trace = sharedDataPath("gavel/traces/msr_seed0_6214e9.trace");
        if (trace.empty())
            QSKIP("shared data not present");
        const std::string scenario = out("msr.json");
        const auto r = runCommand({cliPath(), "import", "--format", "gavel", trace, "--cluster", "v100:10/4,k80:8",
                                   "--limit", "25", "-o", scenario});
        QCOMPARE(r.exitCode, 0);
        const io::Scenario s = io::loadScenario(scenario);
        QCOMPARE(s.workload.jobs.size(), std::size_t(25));
        // 10 V100s in nodes of 4: two nodes and a 2-GPU remainder; 8 K80s at the default 4 per node.
        QCOMPARE(s.cluster.nodes().size(), std::size_t(5));
        QCOMPARE(s.cluster.totalGpus(), 18);
    }

    void phillyAndOpenb()
    {
        const std::string philly = sharedDataPath("pollux/philly.csv");
        const std::string pods = sharedDataPath("alibaba/openb_pod_list_default.csv");
        if (philly.empty() || pods.empty())
            QSKIP("shared data not present");
        const std::string ps = out("philly.json");
        auto r = runCommand({cliPath(), "import", "--format", "philly", philly, "--limit", "2000", "--reference-gpu",
                             "p100", "-o", ps});
        QCOMPARE(r.exitCode, 0);
        auto s = io::loadScenario(ps);
        QCOMPARE(s.workload.jobs.size(), std::size_t(2000));
        QCOMPARE(s.options.referenceGpu, std::string("p100"));
        QCOMPARE(s.cluster.totalGpus(), 2816); // the documented default: 352 x 8 of the reference type
        QCOMPARE(s.workload.jobs, workload::readPhillyTrace(philly, 2000).jobs);
        // 2,000 jobs over 522 h on 2,816 GPUs: queues will not form, and import says so.
        QVERIFY2(r.out.find("offered load: 0.087 of the cluster") != std::string::npos, r.out.c_str());
        QVERIFY2(r.err.find("warning: the offered load is 0.087 of the cluster's capacity (2816 GPUs)") !=
                     std::string::npos,
                 r.err.c_str());
        r = runCommand({cliPath(), "import", "--format", "philly", philly, "--limit", "2000", "--reference-gpu", "p100",
                        "--cluster", "p100:64", "--json", "-o", out("philly64.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.err.find("warning") == std::string::npos, r.err.c_str());
        const auto summary = nlohmann::json::parse(r.out);
        QCOMPARE(summary.at("gpus").get<int>(), 64);
        // 44x the GPUs' share: the load scales inversely with the cluster (0.087 x 2816 / 64).
        QVERIFY(std::abs(summary.at("offered_load").get<double>() - 3.844) < 0.001);
        QCOMPARE(summary.at("jobs_without_duration").get<int>(), 0);

        const std::string os = out("openb.json");
        r = runCommand({cliPath(), "import", "--format", "openb", pods, "-o", os});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.find("7063 jobs from 8152 rows") != std::string::npos);
        QCOMPARE(runCommand({cliPath(), "scenario", "check", os}).exitCode, 0);
        s = io::loadScenario(os);
        QCOMPARE(s.customGpus.size(), std::size_t(3));
        QCOMPARE(s.cluster.nodes().size(), std::size_t(1213));
        QVERIFY(s.cluster.gpusOfType(s.cluster.catalog().indexOf("openb-g2")) == 549 * 8);
    }

    void malformedRowExits2()
    {
        const std::string bad = out("bad.trace");
        {
            std::ofstream f(bad);
            f << "A\tcmd\tdir\t-s\t1\t100\t1\t1\t-1\t0\n"
              << "A\tcmd\tdir\t-s\t1\tabc\t1\t1\t-1\t5\n";
        }
        const auto r = runCommand({cliPath(), "import", "--format", "gavel", bad, "-o", out("never.json")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("bad.trace:2: total_steps: expected a positive integer, got \"abc\"") != std::string::npos,
                 r.err.c_str());
        QVERIFY(!QFileInfo::exists(m_dir.filePath("never.json")));

        const std::string csv = out("bad.csv");
        {
            std::ofstream f(csv);
            f << "timestamp,duration,num_gpus,gpu_time,cluster\r\n2017-10-09 07:01:55,66.0,one,66.0,c\r\n";
        }
        const auto p = runCommand({cliPath(), "import", "--format", "philly", csv, "-o", out("never.json")});
        QCOMPARE(p.exitCode, 2);
        QVERIFY2(p.err.find("bad.csv:2: num_gpus: expected a non-negative integer, got \"one\"") != std::string::npos,
                 p.err.c_str());

        const auto c = runCommand(
            {cliPath(), "import", "--format", "philly", csv, "--cluster", "v100:3x", "-o", out("never.json")});
        QCOMPARE(c.exitCode, 2);
        const auto u = runCommand(
            {cliPath(), "import", "--format", "helios", csv, "--cluster", "v101:8", "-o", out("never.json")});
        QCOMPARE(u.exitCode, 2);
        QVERIFY2(u.err.find("cluster spec item \"v101:8\": unknown GPU type \"v101\"") != std::string::npos,
                 u.err.c_str());
        const auto f = runCommand({cliPath(), "import", "--format", "slurm", csv, "-o", out("never.json")});
        QCOMPARE(f.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliImport)
#include "test_cli_import.moc"
