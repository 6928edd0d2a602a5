// The store's extensible records (schema version 5, docs/database.md "Extensible records"): job extras,
// job events (column chunks since schema 6) and named series; rate segments (schema 7); and the migration of stores
// written before them.
#include "store_fixtures.h"
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "io/run_json.h"
#include "metrics/metrics.h"
#include "sched/registry.h"
#include "sim/simulator.h"
#include "store/column_chunks.h"
#include "store/run_store.h"
#include "store/schema.h"
#include "store/sqlite.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

using namespace orrery;

namespace {

/** A hand-made run on the fixtures' two-node cluster with every lifecycle record set. */
sim::RunResult lifecycleRun()
{
    sim::RunResult r = test::twoNodeRun("edf", 3);
    r.jobs = {{"a", "m", "u", 0, 0, 100, 1, "a100-40gb-sxm", 1, 130, 0.1, 90},
              {"b", "m", "u", 5, -1, -1, 0, "", 0, 0, 0, 50},
              {"c", "m", "u", 6, 10, 20, 1, "a100-40gb-sxm", 0, 10, 0.01, 10}};
    r.jobs[0].suspensions = 1;
    r.jobs[0].pausedGpuSeconds = 30;
    r.jobs[0].sloClass = "gold";
    r.jobs[0].deadlines = {{150, 2}, {300, 1}};
    r.jobs[0].extras = {{"lp_s", "0.25"}, {"plan", "{\"dp\":2}"}}; // read back in name order
    r.jobs[1].droppedS = 40;
    r.jobs[1].dropReason = "cannot meet its deadline";
    r.jobs[1].deadlines = {{45, 1}};
    r.intervals = {{0, 0, 0, 50}, {2, 0, 10, 20}, {0, 0, 50, 130}};
    r.utilization = {{0, 1, {1, 0}}, {130, 0, {0, 0}}};
    r.jobEvents = {{40, 0, sim::JobEventKind::Suspend, ""},
                   {40, 1, sim::JobEventKind::Drop, "cannot meet its deadline"},
                   {50, 0, sim::JobEventKind::Resume, ""}};
    r.series = {{"objective", {0, 10, 50}, {1.5, 2.5, 3}}, {"active", {0}, {2}}};
    r.rateSegments = {{2, 10, 20, 2.0, 0}, {0, 0, 40, 1.0, 64}, {0, 80, 130, 1.5, 96}};
    r.makespanS = 130;
    return r;
}

void compareRecords(const sim::RunResult& got, const sim::RunResult& want)
{
    QCOMPARE(got.jobs.size(), want.jobs.size());
    for (std::size_t j = 0; j < want.jobs.size(); ++j) {
        QCOMPARE(got.jobs[j].droppedS, want.jobs[j].droppedS);
        QCOMPARE(got.jobs[j].dropReason, want.jobs[j].dropReason);
        QCOMPARE(got.jobs[j].suspensions, want.jobs[j].suspensions);
        QCOMPARE(got.jobs[j].pausedGpuSeconds, want.jobs[j].pausedGpuSeconds);
        QCOMPARE(got.jobs[j].sloClass, want.jobs[j].sloClass);
        QCOMPARE(got.jobs[j].deadlines, want.jobs[j].deadlines);
        QCOMPARE(got.jobs[j].extras, want.jobs[j].extras);
        QCOMPARE(got.jobs[j].finished(), want.jobs[j].finished());
    }
    QCOMPARE(got.jobEvents.size(), want.jobEvents.size());
    for (std::size_t i = 0; i < want.jobEvents.size(); ++i) {
        QCOMPARE(got.jobEvents[i].timeS, want.jobEvents[i].timeS);
        QCOMPARE(got.jobEvents[i].job, want.jobEvents[i].job);
        QVERIFY(got.jobEvents[i].kind == want.jobEvents[i].kind);
        QCOMPARE(got.jobEvents[i].detail, want.jobEvents[i].detail);
    }
    QCOMPARE(got.series.size(), want.series.size());
    for (std::size_t i = 0; i < want.series.size(); ++i) {
        QCOMPARE(got.series[i].name, want.series[i].name);
        QCOMPARE(got.series[i].timeS, want.series[i].timeS);
        QCOMPARE(got.series[i].value, want.series[i].value);
    }
    QCOMPARE(got.rateSegments.size(), want.rateSegments.size());
    for (std::size_t i = 0; i < want.rateSegments.size(); ++i) {
        QCOMPARE(got.rateSegments[i].job, want.rateSegments[i].job);
        QCOMPARE(got.rateSegments[i].startS, want.rateSegments[i].startS);
        QCOMPARE(got.rateSegments[i].endS, want.rateSegments[i].endS);
        QCOMPARE(got.rateSegments[i].rate, want.rateSegments[i].rate);
        QCOMPARE(got.rateSegments[i].samplesPerS, want.rateSegments[i].samplesPerS);
    }
}

} // namespace

