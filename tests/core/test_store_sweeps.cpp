// Schema version 8 (docs/database.md, "Sweeps" and "Merging stores"): run uids, sweep tags, provenance, the
// migration from version 7, and mergeRunStores: complete copies, idempotence, refusals, all-or-nothing.
#include "store_fixtures.h"
#include "test_support.h"

#include "io/error.h"
#include "store/process_identity.h"
#include "store/run_merge.h"
#include "store/run_store.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "store/sweep_records.h"

#include <QTemporaryDir>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

using namespace orrery;

namespace {

/** A run with a bit of everything: jobs (one unfinished), intervals, samples, events, a series, a rate segment. */
sim::RunResult fullRun(const std::string& policy, std::uint64_t seed)
{
    sim::RunResult r = test::twoNodeRun(policy, seed);
    r.jobs = {{"a", "m", "u", 0, 0, 100, 1, "a100-40gb-sxm", 1, 130, 0.1, 90},
              {"b", "m", "u", 5, 10, 60, 2, "rtx2080ti", 0, 100, 0.02, 50}};
    r.jobs[0].suspensions = 1;
    r.jobs[0].sloClass = "gold";
    r.intervals = {{0, 0, 0, 50}, {1, 4, 10, 60}, {1, 5, 10, 60}, {0, 0, 50, 100}};
    r.utilization = {{0, 1, {1, 0}}, {10, 3, {1, 2}}, {100, 0, {0, 0}}};
    r.decisions = {{0, 0.001, 1, 0}, {10, 0.002, 1, 1}};
    r.jobEvents = {{40, 0, sim::JobEventKind::Suspend, ""}, {50, 0, sim::JobEventKind::Resume, ""}};
    r.series = {{"objective", {0, 10}, {1.5, 2.5}}};
    r.rateSegments = {{0, 0, 40, 1.0, 64}};
    r.makespanS = 100;
    r.events = 9;
    return r;
}

store::RunInfo taggedInfo(const std::string& policy, std::uint64_t seed, const std::string& key)
{
    auto info = test::twoNodeRunInfo("s", R"({"name":"s"})", policy, seed);
    info.sweep = store::SweepTag{"sw", key, fmt::format(R"({{"policy":"{}","seed":{}}})", policy, seed)};
    return info;
}

void sameRun(const store::StoredRun& a, const store::StoredRun& b)
{
    QCOMPARE(a.record.policy, b.record.policy);
    QCOMPARE(a.record.seed, b.record.seed);
    QCOMPARE(int(a.record.status), int(b.record.status));
    QCOMPARE(a.record.avgJctS, b.record.avgJctS);
    QCOMPARE(a.record.scenarioHash, b.record.scenarioHash);
    QCOMPARE(a.record.gpuTypes, b.record.gpuTypes);
    QCOMPARE(a.layout.nodeNames, b.layout.nodeNames);
    QCOMPARE(a.result.jobs.size(), b.result.jobs.size());
    for (std::size_t j = 0; j < a.result.jobs.size(); ++j) {
        QCOMPARE(a.result.jobs[j].id, b.result.jobs[j].id);
        QCOMPARE(a.result.jobs[j].endS, b.result.jobs[j].endS);
        QCOMPARE(a.result.jobs[j].sloClass, b.result.jobs[j].sloClass);
    }
    QCOMPARE(a.result.intervals.size(), b.result.intervals.size());
    QCOMPARE(a.result.utilization.size(), b.result.utilization.size());
    QCOMPARE(a.result.decisions.size(), b.result.decisions.size());
    QCOMPARE(a.result.jobEvents.size(), b.result.jobEvents.size());
    QCOMPARE(a.result.series.size(), b.result.series.size());
    QCOMPARE(a.result.rateSegments.size(), b.result.rateSegments.size());
}

} // namespace

