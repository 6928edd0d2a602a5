// Runs stored in batches (RunStore::storeRuns, what a sweep's writer uses) and what makes them cheap: a batch reads
// back as the same runs stored one by one, a run that cannot be stored is left out of its batch whole, transactions
// nest as savepoints, and the connection's kept statements (Connection::cached) hold no lock between uses. Runs
// prepared off the connection (store::prepareRun, a sweep's simulating threads) store the rows a run writer stores.
#include "store_test_helpers.h"

#include "store/prepared_run.h"
#include "store/run_writer.h"

#include <sqlite3.h>

#include <limits>

using namespace orrery;
using namespace orrery::test::storetest;

namespace {

/** What storeRun and storeRuns both decide about a run: its record, less the clock and the writer. */
void compareRecords(const store::RunRecord& a, const store::RunRecord& b)
{
    RC_ASSERT(a.scenarioName == b.scenarioName && a.scenarioHash == b.scenarioHash);
    RC_ASSERT(a.policy == b.policy && a.optionsJson == b.optionsJson && a.seed == b.seed);
    RC_ASSERT(a.status == b.status && a.error == b.error);
    RC_ASSERT(a.totalGpus == b.totalGpus && a.gpuTypes == b.gpuTypes);
    RC_ASSERT(a.jobCount == b.jobCount && a.finishedJobCount == b.finishedJobCount);
    RC_ASSERT(a.avgJctS == b.avgJctS && a.makespanS == b.makespanS && a.costUsd == b.costUsd);
    RC_ASSERT(a.simWallS == b.simWallS && a.events == b.events);
}

/** A run as today's writers leave it: begun, then finished at once by its run writer (what the recorder does for a
 *  run that ends before its first sync, and what storeRun did before runs were prepared). */
std::int64_t storeThroughRunWriter(store::RunStore& s, store::RunInfo info, const sim::RunResult& result)
{
    info.policy = result.policy;
    info.seed = result.seed;
    store::RunWriter writer = s.beginRun(info, std::numeric_limits<int>::max());
    writer.finish(result, result.cancelled ? store::RunStatus::Cancelled : store::RunStatus::Completed);
    return writer.runId();
}

/** genRun with what it leaves out: job events, rate segments, series, apps and job extras. */
rc::Gen<sim::RunResult> genFullRun()
{
    return rc::gen::exec([] {
        sim::RunResult r = *genRun();
        const int jobs = static_cast<int>(r.jobs.size());
        const bool apps = *rc::gen::arbitrary<bool>();
        for (auto& j : r.jobs) {
            if (apps)
                j.app = *rc::gen::element<std::string>("app-a", "app-b");
            if (*rc::gen::inRange(0, 4) == 0) {
                j.suspensions = *rc::gen::inRange(1, 4);
                j.sloClass = *rc::gen::element<std::string>("gold", "silver");
            }
        }
        const int events = jobs ? *rc::gen::inRange(0, 30) : 0;
        for (int i = 0; i < events; ++i)
            r.jobEvents.push_back(
                {i * 5.0, *rc::gen::inRange(0, jobs),
                 *rc::gen::element(sim::JobEventKind::Suspend, sim::JobEventKind::Resume, sim::JobEventKind::Reason),
                 *rc::gen::element<std::string>("", "why")});
        const int segments = jobs ? *rc::gen::inRange(0, 20) : 0;
        for (int i = 0; i < segments; ++i)
            r.rateSegments.push_back({*rc::gen::inRange(0, jobs), i * 10.0, i * 10.0 + 5, 0.5, 12.0});
        if (*rc::gen::arbitrary<bool>())
            r.series.push_back({"queue", {0.0, 60.0}, {1.0, 3.0}});
        return r;
    });
}

std::string text(store::RunStore& s, const char* sql)
{
    store::Statement q(s.connection(), sql);
    return q.step() ? q.columnText(0) : std::string();
}

} // namespace

