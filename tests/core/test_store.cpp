// Opening a run store: the schema and its migrations, files that are not stores or are damaged, read-only
// opens, lock waits.
#include "store_test_helpers.h"

using namespace orrery;
using namespace orrery::test::storetest;

class TestStore : public orrery::test::TempDirTest
{
    Q_OBJECT
private slots:
    void hashIsFnv1a()
    {
        // Published FNV-1a 64 test vectors.
        QCOMPARE(util::fnv1a64(""), 0xcbf29ce484222325ULL);
        QCOMPARE(util::fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
        QCOMPARE(util::fnv1a64Hex("foobar"), std::string("85944171f73967e8"));
    }

    void newStoreHasCurrentSchema()
    {
        const auto p = path("new.sqlite");
        store::RunStore s(p);
        QCOMPARE(count(s, "PRAGMA user_version"), std::int64_t(store::schemaVersion()));
        QCOMPARE(count(s, "PRAGMA application_id"), std::int64_t(store::kApplicationId));
        QCOMPARE(count(s, "PRAGMA foreign_keys"), std::int64_t(1));
        store::Statement mode(s.connection(), "PRAGMA journal_mode");
        QVERIFY(mode.step());
        QCOMPARE(mode.columnText(0), std::string("wal"));
        for (const char* table : {"scenarios", "runs", "gpu_chunks", "job_chunks", "interval_chunks",
                                  "utilization_chunks", "decision_chunks"}) {
            store::Statement t(s.connection(), "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1");
            t.bind(1, table);
            QVERIFY(t.step());
            QVERIFY2(t.columnInt(0) == 1, table);
        }
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void olderSchemaIsMigratedKeepingRuns()
    {
        const auto p = path("v1.sqlite");
        // A store as the first schema version left it, with one run in it.
        writeOldStore(p, 1,
                      "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus, "
                      "avg_jct_s) VALUES (1, 'fifo', 1, '0.0.1', 't', 'completed', 4, 12.5)");
        store::RunStore s(p);
        QCOMPARE(count(s, "PRAGMA user_version"), std::int64_t(store::schemaVersion()));
        const auto runs = s.listRuns();
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0].scenarioName, std::string("old"));
        QCOMPARE(runs[0].avgJctS.value_or(0), 12.5);
        QCOMPARE(count(s, "SELECT avg_jct_s FROM run_overview WHERE run_id = 1"), std::int64_t(12));
    }