class TestStoreRecords : public orrery::test::TempDirTest
{
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void recordsRoundTrip()
    {
        const auto p = path("records.sqlite");
        const auto want = lifecycleRun();
        store::RunStore s(p);
        const auto id = s.storeRun(test::twoNodeRunInfo("t", "{\"name\":\"t\"}", "edf", 3), want);
        const auto got = s.loadRun(id).result;
        compareRecords(got, want);
        QCOMPARE(s.connection().queryInt("SELECT dropped_job_count FROM runs WHERE id = 1"), std::int64_t(1));
        QCOMPARE(s.connection().queryInt("SELECT dropped_job_count FROM run_overview WHERE run_id = 1"),
                 std::int64_t(1));
        // Plain SQL reads the extras (JSON1); the events are one chunk (the extension reads them as rows).
        QCOMPARE(s.connection().queryInt("SELECT json_extract(extras, '$.suspensions') FROM job_extras "
                                         "WHERE run_id = 1 AND job_index = 0"),
                 std::int64_t(1));
        QCOMPARE(store::chunkedRecordCount(s.connection(), "event_chunks", id), std::int64_t(3));
        QCOMPARE(s.connection().queryInt("SELECT count(*) FROM event_chunks"), std::int64_t(1));
        QCOMPARE(store::chunkedRecordCount(s.connection(), "rate_segment_chunks", id), std::int64_t(3));
        // A job without lifecycle data has no row.
        QCOMPARE(s.connection().queryInt("SELECT count(*) FROM job_extras WHERE job_index = 2"), std::int64_t(0));
        // The export shows the dropped job as dropped, never as finished.
        const auto json = io::storedRunToJson(s.loadRun(id));
        QVERIFY(json["jobs"][1]["jct_s"].is_null());
        QCOMPARE(json["jobs"][1]["dropped_s"].get<double>(), 40.0);
        QCOMPARE(json["jobs"][0]["extras"]["plan"]["dp"].get<int>(), 2);
        QCOMPARE(json["job_events"].size(), std::size_t(3));
        QCOMPARE(json["series"]["objective"]["value"][1].get<double>(), 2.5);
        QCOMPARE(json["rate_segments"]["samples_per_s"][2].get<double>(), 96.0);
        // Deleting the run deletes its records.
        QVERIFY(s.deleteRun(id));
        QCOMPARE(s.connection().queryInt("SELECT (SELECT count(*) FROM job_extras) + (SELECT count(*) FROM "
                                         "event_chunks) + (SELECT count(*) FROM run_series) + (SELECT count(*) FROM "
                                         "rate_segment_chunks)"),
                 std::int64_t(0));
    }