class TestStoreBatches : public orrery::test::TempDirTest
{
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void batchedRunsEqualRunsStoredOneByOne()
    {
        // Two stores for every case (a new store per case is mostly schema creation): both get the same runs in
        // the same order, so their ids stay equal.
        store::RunStore one(path("one.sqlite"));
        store::RunStore batched(path("batched.sqlite"));
        ORRERY_CHECK_PROPERTY("runs stored in batches of any size read back as the same runs stored one by one", [&] {
            const auto runs = *rc::gen::container<std::vector<sim::RunResult>>(*rc::gen::inRange(1, 8), genRun());
            std::vector<store::RunInfo> infos;
            for (std::size_t i = 0; i < runs.size(); ++i) {
                infos.push_back(info(runs[i].policy, fmt::format("{{\"name\":\"t{}\"}}", i % 3)));
                if (*rc::gen::arbitrary<bool>())
                    infos.back().sweep = store::SweepTag{"s", fmt::format("key-{}", i), "{\"seed\":1}"};
            }
            std::vector<std::int64_t> oneIds;
            for (std::size_t i = 0; i < runs.size(); ++i)
                oneIds.push_back(one.storeRun(infos[i], runs[i]));

            std::vector<std::int64_t> batchedIds;
            for (std::size_t first = 0; first < runs.size();) {
                const std::size_t size = *rc::gen::inRange<std::size_t>(1, runs.size() - first + 1);
                std::vector<store::RunStore::RunToStore> batch;
                for (std::size_t i = first; i < first + size; ++i)
                    batch.push_back({&infos[i], &runs[i]});
                for (const auto& outcome : batched.storeRuns(batch)) {
                    RC_ASSERT(outcome.error.empty());
                    batchedIds.push_back(outcome.runId);
                }
                first += size;
            }
            RC_ASSERT(batchedIds == oneIds); // the same ids too: nothing was rolled back on the way
            for (std::size_t i = 0; i < runs.size(); ++i) {
                const auto a = one.loadRun(oneIds[i]);
                const auto b = batched.loadRun(batchedIds[i]);
                compareRuns(a.result, b.result);
                compareRecords(a.record, b.record);
                RC_ASSERT(a.layout.gpuTypes == b.layout.gpuTypes && a.layout.gpuNode == b.layout.gpuNode);
            }
            for (const char* sql :
                 {"SELECT group_concat(id || name || content_hash, ';') FROM (SELECT * FROM scenarios ORDER BY id)",
                  "SELECT group_concat(run_id || sweep || point_key || axes, ';') FROM (SELECT * FROM sweep_points "
                  "ORDER BY run_id)"})
                RC_ASSERT(text(one, sql) == text(batched, sql));
        });
    }

    void preparedRunsStoreTheRowsOfARunWriter()
    {
        // What a sweep's writer stores (runs prepared on the simulating threads, then storeRuns) against the rows
        // of the run writer that stored every run before (beginRun, then finish): every table, row for row, blob
        // for blob. Each case starts from two stores emptied of runs (a new store per case is mostly schema
        // creation), so that whole stores compare.
        const std::string writerPath = path("rows-writer.sqlite");
        const std::string preparedPath = path("rows-prepared.sqlite");
        store::RunStore byWriter(writerPath);
        store::RunStore byPrepared(preparedPath);
        const auto empty = [](store::RunStore& s) {
            for (const auto& run : s.listRuns())
                s.deleteRun(run.id);
        };
        ORRERY_CHECK_PROPERTY("prepared runs stored in batches leave the rows a run writer leaves", [&] {
            empty(byWriter);
            empty(byPrepared);
            const auto runs = *rc::gen::container<std::vector<sim::RunResult>>(*rc::gen::inRange(1, 6), genFullRun());
            std::vector<store::RunInfo> infos;
            for (std::size_t i = 0; i < runs.size(); ++i) {
                infos.push_back(info("asked-" + runs[i].policy, fmt::format("{{\"name\":\"t{}\"}}", i % 2)));
                if (*rc::gen::arbitrary<bool>())
                    infos.back().sweep = store::SweepTag{"s", fmt::format("key-{}", i), "{\"seed\":1}"};
            }
            for (std::size_t i = 0; i < runs.size(); ++i)
                storeThroughRunWriter(byWriter, infos[i], runs[i]);
            std::vector<store::PreparedRun> prepared;
            for (std::size_t i = 0; i < runs.size(); ++i)
                prepared.push_back(store::prepareRun(byPrepared.path(), infos[i], runs[i]));
            for (std::size_t first = 0; first < prepared.size();) {
                const std::size_t size = *rc::gen::inRange<std::size_t>(1, prepared.size() - first + 1);
                std::vector<const store::PreparedRun*> batch;
                for (std::size_t i = first; i < first + size; ++i)
                    batch.push_back(&prepared[i]);
                for (const auto& outcome : byPrepared.storeRuns(batch))
                    RC_ASSERT(outcome.error.empty() && outcome.runId > 0);
                first += size;
            }
            const std::string a = test::storeRows(writerPath);
            const std::string b = test::storeRows(preparedPath);
            RC_ASSERT(a.find("\nruns:\nrowid=1 ") != std::string::npos); // the dump holds the runs
            RC_ASSERT(a == b);
        });
    }