class TestStoreSweeps : public orrery::test::TempDirTest
{
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void version7StoresAreMigrated()
    {
        const auto p = path("v7.sqlite");
        {
            store::Connection db(p, store::Connection::Mode::ReadWriteCreate);
            store::migrate(db, 7);
            db.exec("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES ('old', 'x', '{}', 't');"
                    "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus, "
                    "job_count, finished_job_count) VALUES (1, 'fifo', 1, '0.1.0', 't', 'completed', 6, 0, 0), "
                    "(1, 'sjf', 1, '0.1.0', 't', 'completed', 6, 0, 0)");
        }
        {
            store::RunStore::Options ro;
            ro.access = store::RunStore::Access::ReadOnly;
            const std::string err = test::errorOf([&] { store::RunStore s(p, ro); });
            QVERIFY2(err.find("schema version 7, now 11") != std::string::npos, err.c_str());
        }
        store::RunStore s(p);
        auto& db = s.connection();
        QCOMPARE(store::schemaVersion(), 11);
        QCOMPARE(db.queryInt("PRAGMA user_version"), std::int64_t(store::schemaVersion()));
        QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE name IN ('sweeps', 'sweep_points', "
                             "'run_sources', 'runs_by_uid')"),
                 std::int64_t(4));
        // Runs stored before get a uid each: 32 hex digits, all different.
        QCOMPARE(db.queryInt("SELECT count(DISTINCT uid) FROM runs WHERE length(uid) = 32 AND uid NOT GLOB "
                             "'*[^0-9a-f]*'"),
                 std::int64_t(2));
        const auto id = s.storeRun(test::twoNodeRunInfo("t", "{}", "edf", 3), fullRun("edf", 3));
        QCOMPARE(db.queryInt(fmt::format("SELECT length(uid) FROM runs WHERE id = {}", id)), std::int64_t(32));
        QCOMPARE(db.queryInt("SELECT count(DISTINCT uid) FROM runs"), std::int64_t(3));
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void version10GpuRowsBecomeOneChunkPerRun()
    {
        // A store as schema 10 left it: one gpus row per GPU. Run 1 on the two-node cluster, run 2 on three nodes
        // (odd names, a node index with no GPU of its own below it), run 3 interrupted before it had any GPU.
        hardware::GpuLayout three;
        three.nodeNames = {"gpu-\u00e9,\"0", "", "k80-2"};
        three.gpuNode = {0, 0, 2, 2, 2};
        three.gpuTypes = {"v100", "v100", "k80", "k80", "k80"};
        const auto p = path("v10.sqlite");
        const auto writeGpuRows = [](store::Connection& db, std::int64_t run, const hardware::GpuLayout& layout) {
            store::Statement ins(db, "INSERT INTO gpus (run_id, gpu, node_index, node, gpu_type) VALUES (?1, ?2, ?3, "
                                     "?4, ?5)");
            for (int g = 0; g < layout.gpuCount(); ++g) {
                const int node = layout.gpuNode[static_cast<std::size_t>(g)];
                ins.bind(1, run).bind(2, g).bind(3, node);
                ins.bind(4, layout.nodeNames[static_cast<std::size_t>(node)]);
                ins.bind(5, layout.gpuTypes[static_cast<std::size_t>(g)]);
                ins.run();
            }
        };
        const auto writeVersion10 = [&](const std::string& file, bool gap) {
            store::Connection db(file, store::Connection::Mode::ReadWriteCreate);
            store::migrate(db, 10);
            db.exec("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES ('old', 'x', '{}', 't');"
                    "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus, "
                    "job_count, finished_job_count, uid) VALUES "
                    "(1, 'fifo', 1, '0.1.0', 't', 'completed', 6, 0, 0, '00000000000000000000000000000001'), "
                    "(1, 'sjf', 1, '0.1.0', 't', 'completed', 5, 0, 0, '00000000000000000000000000000002'), "
                    "(1, 'las', 1, '0.1.0', 't', 'failed', 0, NULL, NULL, '00000000000000000000000000000003');"
                    "INSERT INTO run_gpu_types VALUES (1, 0, 'a100-40gb-sxm', 4, 3.67), (1, 1, 'rtx2080ti', 2, 0.4), "
                    "(2, 0, 'k80', 3, 0.9), (2, 1, 'v100', 2, 2.48)");
            writeGpuRows(db, 1, test::twoNodeLayout());
            hardware::GpuLayout second = three;
            if (gap)
                second.gpuNode.pop_back();
            writeGpuRows(db, 2, second);
            if (gap)
                db.exec("INSERT INTO gpus VALUES (2, 9, 2, 'k80-2', 'k80')");
        };
        writeVersion10(p, false);
        store::RunStore::Options ro;
        ro.access = store::RunStore::Access::ReadOnly;
        {
            const std::string err = test::errorOf([&] { store::RunStore s(p, ro); });
            QVERIFY2(err.find("schema version 10, now 11") != std::string::npos, err.c_str());
        }
        // A shard of the older schema is refused by a merge until it has been opened for writing once.
        const auto out = path("v10-merged.sqlite");
        {
            store::RunStore dest(out);
            const std::string err = test::errorOf([&] { store::mergeRunStores(dest, {p}); });
            QVERIFY2(err.find(p) == 0 && err.find("schema version 10") != std::string::npos, err.c_str());
        }
        {
            store::RunStore s(p);
            auto& db = s.connection();
            QCOMPARE(db.queryInt("PRAGMA user_version"), std::int64_t(11));
            QCOMPARE(db.queryInt("SELECT count(*) FROM sqlite_schema WHERE name = 'gpus'"), std::int64_t(0));
            QCOMPARE(db.queryInt("SELECT count(*) FROM gpu_chunks"), std::int64_t(2)); // one per run with GPUs
            QVERIFY(s.loadRun(1).layout == test::twoNodeLayout());
            const auto second = s.loadRun(2);
            QVERIFY(second.layout == three);
            QCOMPARE(second.result.gpuType, (std::vector<int>{1, 1, 0, 0, 0}));
            QCOMPARE(s.loadRun(3).layout.gpuCount(), 0);
            // New runs go in beside them, as chunks.
            s.storeRun(taggedInfo("edf", 3, "k9"), fullRun("edf", 3));
            QVERIFY(s.loadRun(4).layout == test::twoNodeLayout());
            QCOMPARE(s.integrityCheck(), std::string("ok"));
        }
        // Migrated, it merges with its GPUs.
        {
            store::RunStore dest(out);
            QCOMPARE(store::mergeRunStores(dest, {p}).copied(), 4);
            QVERIFY(dest.loadRun(2).layout == three);
            QVERIFY(dest.loadRun(4).layout == test::twoNodeLayout());
        }
        // Rows that do not number the GPUs 0, 1, ... are refused, naming the run; the store stays at version 10.
        const auto gap = path("v10-gap.sqlite");
        writeVersion10(gap, true);
        const std::string err = test::errorOf([&] { store::RunStore s(gap); });
        QVERIFY2(err.find(gap) == 0 && err.find("gpus: run 2: GPU 9 follows 4 GPUs") != std::string::npos, err.c_str());
        store::Connection db(gap, store::Connection::Mode::ReadOnly);
        QCOMPARE(db.queryInt("PRAGMA user_version"), std::int64_t(10));
    }

