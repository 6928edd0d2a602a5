#include "store_fixtures.h"
#include "test_support.h"

#include "store/run_store.h"
#include "store/sqlite.h"

#include <QElapsedTimer>
#include <QProcess>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QThread>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <fstream>
#include <map>

using namespace orrery;
using orrery::test::cliPath;
using orrery::test::runCommand;

namespace {

/** 8x8 V100 + 4x4 K80 with `jobs` generated 1/2/4-GPU jobs. */
void writeScenario(const std::string& path, int jobs)
{
    test::writeGeneratorScenario(path, "kill test", jobs);
}

std::int64_t countRows(const std::string& db, const std::string& sql)
{
    return test::queryIntOrMinusOne(db, sql);
}

} // namespace

class TestCliStoreKill : public orrery::test::TempDirTest
{
    Q_OBJECT
private slots:
    void simulateStoresEveryPolicy()
    {
        const auto scenario = path("small.json");
        writeScenario(scenario, 300);
        const auto db = path("two.sqlite");
        auto r =
            runCommand({cliPath(), "simulate", scenario, "--policy", "fifo", "--policy", "sjf", "--db", db, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto sim = nlohmann::json::parse(r.out)["runs"];
        QCOMPARE(sim.size(), std::size_t(2));
        r = runCommand({cliPath(), "runs", "list", "--db", db, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto runs = nlohmann::json::parse(r.out)["runs"];
        QCOMPARE(runs.size(), std::size_t(2));
        for (std::size_t i = 0; i < 2; ++i) {
            QCOMPARE(runs[i]["id"], sim[i]["run_id"]);
            QCOMPARE(runs[i]["policy"], sim[i]["policy"]);
            QCOMPARE(runs[i]["status"].get<std::string>(), std::string("completed"));
            QCOMPARE(runs[i]["scenario"].get<std::string>(), std::string("kill test"));
            // The store keeps the simulator's figures.
            QCOMPARE(runs[i]["avg_jct_s"].get<double>(), sim[i]["avg_jct_s"].get<double>());
        }
        // The stored run is the simulated one: same job count and completions.
        store::RunStore s(db);
        const auto back = s.loadRun(runs[0]["id"].get<std::int64_t>());
        QCOMPARE(static_cast<int>(back.result.jobs.size()), sim[0]["jobs"].get<int>());
        QCOMPARE(back.layout.gpuCount(), 80);
        QCOMPARE(back.layout.nodeNames.size(), std::size_t(12));
    }

    void foreignDbIsRefusedBeforeSimulating()
    {
        const auto scenario = path("tiny.json");
        writeScenario(scenario, 20);
        const auto notes = path("notes.sqlite");
        {
            std::ofstream out(notes);
            out << "my notes";
        }
        const auto r = runCommand({cliPath(), "simulate", scenario, "--policy", "fifo", "--db", notes});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find(notes) != std::string::npos, r.err.c_str());
        QVERIFY(r.out.empty());
    }

    void interruptStoresTheRunAsCancelled()
    {
        const auto scenario = path("big.json");
        writeScenario(scenario, 100000);
        const auto db = path("cancel.sqlite");
        QProcess p;
        // Tiresias (preemptive) is several times slower to simulate than FIFO: room to interrupt it.
        p.start(QString::fromStdString(cliPath()), {"simulate", QString::fromStdString(scenario), "--policy",
                                                    "tiresias", "--db", QString::fromStdString(db)});
        QVERIFY(p.waitForStarted());
        // Wait until the run has synced rows (the SIGINT handler is installed by then).
        QElapsedTimer t;
        t.start();
        while (countRows(db, "SELECT count(*) FROM interval_chunks") <= 0 && t.elapsed() < 60000 &&
               p.state() == QProcess::Running)
            QThread::msleep(20);
        QVERIFY2(p.state() == QProcess::Running, "simulation ended before it could be interrupted");
        ::kill(static_cast<pid_t>(p.processId()), SIGINT);
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 1); // a cancelled simulation is not a success
        store::RunStore s(db);
        const auto runs = s.listRuns();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].status, store::RunStatus::Cancelled);
        QVERIFY(runs[0].finishedJobCount.value_or(0) < 100000);
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    /** SIGKILL a writer at random moments, 20 to 40 times in a row on one file: it always reopens clean. */
    void killDuringWriteNeverCorrupts()
    {
        const auto scenario = path("kill.json");
        // Big enough that a run writes for a while, small enough for twenty runs under ASan.
        writeScenario(scenario, 25000);
        const auto db = path("kill.sqlite");
        auto* rng = QRandomGenerator::global();
        int interrupted = 0, completed = 0;
        QElapsedTimer total;
        total.start();
        const QStringList args = {"simulate", QString::fromStdString(scenario), "--policy", "tiresias",
                                  "--db",     QString::fromStdString(db)};
        const std::string running = "SELECT count(*) FROM runs WHERE status = 'running'";
        // What a completed run must keep: its row and its job records.
        std::map<std::int64_t, std::string> completedRuns;
        const auto fingerprint = [&db](const store::RunRecord& r) {
            return fmt::format(
                "{} {} {} {} {} {}", toString(r.status), r.finishedAt, r.jobCount.value_or(-1),
                r.finishedJobCount.value_or(-1), r.avgJctS.value_or(-1),
                countRows(db, fmt::format("SELECT sum(records) FROM job_chunks WHERE run_id = {}", r.id)));
        };
        // Waits until the writer has inserted its run row; returns the milliseconds that took.
        const auto waitForRunRow = [&](QProcess& p) {
            QElapsedTimer t;
            t.start();
            while (countRows(db, running) <= 0 && t.elapsed() < 60000 && p.state() == QProcess::Running)
                QThread::msleep(5);
            return t.elapsed();
        };
        // One run to its end first: kills are timed against how long a run takes on this machine and
        // build (an ASan build is several times slower), so that most of them land while it writes.
        qint64 startupMs = 0, writingMs = 0;
        {
            QProcess p;
            p.start(QString::fromStdString(cliPath()), args);
            QVERIFY(p.waitForStarted());
            startupMs = waitForRunRow(p);
            QElapsedTimer t;
            t.start();
            QVERIFY(p.waitForFinished(120000));
            QCOMPARE(p.exitCode(), 0);
            writingMs = std::max<qint64>(t.elapsed(), 50);
        }
        // A loaded machine (CI runs two tests at once) makes some runs finish before their kill lands;
        // rounds go on past 20 until ten kills have cut a run, so the check is on where kills land, not on load.
        int rounds = 0;
        for (; rounds < 40 && !(rounds >= 20 && interrupted >= 10); ++rounds) {
            const int round = rounds;
            QProcess p;
            p.start(QString::fromStdString(cliPath()), args);
            QVERIFY(p.waitForStarted());
            if (round % 2) {
                // Any moment, creation of the file and of the run included.
                QThread::msleep(static_cast<unsigned long>(rng->bounded(0, static_cast<int>(startupMs + writingMs))));
            } else {
                // A moment while the run is being written.
                waitForRunRow(p);
                QThread::msleep(static_cast<unsigned long>(rng->bounded(0, static_cast<int>(writingMs * 4 / 5))));
            }
            p.kill(); // SIGKILL
            QVERIFY(p.waitForFinished(30000));

            store::RunStore s(db); // throws if the file were damaged
            QCOMPARE(s.integrityCheck(), std::string("ok"));
            for (const auto& r : s.listRuns()) {
                QVERIFY2(r.status != store::RunStatus::Running, "a killed writer's run stays running");
                if (r.status == store::RunStatus::Failed)
                    QCOMPARE(r.error, std::string("interrupted"));
                if (r.status == store::RunStatus::Completed && !completedRuns.count(r.id))
                    completedRuns.emplace(r.id, fingerprint(r));
            }
            // No completed run is lost or changed by the kills that came after it.
            for (const auto& [id, print] : completedRuns) {
                const auto r = s.findRun(id);
                QVERIFY2(r.has_value(), "a completed run was lost");
                QCOMPARE(fingerprint(*r), print);
            }
            interrupted += static_cast<int>(s.recoveredRuns().size());
            completed = static_cast<int>(s.listRuns(store::RunFilter{"", "", store::RunStatus::Completed, 0}).size());
            // Whatever an interrupted run kept reads back.
            for (const auto id : s.recoveredRuns())
                QVERIFY(s.loadRun(id).result.jobs.size() <= 25000);
        }
        qInfo("%d kills: %d runs interrupted, %d completed (one uncut), a run writes for %lld ms, %lld ms in all",
              rounds, interrupted, completed, static_cast<long long>(writingMs),
              static_cast<long long>(total.elapsed()));
        QVERIFY2(interrupted >= 10, "most kills should land while a run is being written");
    }
};

QTEST_GUILESS_MAIN(TestCliStoreKill)
#include "test_cli_store_kill.moc"