    void aPreparedRunCountsItsRecordsAndRefusesWhatTheStoreCannotKeep()
    {
        auto run = smallRun();
        run.jobEvents = {{1.0, 0, sim::JobEventKind::Suspend, ""}};
        const auto prepared = store::prepareRun("x.sqlite", info(), run);
        // jobs, intervals, samples, decisions, events, the cluster's GPUs
        QCOMPARE(prepared.records, std::size_t(3 + 5 + 4 + 3 + 1 + 6));
        QCOMPARE(prepared.info.policy, run.policy); // the result's, not the info's
        run.jobs[1].id = std::string("a\0b", 3);
        const std::string error = test::errorOf([&] { store::prepareRun("x.sqlite", info(), run); });
        QVERIFY2(error.starts_with("x.sqlite: jobs: label \"a\" holds a NUL character"), error.c_str());
    }

    void aRunThatCannotBeStoredIsLeftOutOfItsBatchWhole()
    {
        store::RunStore s(path("bad-in-batch.sqlite"));
        auto bad = smallRun("sjf");
        bad.jobs[1].id = std::string("a\0b", 3);
        const auto good = smallRun();
        const auto i = info();
        const auto outcomes = s.storeRuns({{&i, &good}, {&i, &bad}, {&i, &good}});
        QCOMPARE(outcomes.size(), std::size_t(3));
        QVERIFY(outcomes[0].runId > 0 && outcomes[2].runId > 0);
        QCOMPARE(outcomes[1].runId, std::int64_t(0));
        QVERIFY2(outcomes[1].error.find("holds a NUL character") != std::string::npos, outcomes[1].error.c_str());
        // Nothing of the bad run: no row in any table, not even a failed run.
        QCOMPARE(count(s, "SELECT count(*) FROM runs"), std::int64_t(2));
        QCOMPARE(count(s, "SELECT count(*) FROM runs WHERE policy = 'sjf'"), std::int64_t(0));
        QCOMPARE(count(s, "SELECT count(*) FROM gpu_chunks WHERE run_id NOT IN (SELECT id FROM runs)"),
                 std::int64_t(0));
        QCOMPARE(count(s, "SELECT count(*) FROM job_chunks WHERE run_id NOT IN (SELECT id FROM runs)"),
                 std::int64_t(0));
        QVERIFY(!s.connection().inTransaction());
        // storeRun alone is all or nothing too.
        QVERIFY_THROWS_EXCEPTION(Error, s.storeRun(i, bad));
        QCOMPARE(count(s, "SELECT count(*) FROM runs"), std::int64_t(2));
        QCOMPARE(s.loadRun(outcomes[2].runId).result.jobs.size(), std::size_t(3));
    }

    void aRunThatFailsPartWayIsLeftOutOfItsBatchWhole()
    {
        // A batch is written without a savepoint per run; a run that fails after some of its rows (here its job
        // chunk, refused by a trigger) has the batch rolled back and stored again run by run, so that the store
        // ends as if the failed run had never been in the batch.
        const std::string withPath = path("part-way.sqlite");
        const std::string withoutPath = path("part-way-without.sqlite");
        store::RunStore with(withPath);
        store::RunStore without(withoutPath);
        with.connection().exec("CREATE TEMP TRIGGER refuse BEFORE INSERT ON main.job_chunks "
                               "WHEN (SELECT policy FROM runs WHERE id = NEW.run_id) = 'sjf' "
                               "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END");
        const auto i = info();
        const auto good = store::prepareRun(withPath, i, smallRun());
        const auto bad = store::prepareRun(withPath, i, smallRun("sjf"));
        const auto outcomes = with.storeRuns(std::vector<const store::PreparedRun*>{&good, &bad, &good});
        QCOMPARE(outcomes.size(), std::size_t(3));
        QCOMPARE(outcomes[0].runId, std::int64_t(1));
        QCOMPARE(outcomes[1].runId, std::int64_t(0));
        QVERIFY2(outcomes[1].error.find("refused by the test") != std::string::npos, outcomes[1].error.c_str());
        QCOMPARE(outcomes[2].runId, std::int64_t(2));
        QVERIFY(!with.connection().inTransaction());
        for (const auto& outcome : without.storeRuns(std::vector<const store::PreparedRun*>{&good, &good}))
            QVERIFY(outcome.error.empty());
        QCOMPARE(test::storeRows(withPath), test::storeRows(withoutPath));
    }