    void sweepTagsGoWithTheirRuns()
    {
        store::RunStore s(path("tags.sqlite"));
        store::saveSweep(s.connection(), "sw", R"(["policy","seed"])", "{}");
        store::saveSweep(s.connection(), "sw", R"(["policy","seed","x"])", R"({"v":2})"); // a later spec wins
        QCOMPARE(store::sweepAxes(s.connection(), "sw"), (std::vector<std::string>{"policy", "seed", "x"}));
        const auto a = s.storeRun(taggedInfo("fifo", 1, "k1"), fullRun("fifo", 1));
        auto w = s.beginRun(taggedInfo("sjf", 1, "k2"));
        w.fail("boom");
        s.storeRun(test::twoNodeRunInfo("s", "{}", "fifo", 1), fullRun("fifo", 1)); // not a sweep's
        QCOMPARE(store::completedPointKeys(s.connection(), "sw"), (std::unordered_set<std::string>{"k1"}));
        QVERIFY(store::completedPointKeys(s.connection(), "other").empty());
        const auto rows = store::sweepPoints(s.connection(), "sw");
        QCOMPARE(rows.size(), std::size_t(2));
        QCOMPARE(rows[1].status, std::string("failed"));
        QCOMPARE(rows[1].error, std::string("boom"));
        QCOMPARE(store::sweepNames(s.connection()), std::vector<std::string>{"sw"});
        // Deleting a run deletes its tag.
        QVERIFY(s.deleteRun(a));
        QVERIFY(store::completedPointKeys(s.connection(), "sw").empty());
        QCOMPARE(s.connection().queryInt("SELECT count(*) FROM sweep_points"), std::int64_t(1));
    }