    void simulatedRateSegmentsRoundTrip()
    {
        // What the engine records comes back whole: two chunks' worth of segments (FIFO, one GPU, 5,000 jobs).
        std::vector<workload::Job> jobs;
        for (int k = 0; k < 5000; ++k)
            jobs.push_back(test::fixedJob("j" + std::to_string(k), k, 1, 10 + k % 7));
        const auto w = test::prepare(test::makeCluster({{"v100", 1, 1}}), jobs);
        auto fifo = sched::makePolicy("fifo");
        const auto want = sim::simulate(w, *fifo, 1);
        QCOMPARE(want.rateSegments.size(), std::size_t(5000));
        store::RunStore s(path("segments.sqlite"));
        const auto id = s.storeRun(test::twoNodeRunInfo("t", "{}", "fifo", 1), want);
        const auto got = s.loadRun(id).result;
        QCOMPARE(s.connection().queryInt("SELECT count(*) FROM rate_segment_chunks"), std::int64_t(2));
        QCOMPARE(got.rateSegments.size(), want.rateSegments.size());
        for (std::size_t i = 0; i < want.rateSegments.size(); ++i) {
            QCOMPARE(got.rateSegments[i].job, want.rateSegments[i].job);
            QCOMPARE(got.rateSegments[i].endS, want.rateSegments[i].endS);
        }
    }

    void aDefaultRunWritesNoRecords()
    {
        // FIFO without restarts, deadlines, drops or waits (a waiting job gets a reason event): nothing in the new
        // tables, so storing costs what it did.
        const auto w = test::prepare(test::makeCluster({{"v100", 2, 2}}),
                                     {test::fixedJob("a", 0, 2, 100), test::fixedJob("b", 0, 2, 100)});
        auto fifo = sched::makePolicy("fifo");
        const auto r = sim::simulate(w, *fifo, 1);
        store::RunStore s(path("default.sqlite"));
        s.storeRun(test::twoNodeRunInfo("t", "{}", "fifo", 1), r);
        QCOMPARE(s.connection().queryInt("SELECT (SELECT count(*) FROM job_extras) + (SELECT count(*) FROM "
                                         "event_chunks) + (SELECT count(*) FROM run_series)"),
                 std::int64_t(0));
        QCOMPARE(s.connection().queryInt("SELECT dropped_job_count FROM runs"), std::int64_t(0));
    }

    void interruptedRunsKeepTheirDroppedJobs()
    {
        // A writer stores a job once final: a dropped job is final at its drop, as a finished one at its end.
        const auto p = path("sync.sqlite");
        auto want = lifecycleRun();
        store::RunStore s(p);
        {
            auto writer = s.beginRun(test::twoNodeRunInfo("t", "{}", "edf", 3));
            auto partial = want;
            partial.jobs[0].endS = -1; // a still running
            writer.sync(partial);
            writer.fail("killed");
        }
        const auto run = s.loadRun(1);
        QVERIFY(run.partial);
        QCOMPARE(run.jobStored, (std::vector<char>{0, 1, 1}));
        QCOMPARE(run.result.jobs[1].droppedS, 40.0);
        // Events are synced as the run goes (schema 6), so the interrupted run keeps them.
        QCOMPARE(run.result.jobEvents.size(), want.jobEvents.size());
        QCOMPARE(run.result.jobEvents[1].detail, std::string("cannot meet its deadline"));
        QVERIFY(run.result.series.empty()); // series are written when the run ends
    }

    void eventsSyncedAcrossChunks()
    {
        // A preemptive run has hundreds of thousands of events: synced in parts, the last partial chunk is
        // rewritten by the next sync, and they come back whole and in order.
        const auto p = path("events.sqlite");
        auto want = lifecycleRun();
        want.jobEvents.clear();
        for (int i = 0; i < 9000; ++i)
            want.jobEvents.push_back({i * 0.5, i % 3, i % 2 ? sim::JobEventKind::Resume : sim::JobEventKind::Suspend,
                                      i % 1000 == 0 ? std::to_string(i) : std::string()});
        store::RunStore s(p);
        {
            auto writer = s.beginRun(test::twoNodeRunInfo("t", "{}", "edf", 3));
            auto partial = want;
            for (const std::size_t n : {std::size_t(10), std::size_t(5000), std::size_t(8193)}) {
                partial.jobEvents.assign(want.jobEvents.begin(), want.jobEvents.begin() + static_cast<long>(n));
                writer.sync(partial);
                QCOMPARE(store::chunkedRecordCount(s.connection(), "event_chunks", writer.runId()),
                         static_cast<std::int64_t>(n));
            }
            writer.finish(want, store::RunStatus::Completed);
        }
        QCOMPARE(s.connection().queryInt("SELECT count(*) FROM event_chunks WHERE run_id = 1"), std::int64_t(3));
        compareRecords(s.loadRun(1).result, want);
    }