    void version2RowsAreMigratedToChunks()
    {
        const auto p = path("v2.sqlite");
        // A store as schema version 2 left it: one row per interval, sample and decision.
        writeOldStore(p, 2,
                      "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus) "
                      "VALUES (1, 'fifo', 1, '0.1.0', 't', 'completed', 6);"
                      "INSERT INTO intervals VALUES (1, 0, 0, 0, 0, 50), (1, 1, 1, 4, 10, 30.5);"
                      "INSERT INTO utilization VALUES (1, 0, 0, 1, '[1,0]'), (1, 1, 10, 2, '[1,1]');"
                      "INSERT INTO decisions VALUES (1, 0, 0, 1e-5, 2, 0)");
        store::RunStore s(p);
        QCOMPARE(count(s, "PRAGMA user_version"), std::int64_t(store::schemaVersion()));
        QCOMPARE(count(s, "SELECT count(*) FROM sqlite_schema WHERE name IN ('intervals', 'utilization', 'decisions')"),
                 std::int64_t(0));
        const auto run = s.loadRun(1).result;
        QCOMPARE(run.intervals.size(), std::size_t(2));
        QCOMPARE(run.intervals[1].gpu, 4);
        QCOMPARE(run.intervals[1].endS, 30.5);
        QCOMPARE(run.utilization.size(), std::size_t(2));
        QCOMPARE(run.utilization[1].busyByType, (std::vector<int>{1, 1}));
        QCOMPARE(run.decisions.size(), std::size_t(1));
        QCOMPARE(run.decisions[0].queued, 2);
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void version3JobRowsAreMigratedToChunks()
    {
        const auto p = path("v3.sqlite");
        // A store as schema version 3 left it: one plain row per job, two runs, gaps in job_index.
        writeOldStore(
            p, 3,
            "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus, "
            "job_count) VALUES (1, 'fifo', 1, '0.1.0', 't', 'completed', 6, 3), "
            "(1, 'sjf', 1, '0.1.0', 't', 'failed', 6, NULL);"
            "INSERT INTO jobs (run_id, job_index, job_id, model, user, arrival_s, start_s, end_s, gpus, "
            "gpu_type, restarts, gpu_seconds, cost_usd, ideal_s, nodes, demand, excluded_from_average) VALUES "
            "(1, 0, 'a', 'resnet50', 'ann', 0, 5, 105, 2, 'v100', 1, 200, 0.5, 90, 1, 2, 0), "
            "(1, 1, 'b', 'gpt2', 'bob', 10, NULL, NULL, 0, '', 0, 0, 0, 50, 0, 4, 0), "
            "(1, 2, 'c', 'resnet50', 'ann', 20, 30, NULL, 1, 'k80', 0, 70, 0.07, 60, 1, 1, 1), "
            "(2, 4, 'e', 'bert', 'cy', 40, 41, 42.5, 1, 'mixed', 2, 1.5, 0.01, 1, 2, 1, 0)");
        store::RunStore s(p);
        QCOMPARE(count(s, "PRAGMA user_version"), std::int64_t(store::schemaVersion()));
        QCOMPARE(count(s, "SELECT count(*) FROM sqlite_schema WHERE name = 'jobs'"), std::int64_t(0));
        const auto first = s.loadRun(1).result;
        QCOMPARE(first.jobs.size(), std::size_t(3));
        QCOMPARE(first.jobs[0].id, std::string("a"));
        QCOMPARE(first.jobs[0].user, std::string("ann"));
        QCOMPARE(first.jobs[0].endS, 105.0);
        QCOMPARE(first.jobs[0].restarts, 1);
        QCOMPARE(first.jobs[1].model, std::string("gpt2"));
        QCOMPARE(first.jobs[1].startS, -1.0);
        QCOMPARE(first.jobs[1].endS, -1.0);
        QCOMPARE(first.jobs[1].demand, 4);
        QCOMPARE(first.jobs[2].gpuType, std::string("k80"));
        QCOMPARE(first.jobs[2].costUsd, 0.07);
        QVERIFY(first.jobs[2].excludedFromAverage);
        const auto second = s.loadRun(2).result;
        QCOMPARE(second.jobs.size(), std::size_t(5)); // jobs 0-3 were never written by the failed run
        QVERIFY(second.jobs[0].id.empty());
        QCOMPARE(second.jobs[4].id, std::string("e"));
        QCOMPARE(second.jobs[4].nodes, 2);
        QCOMPARE(second.jobs[4].gpuSeconds, 1.5);
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void emptySqliteFileBecomesAStore()
    {
        const auto p = path("empty.sqlite");
        writeBytes(p, "");
        store::RunStore s(p);
        QCOMPARE(count(s, "PRAGMA application_id"), std::int64_t(store::kApplicationId));
    }

    void foreignAndDamagedFilesAreRefusedUntouched()
    {
        const auto text = path("notes.txt");
        writeBytes(text, "these are my notes, not a database\n");
        expectRefused(text, "not an SQLite file");

        const auto other = path("other.sqlite");
        {
            store::Connection db(other, store::Connection::Mode::ReadWriteCreate);
            db.exec(
                "CREATE TABLE photos (id INTEGER PRIMARY KEY, path TEXT); INSERT INTO photos (path) VALUES ('a.jpg')");
        }
        expectRefused(other, "another application");

        const auto newer = path("newer.sqlite");
        {
            store::RunStore s(newer);
            s.storeRun(info(), smallRun());
        }
        {
            store::Connection db(newer, store::Connection::Mode::ReadWrite);
            db.exec(fmt::format("PRAGMA user_version = {}", store::schemaVersion() + 1));
        }
        expectRefused(newer, "newer Orrery");

        // Damaged: an Orrery store whose pages after the first are overwritten with garbage.
        const auto damaged = path("damaged.sqlite");
        {
            store::RunStore s(damaged);
            s.storeRun(info(), smallRun());
            s.connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
        }
        std::string bytes = readBytes(damaged);
        QVERIFY(bytes.size() > 8192);
        for (std::size_t i = 4096; i < bytes.size(); ++i)
            bytes[i] = static_cast<char>((i * 131) & 0xff);
        writeBytes(damaged, bytes);
        expectRefused(damaged, "not a usable Orrery database");

        // Truncated to a bare header.
        const auto truncated = path("truncated.sqlite");
        writeBytes(truncated, bytes.substr(0, 60));
        expectRefused(truncated, "not an SQLite file");
    }

    /** A store damaged where opening does not look (a table's b-tree page) is refused for writing, readable. */
    void damagedStoreIsRefusedForWriting()
    {
        const auto p = path("flipped.sqlite");
        std::int64_t pageSize = 0, root = 0;
        {
            store::RunStore s(p);
            for (int i = 0; i < 3; ++i)
                s.storeRun(info(), smallRun());
            s.connection().exec("PRAGMA wal_checkpoint(TRUNCATE)");
            pageSize = count(s, "PRAGMA page_size");
            root = count(s, "SELECT rootpage FROM sqlite_schema WHERE name = 'job_chunks'");
        }
        QVERIFY(root > 1);
        std::string bytes = readBytes(p);
        // The page's b-tree header: an impossible cell count and content offset, as a flipped sector would give.
        const auto at = static_cast<std::size_t>((root - 1) * pageSize);
        QVERIFY(at + 8 < bytes.size());
        for (std::size_t i = at + 3; i < at + 7; ++i)
            bytes[i] = static_cast<char>(0xff);
        writeBytes(p, bytes);

        const std::string before = readBytes(p);
        try {
            store::RunStore s(p);
            QFAIL("a damaged store was opened for writing");
        } catch (const Error& e) {
            const std::string what = e.what();
            QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(p));
            QVERIFY2(what.find("damaged") != std::string::npos, what.c_str());
            // Says how to get out what is readable (a command that works with Debian's sqlite3 3.40).
            QVERIFY2(what.find("sqlite3 " + p + " .dump") != std::string::npos, what.c_str());
            QVERIFY2(what.find("recovered.sqlite") != std::string::npos, what.c_str());
        }
        QVERIFY(readBytes(p) == before);
        // Reading what is readable still works.
        store::RunStore::Options ro;
        ro.access = store::RunStore::Access::ReadOnly;
        QCOMPARE(store::RunStore(p, ro).listRuns().size(), std::size_t(3));
    }

    /** Read-only opening never writes, even where permissions would not stop it (tests may run as root). */
    void readOnlyOpenNeverWrites()
    {
        const auto p = path("readonly.sqlite");
        std::int64_t dead = 0;
        {
            store::RunStore s(p);
            s.storeRun(info(), smallRun());
            auto writer = s.beginRun(info("sjf"));
            dead = writer.runId();
            writer.sync(smallRun("sjf"));
            s.connection().exec(fmt::format("UPDATE runs SET writer_pid = 2147483000 WHERE id = {}", dead));
            [[maybe_unused]] static store::RunWriter* abandoned = nullptr;
            abandoned = new store::RunWriter(std::move(writer));
        }
        store::RunStore::Options options;
        options.access = store::RunStore::Access::ReadOnly;
        {
            store::RunStore s(p, options);
            QVERIFY(s.readOnly());
            QVERIFY(s.recoveredRuns().empty());
            const auto runs = s.listRuns();
            QCOMPARE(runs.size(), std::size_t(2));
            // Shown as what it is, without marking it in the file.
            QCOMPARE(runs[1].status, store::RunStatus::Failed);
            QCOMPARE(runs[1].error, std::string("interrupted"));
            QCOMPARE(s.findRun(dead)->status, store::RunStatus::Failed);
            QVERIFY_THROWS_EXCEPTION(std::exception, s.storeRun(info(), smallRun()));
        }
        store::Connection c(p, store::Connection::Mode::ReadOnly);
        QCOMPARE(c.queryInt(fmt::format("SELECT status = 'running' FROM runs WHERE id = {}", dead)), 1);
        QCOMPARE(c.queryInt("SELECT count(*) FROM runs"), 2);
    }

    /** A lock held past the timeout fails with a message naming the file; shorter waits are announced. */
    void lockWaitsAreBoundedAndAnnounced()
    {
        const auto p = path("locked.sqlite");
        store::RunStore s(p);
        store::Connection other(p, store::Connection::Mode::ReadWrite);
        other.exec("BEGIN IMMEDIATE");
        std::vector<std::string> notices;
        s.connection().setLockWait(1500, [&](const std::string& file) { notices.push_back(file); });
        QElapsedTimer t;
        t.start();
        try {
            s.storeRun(info(), smallRun());
            QFAIL("wrote while another connection held the write lock");
        } catch (const store::DatabaseError& e) {
            const std::string what = e.what();
            QVERIFY2(what.find(p) != std::string::npos && what.find("lock") != std::string::npos, what.c_str());
            QVERIFY2(what.find("--lock-timeout") != std::string::npos, what.c_str());
        }
        QVERIFY(t.elapsed() >= 1400);
        QCOMPARE(notices, std::vector<std::string>{p});
        other.exec("COMMIT");
        QVERIFY(s.storeRun(info(), smallRun()) > 0);
    }

    /** Migration reads the version again under the write lock: a second creator finds the work done. */
    void migrationIsRunOnceWhenRaced()
    {
        const auto p = path("raced.sqlite");
        store::Connection a(p, store::Connection::Mode::ReadWriteCreate);
        // `a` creates the schema but has not committed when `b` starts: b reads version 0, then waits.
        a.exec("BEGIN IMMEDIATE");
        a.exec("CREATE TABLE scenarios (id INTEGER PRIMARY KEY)");
        std::string failure;
        std::thread other([&] {
            try {
                store::Connection b(p, store::Connection::Mode::ReadWriteCreate);
                store::migrate(b); // used to run migration 1 again: "table scenarios already exists"
            } catch (const std::exception& e) {
                failure = e.what();
            }
        });
        QThread::msleep(300);
        a.exec("DROP TABLE scenarios");
        a.exec("ROLLBACK");
        store::migrate(a);
        other.join();
        QVERIFY2(failure.empty(), failure.c_str());
        QCOMPARE(a.queryInt("PRAGMA user_version"), store::schemaVersion());
    }
};

QTEST_GUILESS_MAIN(TestStore)
#include "test_store.moc"