    void mergeCopiesRunsWholeOnceAndKeepsProvenance()
    {
        const auto a = path("a.sqlite"), b = path("b.sqlite"), out = path("out.sqlite"), out2 = path("out2.sqlite");
        {
            store::RunStore s(a);
            store::saveSweep(s.connection(), "sw", R"(["policy","seed"])", "{}");
            s.storeRun(taggedInfo("fifo", 1, "k1"), fullRun("fifo", 1));
            s.storeRun(taggedInfo("sjf", 1, "k2"), fullRun("sjf", 1));
        }
        {
            store::RunStore s(b);
            s.storeRun(taggedInfo("fifo", 2, "k3"), fullRun("fifo", 2));
            s.storeRun(test::twoNodeRunInfo("s", R"({"name":"s"})", "edf", 5), fullRun("edf", 5));
        }
        store::RunStore dest(out);
        dest.storeRun(test::twoNodeRunInfo("mine", "{}", "fifo", 9), fullRun("fifo", 9)); // kept as it is
        const auto report = store::mergeRunStores(dest, {a, b});
        QCOMPARE(report.copied(), 4);
        QCOMPARE(report.sources[0].copied, 2);
        QCOMPARE(dest.listRuns().size(), std::size_t(5));
        // Scenarios shared by content: the sweep's scenario once.
        QCOMPARE(dest.connection().queryInt("SELECT count(*) FROM scenarios"), std::int64_t(2));
        store::RunStore::Options ro;
        ro.access = store::RunStore::Access::ReadOnly;
        {
            store::RunStore sa(a, ro);
            sameRun(dest.loadRun(2), sa.loadRun(1));
            sameRun(dest.loadRun(3), sa.loadRun(2));
        }
        QCOMPARE(store::completedPointKeys(dest.connection(), "sw"),
                 (std::unordered_set<std::string>{"k1", "k2", "k3"}));
        QCOMPARE(store::sweepAxes(dest.connection(), "sw"), (std::vector<std::string>{"policy", "seed"}));

        {
            store::Statement q(dest.connection(),
                               "SELECT source_file, source_run_id FROM run_sources WHERE run_id = 4");
            QVERIFY(q.step());
            QCOMPARE(q.columnText(0), std::filesystem::absolute(b).lexically_normal().string());
            QCOMPARE(q.columnInt(1), std::int64_t(1));
        }
        QCOMPARE(dest.connection().queryInt("SELECT count(*) FROM run_sources"), std::int64_t(4));
        // Idempotent: again, nothing is copied.
        const auto again = store::mergeRunStores(dest, {a, b, a});
        QCOMPARE(again.copied(), 0);
        QCOMPARE(again.alreadyPresent(), 6);
        QCOMPARE(dest.listRuns().size(), std::size_t(5));
        // Merged on, a run keeps the file it was first stored in; and what was merged is not merged twice.
        store::RunStore dest2(out2);
        QCOMPARE(store::mergeRunStores(dest2, {out}).copied(), 5);
        QCOMPARE(store::mergeRunStores(dest2, {a}).copied(), 0);
        store::Statement q(dest2.connection(), "SELECT source_file FROM run_sources r JOIN runs ON runs.id = r.run_id "
                                               "WHERE runs.policy = 'edf'");
        QVERIFY(q.step());
        QCOMPARE(q.columnText(0), std::filesystem::absolute(b).lexically_normal().string());
        QCOMPARE(dest2.integrityCheck(), std::string("ok"));
    }