    void transactionsNestAsSavepoints()
    {
        store::Connection db(path("nested.sqlite"), store::Connection::Mode::ReadWriteCreate);
        db.exec("CREATE TABLE t (v INTEGER)");
        {
            store::Transaction outer(db);
            QVERIFY(db.inTransaction());
            db.exec("INSERT INTO t VALUES (1)");
            {
                store::Transaction kept(db);
                db.exec("INSERT INTO t VALUES (2)");
                kept.commit();
            }
            {
                store::Transaction dropped(db); // destroyed uncommitted: only its own write goes
                db.exec("INSERT INTO t VALUES (3)");
            }
            QVERIFY(db.inTransaction());
            outer.commit();
        }
        QVERIFY(!db.inTransaction());
        QCOMPARE(db.queryInt("SELECT count(*) = 2 AND sum(v) = 3 FROM t"), std::int64_t(1));
        {
            store::Transaction outer(db); // rolled back: its committed savepoint goes with it
            store::Transaction inner(db);
            db.exec("INSERT INTO t VALUES (4)");
            inner.commit();
        }
        QCOMPARE(db.queryInt("SELECT count(*) FROM t"), std::int64_t(2));
    }

    void cachedStatementsAreKeptResetAndNestable()
    {
        // A rollback-journal file: a statement left mid-read would hold its shared lock and block the other
        // connection's commit below.
        const auto p = path("cached.sqlite");
        store::Connection a(p, store::Connection::Mode::ReadWriteCreate);
        a.exec("CREATE TABLE t (v INTEGER); INSERT INTO t VALUES (1), (2), (3)");
        const char* sql = "SELECT v FROM t WHERE v >= ?1 ORDER BY v";
        sqlite3_stmt* kept = nullptr;
        {
            auto first = a.cached(sql);
            first->bind(1, 2);
            QVERIFY(first->step());
            QCOMPARE(first->columnInt(0), std::int64_t(2));
            {
                // The same SQL while the first is still reading: a statement of its own, not the first's cursor.
                auto nested = a.cached(sql);
                nested->bind(1, 1);
                QVERIFY(nested->step());
                QCOMPARE(nested->columnInt(0), std::int64_t(1));
            }
            QVERIFY(first->step());
            QCOMPARE(first->columnInt(0), std::int64_t(3));
            kept = sqlite3_next_stmt(a.handle(), nullptr);
        } // left mid-read on purpose
        // Kept: the same statement again, its binding cleared (NULL matches no row), not a new one.
        {
            auto again = a.cached(sql);
            QVERIFY(!again->step());
        }
        int statements = 0;
        for (sqlite3_stmt* s = sqlite3_next_stmt(a.handle(), nullptr); s; s = sqlite3_next_stmt(a.handle(), s))
            ++statements;
        QCOMPARE(statements, 1);
        QVERIFY(sqlite3_next_stmt(a.handle(), nullptr) == kept);
        QVERIFY(sqlite3_stmt_busy(kept) == 0);
        // No lock held between uses: another connection writes without waiting.
        store::Connection b(p, store::Connection::Mode::ReadWrite);
        b.setLockWait(0, nullptr);
        b.exec("INSERT INTO t VALUES (4)");
        QCOMPARE(a.queryInt("SELECT count(*) FROM t"), std::int64_t(4));
    }
};

QTEST_GUILESS_MAIN(TestStoreBatches)
#include "test_store_batches.moc"