    void version4StoresAreMigrated()
    {
        // A store as schema version 4 left it: two runs with job chunks, one completed and one failed.
        const auto p = path("v4.sqlite");
        const auto old = test::twoNodeRun("fifo", 1);
        {
            store::Connection db(p, store::Connection::Mode::ReadWriteCreate);
            store::migrate(db, 4);
            QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'job_extras'"), std::int64_t(0));
            db.exec("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES ('old', 'x', '{}', 't');"
                    "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus, "
                    "job_count, finished_job_count) VALUES (1, 'fifo', 1, '0.1.0', 't', 'completed', 6, 2, 2), "
                    "(1, 'sjf', 1, '0.1.0', 't', 'failed', 6, NULL, NULL)");
            std::vector<sim::JobRecord> jobs = {{"a", "m", "u", 0, 0, 100, 1, "v100", 0, 100, 0.1, 100},
                                                {"b", "m", "u", 1, 100, 150, 1, "v100", 0, 50, 0.05, 50}};
            store::ColumnChunkWriter(db, 1).writeJobs(jobs, {0, 1}, 0);
        }
        {
            // Read-only, the file is not migrated, and is refused as any older store is, with the remedy.
            store::RunStore::Options readOnly;
            readOnly.access = store::RunStore::Access::ReadOnly;
            try {
                store::RunStore ro(p, readOnly);
                QFAIL("expected an error");
            } catch (const Error& e) {
                QVERIFY2(std::string(e.what()).find("schema version 4, now 11") != std::string::npos, e.what());
            }
        }
        store::RunStore s(p);
        auto& db = s.connection();
        QCOMPARE(db.queryInt("PRAGMA user_version"), std::int64_t(store::schemaVersion()));
        QCOMPARE(store::schemaVersion(), 11);
        // Schema 7: the rate segments' table; runs stored before have none.
        QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'rate_segment_chunks'"), std::int64_t(1));
        QVERIFY(s.loadRun(1).result.rateSegments.empty());
        QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE name IN ('job_extras', 'event_chunks', "
                             "'run_series')"),
                 std::int64_t(3));
        // The data step: an ended run dropped nothing; a run without a summary stays unknown.
        QCOMPARE(db.queryInt("SELECT dropped_job_count FROM runs WHERE id = 1"), std::int64_t(0));
        QCOMPARE(db.queryInt("SELECT dropped_job_count IS NULL FROM runs WHERE id = 2"), std::int64_t(1));
        QCOMPARE(db.queryInt("SELECT dropped_job_count FROM run_overview WHERE run_id = 1"), std::int64_t(0));
        const auto run = s.loadRun(1).result;
        QCOMPARE(run.jobs[1].endS, 150.0);
        QVERIFY(!run.jobs[1].dropped());
        QCOMPARE(metrics::summarize(run).jobsDropped, 0);
        // New runs with records go into the migrated file beside the old ones.
        const auto want = lifecycleRun();
        const auto id = s.storeRun(test::twoNodeRunInfo("t", "{}", "edf", 3), want);
        QCOMPARE(id, std::int64_t(3));
        compareRecords(s.loadRun(id).result, want);
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void version5StoresAreMigrated()
    {
        // A store as schema version 5 left it: events as one row each, for two runs, one of them longer than a chunk.
        const auto p = path("v5.sqlite");
        std::vector<sim::JobEvent> many;
        for (int i = 0; i < 5000; ++i)
            many.push_back({i * 2.0, i % 7, i % 2 ? sim::JobEventKind::Resume : sim::JobEventKind::Suspend, ""});
        many.push_back({10001, 3, sim::JobEventKind::Drop, "cannot meet its deadline"});
        const auto few = lifecycleRun().jobEvents;
        {
            store::Connection db(p, store::Connection::Mode::ReadWriteCreate);
            store::migrate(db, 5);
            db.exec("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES ('old', 'x', '{}', 't');"
                    "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus, "
                    "job_count, finished_job_count) VALUES (1, 'tiresias', 1, '0.1.0', 't', 'completed', 6, 0, 0), "
                    "(1, 'edf', 1, '0.1.0', 't', 'completed', 6, 0, 0), "
                    "(1, 'fifo', 1, '0.1.0', 't', 'completed', 6, 0, 0)");
            store::Statement insert(db, "INSERT INTO job_events (run_id, event_index, job_index, time_s, kind, "
                                        "detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
            // Inserted out of order: the migration must follow event_index, not the row order. One transaction:
            // committing each of the 5,000 rows alone waits on the disk every time (minutes on a busy machine).
            store::Transaction tx(db);
            for (const auto& [run, events] : {std::pair{std::int64_t(2), few}, std::pair{std::int64_t(1), many}})
                for (std::size_t k = events.size(); k-- > 0;) {
                    insert.bind(1, run)
                        .bind(2, static_cast<std::int64_t>(k))
                        .bind(3, events[k].job)
                        .bind(4, events[k].timeS)
                        .bind(5, std::string(sim::toString(events[k].kind)))
                        .bind(6, events[k].detail);
                    insert.run();
                }
            tx.commit();
        }
        store::RunStore s(p);
        auto& db = s.connection();
        QCOMPARE(db.queryInt("PRAGMA user_version"), std::int64_t(store::schemaVersion()));
        QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'job_events'"), std::int64_t(0));
        QCOMPARE(store::chunkedRecordCount(db, "event_chunks", 1), std::int64_t(many.size()));
        QCOMPARE(db.queryInt("SELECT count(*) FROM event_chunks WHERE run_id = 1"), std::int64_t(2));
        QCOMPARE(db.queryInt("SELECT count(*) FROM event_chunks WHERE run_id = 3"), std::int64_t(0));
        auto want = lifecycleRun();
        for (const auto& [run, events] : {std::pair{std::int64_t(1), many}, std::pair{std::int64_t(2), few}}) {
            const auto got = store::readJobEvents(db, p, run);
            QCOMPARE(got.size(), events.size());
            for (std::size_t k = 0; k < events.size(); ++k) {
                QCOMPARE(got[k].timeS, events[k].timeS);
                QCOMPARE(got[k].job, events[k].job);
                QVERIFY(got[k].kind == events[k].kind);
                QCOMPARE(got[k].detail, events[k].detail);
            }
        }
        QVERIFY(store::readJobEvents(db, p, 3).empty());
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void damagedEventsNameTheTable()
    {
        const auto p = path("damaged.sqlite");
        store::RunStore s(p);
        const auto id = s.storeRun(test::twoNodeRunInfo("t", "{}", "edf", 3), lifecycleRun());
        // The chunk's kinds are labels: one that no Orrery writes is a damaged chunk, named with its kind.
        std::string labels;
        {
            store::Statement read(s.connection(), "SELECT labels FROM event_chunks WHERE run_id = ?1");
            read.bind(1, id);
            QVERIFY(read.step());
            labels = std::string(read.columnBlob(0));
        }
        const auto at = labels.find("suspend");
        QVERIFY(at != std::string::npos);
        labels.replace(at, 7, "teleport");
        store::Statement write(s.connection(), "UPDATE event_chunks SET labels = ?2 WHERE run_id = ?1");
        write.bind(1, id).bindStaticBlob(2, labels.data(), labels.size());
        write.run();
        try {
            s.loadRun(id);
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("event_chunks") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("teleport") != std::string::npos, e.what());
        }
    }

private:
};

QTEST_GUILESS_MAIN(TestStoreRecords)
#include "test_store_records.moc"