    void mergeRefusesForeignNewerAndSelf()
    {
        const auto good = path("good.sqlite"), out = path("refuse-out.sqlite");
        {
            store::RunStore s(good);
            s.storeRun(test::twoNodeRunInfo("s", "{}", "fifo", 1), fullRun("fifo", 1));
        }
        const auto foreign = path("foreign.sqlite");
        {
            store::Connection c(foreign, store::Connection::Mode::ReadWriteCreate);
            c.exec("CREATE TABLE t (x); PRAGMA application_id = 42");
        }
        const auto newer = path("newer.sqlite");
        {
            store::RunStore s(newer);
        }
        {
            store::Connection c(newer, store::Connection::Mode::ReadWrite);
            c.exec(fmt::format("PRAGMA user_version = {}", store::schemaVersion() + 1));
        }
        const auto text = path("notes.txt");
        std::ofstream(text) << "not a database, but long enough to have a header of a hundred bytes or more, which "
                               "an SQLite file would have at its start.";
        store::RunStore dest(out);
        const std::vector<std::pair<std::string, std::string>> cases = {
            {foreign, "not an Orrery database (an SQLite database of another application)"},
            {newer, "written by a newer Orrery"},
            {text, "not an Orrery database (not an SQLite file)"},
            {out, "is the destination of the merge"},
            {path("missing.sqlite"), "no such run store"},
        };
        for (const auto& c : cases) {
            // Not a structured binding: clang 14 (the sanitizer build) cannot capture one in a lambda.
            const std::string& bad = c.first;
            const std::string& want = c.second;
            const std::string err = test::errorOf([&] { store::mergeRunStores(dest, {good, bad}); });
            QVERIFY2(err.find(bad) == 0 && err.find(want) != std::string::npos, err.c_str());
            QCOMPARE(dest.listRuns().size(), std::size_t(0)); // the good one was not merged either
        }
    }

    void aFailedMergeLeavesTheDestinationAsItWas()
    {
        const auto a = path("ok1.sqlite"), b = path("ok2.sqlite"), out = path("atomic.sqlite");
        {
            store::RunStore s(a);
            s.storeRun(test::twoNodeRunInfo("s", "{}", "fifo", 1), fullRun("fifo", 1));
        }
        {
            store::RunStore s(b);
            s.storeRun(test::twoNodeRunInfo("s", "{}", "boom", 1), fullRun("boom", 1));
        }
        store::RunStore dest(out);
        // A write that fails half-way through (as a full disk would): the destination refuses the second source's run.
        dest.connection().exec("CREATE TRIGGER no_boom BEFORE INSERT ON runs WHEN NEW.policy = 'boom' "
                               "BEGIN SELECT RAISE(ABORT, 'no room'); END");
        QVERIFY(test::errorOf([&] { store::mergeRunStores(dest, {a, b}); }) != "(no error)");
        QCOMPARE(dest.connection().queryInt("SELECT count(*) FROM runs"), std::int64_t(0));
        QCOMPARE(dest.connection().queryInt("SELECT count(*) FROM scenarios"), std::int64_t(0));
        QCOMPARE(dest.connection().queryInt("SELECT count(*) FROM job_chunks"), std::int64_t(0));
        dest.connection().exec("DROP TRIGGER no_boom");
        QCOMPARE(store::mergeRunStores(dest, {a, b}).copied(), 2);
    }

    void runsOfDeadWritersArriveInterruptedLiveOnesWait()
    {
        const auto src = path("writers.sqlite"), out = path("writers-out.sqlite");
        const auto me = store::ProcessIdentity::current();
        {
            store::RunStore s(src);
            s.storeRun(test::twoNodeRunInfo("s", "{}", "fifo", 1), fullRun("fifo", 1));
            s.connection().exec(fmt::format(
                "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, writer_pid, "
                "writer_start_ticks, writer_host, total_gpus, uid) VALUES "
                "(1, 'dead', 1, 'x', 't', 'running', 2147483000, 1, '{0}', 6, 'dead0000000000000000000000000000'), "
                "(1, 'live', 1, 'x', 't', 'running', {1}, {2}, '{0}', 6, 'live0000000000000000000000000000')",
                me.host, me.pid, me.startTicks));
        }
        store::RunStore dest(out);
        const auto report = store::mergeRunStores(dest, {src});
        QCOMPARE(report.copied(), 2);
        QCOMPARE(report.stillRunning(), 1);
        const auto runs = dest.listRuns();
        QCOMPARE(runs.size(), std::size_t(2));
        QCOMPARE(runs[1].policy, std::string("dead"));
        QCOMPARE(int(runs[1].status), int(store::RunStatus::Failed));
        QCOMPARE(runs[1].error, std::string("interrupted"));
    }

private:
};

QTEST_GUILESS_MAIN(TestStoreSweeps)
#include "test_store_sweeps.moc"
