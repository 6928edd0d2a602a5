// orrery-cli sweep show|run|results|submit|status|collect and runs merge (docs/sweeps.md), end to end: resume,
// Ctrl-C, shards merged back equal to a local run, and the Slurm script's quoting, run by bash as Slurm would.
#include "test_support.h"

#include "store/run_store.h"
#include "store/sqlite.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QTemporaryDir>
#include <QThread>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>

#include <sys/stat.h>

using namespace orrery;
using nlohmann::json;
using orrery::test::cliPath;
using orrery::test::runCommand;

namespace {

std::int64_t query(const std::string& db, const std::string& sql)
{
    try {
        store::Connection c(db, store::Connection::Mode::ReadOnly);
        return c.queryInt(sql);
    } catch (const std::exception&) {
        return -1;
    }
}

/** Point key -> avg_jct_s of a store's sweep, from `sweep results --format json`. */
std::map<std::string, double> resultsByKey(const std::string& db)
{
    const auto r = runCommand({cliPath(), "sweep", "results", "--db", db, "--format", "json"});
    std::map<std::string, double> out;
    if (r.exitCode != 0)
        return out;
    const json doc = json::parse(r.out); // kept: a range-for over parse(...)[...] would iterate a dead temporary
    for (const auto& p : doc["points"])
        if (p["status"] == "completed")
            out[p["point_key"].get<std::string>()] = p["avg_jct_s"].get<double>();
    return out;
}

} // namespace

class TestCliSweep : public orrery::test::TempDirTest
{
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void examplesResolve()
    {
        for (const auto& entry : std::filesystem::directory_iterator(test::sourcePath("data/sweeps"))) {
            const auto r = runCommand({cliPath(), "sweep", "show", entry.path().string(), "--no-estimate", "--json"});
            QVERIFY2(r.exitCode == 0, (entry.path().string() + ": " + r.err).c_str());
            const auto doc = json::parse(r.out);
            QVERIFY(!doc["points"].empty());
        }
        const auto r = runCommand({cliPath(), "sweep", "show", test::sourcePath("data/sweeps/policies-by-size.json")});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("sweep policies-by-size: 45 points over 9 scenarios (3 prepared workloads)") == 0,
                 r.out.c_str());
        QVERIFY2(r.out.find("estimated CPU time: ") != std::string::npos, r.out.c_str());
    }

    void badSpecsExitTwoNamingAxisAndValue()
    {
        const auto spec = path("bad.json");
        std::ofstream(spec) << R"({"format":"orrery-sweep","version":1,"name":"b","axes":[
            {"kind":"gpu_type","group":"rtx","values":["v100","nonesuch"]}]})";
        const auto r = runCommand({cliPath(), "sweep", "run", spec, "--db", path("bad.sqlite")});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find("bad.json: axes[0].values[1]: axis \"gpu_type:rtx\" = \"nonesuch\"") != std::string::npos,
                 r.err.c_str());
        QVERIFY(!std::filesystem::exists(path("bad.sqlite"))); // refused before anything is written
    }

    void runStoresTaggedPointsResumesAndReportsResults()
    {
        const auto spec = writeSpec("small.json", "small", 2, 10);
        const auto db = path("small.sqlite");
        auto r = runCommand({cliPath(), "sweep", "run", spec, "--db", db, "--jobs", "2", "--json"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        auto doc = json::parse(r.out);
        QCOMPARE(doc["ran"].get<int>(), 4);
        QCOMPARE(doc["already_stored"].get<int>(), 0);
        QVERIFY(doc["estimate"]["cpu_s"].get<double>() > 0);
        QCOMPARE(query(db, "SELECT count(*) FROM sweep_points p JOIN runs r ON r.id = p.run_id WHERE "
                           "r.status = 'completed' AND p.sweep = 'small'"),
                 std::int64_t(4));
        // Again: nothing runs twice.
        r = runCommand({cliPath(), "sweep", "run", spec, "--db", db, "--json"});
        QCOMPARE(r.exitCode, 0);
        doc = json::parse(r.out);
        QCOMPARE(doc["ran"].get<int>(), 0);
        QCOMPARE(doc["already_stored"].get<int>(), 4);
        QCOMPARE(query(db, "SELECT count(*) FROM runs"), std::int64_t(4));
        // A seed added to the spec: only its points run.
        const auto wider = writeSpec("small.json", "small", 3, 10);
        r = runCommand({cliPath(), "sweep", "run", wider, "--db", db, "--json", "--no-estimate"});
        QCOMPARE(json::parse(r.out)["ran"].get<int>(), 2);

        r = runCommand({cliPath(), "sweep", "results", "--db", db, "--format", "csv"});
        QCOMPARE(r.exitCode, 0);
        QVERIFY2(r.out.find("run_id,point_key,job_limit,policy,seed,status,attempts,jobs,finished_jobs,avg_jct_s,"
                            "makespan_s,cost_usd,sim_wall_s,error\r\n") == 0,
                 r.out.c_str());
        QCOMPARE(std::count(r.out.begin(), r.out.end(), '\n'), 7L);
        QVERIFY(r.out.find(",10,sjf,2,completed,1,10,10,") != std::string::npos);
        r = runCommand({cliPath(), "sweep", "results", "--db", db});
        QVERIFY2(r.out.find("sweep small: 6 points") == 0, r.out.c_str());
        r = runCommand({cliPath(), "sweep", "show", wider, "--db", db, "--no-estimate"});
        QVERIFY2(r.out.find("6 stored completed in") != std::string::npos, r.out.c_str());
    }

    void aPointIsTheRunSimulateMakes()
    {
        const auto spec = path("plain.json");
        std::ofstream(spec) << R"({"format":"orrery-sweep","version":1,"name":"plain","scenario":"default",
            "axes":[{"kind":"policy","values":["tiresias:queue_thresholds_s=3600,36000"]},{"kind":"seed","values":[4]}]})";
        const auto db = path("plain.sqlite");
        QCOMPARE(runCommand({cliPath(), "sweep", "run", spec, "--db", db, "--no-estimate"}).exitCode, 0);
        const auto sim = runCommand({cliPath(), "simulate", "default", "--policy",
                                     "tiresias:queue_thresholds_s=3600,36000", "--seed", "4", "--json"});
        QCOMPARE(sim.exitCode, 0);
        const double want = json::parse(sim.out)["runs"][0]["avg_jct_s"].get<double>();
        const auto got = resultsByKey(db);
        QCOMPARE(got.size(), std::size_t(1));
        QCOMPARE(got.begin()->second, want);
    }

    void interruptKeepsFinishedPointsAndResumes()
    {
        // Enough points that the sweep is still running once the signal is seen (the Ctrl-C watcher looks every 50 ms,
        // and since schema 11 a default-scenario point takes well under a millisecond: 200 could all be stored by
        // then). Under ASan a point simulates ~20x slower: fewer points keep the test in CI's time, the checks the
        // same.
        const int points = test::kSanitized ? 100 : 1000;
        const auto spec = writeSpec("many.json", "many", points / 2, 60);
        const auto db = path("many.sqlite");
        QProcess p;
        p.start(QString::fromStdString(cliPath()), {"sweep", "run", QString::fromStdString(spec), "--db",
                                                    QString::fromStdString(db), "--jobs", "1", "--no-estimate"});
        QVERIFY(p.waitForStarted());
        const std::string done = "SELECT count(*) FROM runs WHERE status = 'completed'";
        QElapsedTimer t;
        t.start();
        while (query(db, done) < 3 && t.elapsed() < 60000 && p.state() == QProcess::Running)
            QThread::msleep(10);
        QVERIFY2(p.state() == QProcess::Running, "the sweep ended before it could be interrupted");
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 1);
        const auto kept = query(db, done);
        QVERIFY2(kept >= 3 && kept < points, std::to_string(kept).c_str());
        QCOMPARE(query(db, "SELECT count(*) FROM runs"), kept); // nothing half-done stored
        const std::string out = p.readAllStandardOutput().toStdString();
        QVERIFY2(out.find("stopped: ") != std::string::npos, out.c_str());
        const auto r = runCommand({cliPath(), "sweep", "run", spec, "--db", db, "--json", "--no-estimate"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json::parse(r.out)["ran"].get<std::int64_t>(), points - kept);
        QCOMPARE(query(db, done), std::int64_t(points));
        QCOMPARE(query(db, "SELECT count(DISTINCT point_key) FROM sweep_points"), std::int64_t(points));
    }

    void killedSweepKeepsOnlyWholeRunsAndResumes()
    {
        // SIGKILL while points are written several to a transaction: what is stored is whole runs, each tagged, and
        // the resumed sweep runs exactly the rest. Killed three times, a little further on each time.
        // Three kills each wait for 20 more stored points and may land a batch (up to 64) later: 400 points are
        // enough for the three of them under ASan too.
        const int points = test::kSanitized ? 400 : 800;
        const auto spec = writeSpec("killed.json", "killed", points / 2, 60);
        const auto db = path("killed.sqlite");
        const std::string done = "SELECT count(*) FROM runs WHERE status = 'completed'";
        std::int64_t kept = 0;
        for (int kill = 0; kill < 3; ++kill) {
            QProcess p;
            p.start(QString::fromStdString(cliPath()), {"sweep", "run", QString::fromStdString(spec), "--db",
                                                        QString::fromStdString(db), "--jobs", "2", "--no-estimate"});
            QVERIFY(p.waitForStarted());
            QElapsedTimer t;
            t.start();
            while (query(db, done) < kept + 20 && t.elapsed() < 60000 && p.state() == QProcess::Running)
                QThread::msleep(5);
            QVERIFY2(p.state() == QProcess::Running, "the sweep ended before it could be killed");
            p.kill(); // SIGKILL: no handler, no flush
            QVERIFY(p.waitForFinished(60000));
            const auto runs = query(db, "SELECT count(*) FROM runs");
            QVERIFY2(runs > kept, fmt::format("kill {}: {} runs after {}", kill, runs, kept).c_str());
            QCOMPARE(query(db, done), runs); // no run left running or failed: a batch is stored whole or not at all
            QCOMPARE(query(db, "SELECT count(DISTINCT point_key) FROM sweep_points"), runs);
            QCOMPARE(query(db, "SELECT count(*) FROM runs r WHERE job_count IS NOT 60 OR (SELECT sum(records) FROM "
                               "job_chunks c WHERE c.run_id = r.id) IS NOT 60"),
                     std::int64_t(0));
            kept = runs;
        }
        const auto r = runCommand({cliPath(), "sweep", "run", spec, "--db", db, "--json", "--no-estimate"});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(json::parse(r.out)["ran"].get<std::int64_t>(), points - kept);
        QCOMPARE(query(db, done), std::int64_t(points));
        QCOMPARE(query(db, "SELECT count(DISTINCT point_key) FROM sweep_points"), std::int64_t(points));
    }

    void shardsMergedEqualALocalRun()
    {
        const auto spec = writeSpec("shard.json", "shard", 3, 15); // 6 points
        const auto local = path("local.sqlite");
        QCOMPARE(runCommand({cliPath(), "sweep", "run", spec, "--db", local, "--no-estimate"}).exitCode, 0);
        std::vector<std::string> shards;
        for (int i = 0; i < 4; ++i) {
            shards.push_back(path(fmt::format("shard-{}.sqlite", i)));
            const auto r = runCommand({cliPath(), "sweep", "run", spec, "--db", shards.back(), "--shard",
                                       fmt::format("{}/4", i), "--json", "--no-estimate"});
            QCOMPARE(r.exitCode, 0);
            QCOMPARE(json::parse(r.out)["in_shard"].get<int>(), i % 2 == 0 ? 1 : 2); // 6 points in blocks 1,2,1,2
        }
        const auto merged = path("merged.sqlite");
        std::vector<std::string> argv = {cliPath(), "runs", "merge"};
        argv.insert(argv.end(), shards.begin(), shards.end());
        argv.insert(argv.end(), {"--db", merged});
        auto r = runCommand(argv);
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        QVERIFY2(r.out.find("merged 4 stores into") == 0 &&
                     r.out.find("6 runs copied, 0 already there") != std::string::npos,
                 r.out.c_str());
        QCOMPARE(resultsByKey(merged), resultsByKey(local));
        QCOMPARE(resultsByKey(merged).size(), std::size_t(6));
        r = runCommand(argv);
        QVERIFY2(r.out.find("0 runs copied, 6 already there") != std::string::npos, r.out.c_str());
        QCOMPARE(query(merged, "SELECT count(*) FROM runs"), std::int64_t(6));
        QCOMPARE(query(merged, "SELECT count(DISTINCT source_file) FROM run_sources"), std::int64_t(4));
        // A file that is not a run store is refused, with its name, and nothing is merged.
        std::ofstream(path("junk.sqlite")) << std::string(200, 'x');
        const auto bad =
            runCommand({cliPath(), "runs", "merge", local, path("junk.sqlite"), "--db", path("m2.sqlite")});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY2(bad.err.find(path("junk.sqlite") + ": not an Orrery database") != std::string::npos, bad.err.c_str());
        QCOMPARE(query(path("m2.sqlite"), "SELECT count(*) FROM runs"), std::int64_t(0));
    }

    void slurmScriptQuotesEveryValueAndCollects()
    {
        // A spec whose name and base scenario path hold quotes, $(...), backticks and a newline.
        const std::string evil = "x'; touch PWNED1; echo '$(touch PWNED2)`touch PWNED3`\n touch PWNED4 \"";
        const std::string sub = path("sc $(touch PWNED5) `touch PWNED6` 'q'");
        std::filesystem::create_directories(sub);
        {
            std::ifstream in(test::sourcePath("data/scenarios/default.json"));
            std::ofstream(sub + "/base.json") << in.rdbuf();
        }
        json spec = {{"format", "orrery-sweep"},
                     {"version", 1},
                     {"name", evil},
                     {"scenario", sub + "/base.json"},
                     {"axes",
                      {{{"kind", "job_limit"}, {"values", {12}}},
                       {{"kind", "policy"}, {"values", {"fifo", "sjf", "edf"}}},
                       {{"kind", "seed"}, {"values", {0, 1}}}}}};
        const auto specPath = path("evil.json");
        std::ofstream(specPath) << spec.dump();
        const auto dir = path("submission");
        // Submitted under umask 0: still nothing world-writable.
        auto r = runCommand({"bash", "-c", "umask 0; cd \"$1\" && exec \"$0\" \"${@:2}\"", cliPath(),
                             m_dir.path().toStdString(), "sweep", "submit", specPath, "--slurm", "--dir", dir,
                             "--points-per-task", "2", "--no-submit"});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        QVERIFY2(r.out.find("6 points in 3 array tasks of at most 2 points") != std::string::npos, r.out.c_str());
        const std::string script = dir + "/sweep.sbatch";
        QCOMPARE(runCommand({"bash", "-n", script}).exitCode, 0);
        std::ifstream in(script);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        QVERIFY(text.find("#SBATCH --array=0-2\n") != std::string::npos);
        QVERIFY(text.find("#SBATCH --job-name=orrery-sweep-x___touch_PWNED1__echo") != std::string::npos);
        // Run every task as Slurm would: bash, the array variables set, in another directory.
        for (int task = 0; task < 3; ++task) {
            r = runCommand({"env", fmt::format("SLURM_ARRAY_TASK_ID={}", task), "SLURM_ARRAY_JOB_ID=77", "bash", "-c",
                            "umask 0; cd \"$1\" && exec bash \"$0\"", script, m_dir.path().toStdString()});
            QVERIFY2(r.exitCode == 0, (r.out + r.err).c_str());
            QVERIFY2(r.out.find("orrery sweep " + evil + ": task " + std::to_string(task) + " of 3, job 77") == 0,
                     r.out.c_str());
        }
        for (const auto& e : std::filesystem::recursive_directory_iterator(m_dir.path().toStdString()))
            QVERIFY2(e.path().filename().string().find("PWNED") == std::string::npos ||
                         e.path().string().find("sc $(touch PWNED5)") != std::string::npos,
                     e.path().c_str());
        for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
            struct stat st
            {
            };
            QCOMPARE(::stat(e.path().c_str(), &st), 0);
            QVERIFY2((st.st_mode & S_IWOTH) == 0, e.path().c_str());
        }
        QVERIFY(std::filesystem::exists(dir + "/shards/shard-2.sqlite"));
        r = runCommand({cliPath(), "sweep", "status", "--dir", dir});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).c_str());
        QVERIFY2(r.out.find("6 of 6 points stored in shards; tasks: 3 done") != std::string::npos, r.out.c_str());
        const auto collected = path("collected.sqlite");
        r = runCommand({cliPath(), "sweep", "collect", "--dir", dir, "--db", collected});
        QVERIFY2(r.exitCode == 0, (r.out + r.err).c_str());
        QVERIFY2(r.out.find("6 of 6 points stored") != std::string::npos, r.out.c_str());
        // The same numbers as a local run of the same spec.
        const auto local = path("evil-local.sqlite");
        QCOMPARE(runCommand({cliPath(), "sweep", "run", specPath, "--db", local, "--no-estimate"}).exitCode, 0);
        QCOMPARE(resultsByKey(collected), resultsByKey(local));

        // A failed task: reported with its job id and log, resubmittable alone; collect says what is missing.
        std::ofstream(dir + "/status/task-1.rc") << "3 78\n";
        std::filesystem::remove(dir + "/shards/shard-1.sqlite");
        r = runCommand({cliPath(), "sweep", "status", "--dir", dir});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.find("task 1 failed: exit status 3; job 78_1, log " + dir + "/logs/78_1.out") !=
                     std::string::npos,
                 r.out.c_str());
        QVERIFY2(r.out.find("--resubmit --dir ") != std::string::npos && r.out.find("--tasks 1\n") != std::string::npos,
                 r.out.c_str());
        const auto partial = path("partial.sqlite");
        r = runCommand({cliPath(), "sweep", "collect", "--dir", dir, "--db", partial});
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.out.find("4 of 6 points stored") != std::string::npos &&
                     r.out.find("missing from tasks 1 (2 points)") != std::string::npos,
                 r.out.c_str());
        // A second submission into the same directory is refused.
        r = runCommand({cliPath(), "sweep", "submit", specPath, "--slurm", "--dir", dir, "--no-submit"});
        QCOMPARE(r.exitCode, 2);
        // A damaged points file (a task number past the submission's) is an error naming the file.
        auto points = nlohmann::json::parse(std::ifstream(dir + "/points.json"));
        points.at(0)["task"] = 99;
        std::ofstream(dir + "/points.json") << points.dump(1);
        r = runCommand({cliPath(), "sweep", "status", "--dir", dir});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find(dir + "/points.json") != std::string::npos &&
                     r.err.find("task 99 in a submission of 3 tasks") != std::string::npos,
                 r.err.c_str());
    }

private:
    /** A spec over the default scenario: `limit` jobs, fifo and sjf, `seeds` seeds. */
    std::string writeSpec(const std::string& file, const std::string& name, int seeds, int limit) const
    {
        json seedValues = json::array();
        for (int i = 0; i < seeds; ++i)
            seedValues.push_back(i);
        json s = {{"format", "orrery-sweep"},
                  {"version", 1},
                  {"name", name},
                  {"axes",
                   {{{"kind", "job_limit"}, {"values", {limit}}},
                    {{"kind", "policy"}, {"values", {"fifo", "sjf"}}},
                    {{"kind", "seed"}, {"values", seedValues}}}}};
        std::ofstream(path(file)) << s.dump(2);
        return path(file);
    }
};

QTEST_GUILESS_MAIN(TestCliSweep)
#include "test_cli_sweep.moc"
