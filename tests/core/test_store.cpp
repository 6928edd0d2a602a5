#include "store_fixtures.h"
#include "test_support.h"

#include "hardware/gpu_layout.h"
#include "io/error.h"
#include "io/run_csv.h"
#include "io/run_json.h"
#include "store/column_chunks.h"
#include "store/run_comparison.h"
#include "store/run_store.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "util/hash.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QThread>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>

#include <unistd.h>

using namespace orrery;

namespace {

store::RunInfo info(const std::string& policy = "fifo", const std::string& scenario = "{\"name\":\"t\"}")
{
    store::RunInfo i = test::twoNodeRunInfo("t", scenario, policy, 7);
    i.optionsJson = R"({"round_s":360})";
    return i;
}

/** A store as schema `version` left it, with one scenario 'old' (id 1) and the rows `sql` inserts. */
void writeOldStore(const std::string& path, int version, const std::string& sql)
{
    store::Connection db(path, store::Connection::Mode::ReadWriteCreate);
    store::migrate(db, version);
    db.exec("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES ('old', 'x', '{}', 't');" + sql);
}

/** A small, hand-made run: 3 jobs (one unfinished), preemption on GPU 0. */
sim::RunResult smallRun(const std::string& policy = "fifo")
{
    sim::RunResult r = test::twoNodeRun(policy, 7);
    r.jobs = {{"j0", "gpt2-124m", "u1", 0, 0, 100, 2, "a100-40gb-sxm", 0, 200, 0.5, 90},
              {"j,\"1\"", "bert-large", "u2", 10, 50, 300, 1, "mixed", 1, 250, 0.7, 200},
              {"j2", "gpt2-350m", "u1", 20, -1, -1, 0, "", 0, 0, 0, 120}};
    r.intervals = {{0, 0, 0, 50}, {0, 1, 0, 100}, {1, 0, 50, 120}, {0, 0, 120, 150}, {1, 4, 150, 300}};
    r.utilization = {{0, 2, {2, 0}}, {50, 2, {2, 0}}, {150, 2, {1, 1}}, {300, 0, {0, 0}}};
    r.decisions = {{0, 1e-5, 1, 0}, {10, 2e-5, 1, 1}, {20, 3e-5, 2, 1}};
    r.makespanS = 300;
    r.wallS = 0.01;
    return r;
}

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void writeBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
}

store::RunFilter filter(std::string scenario, std::string policy, std::optional<store::RunStatus> status = {},
                        int limit = 0)
{
    store::RunFilter f;
    f.scenario = std::move(scenario);
    f.policy = std::move(policy);
    f.status = status;
    f.limit = limit;
    return f;
}

std::int64_t count(store::RunStore& s, const std::string& sql)
{
    return s.connection().queryInt(sql);
}

/** Expects RunStore(path) to throw an orrery::Error naming the file and mentioning `what`, leaving it unchanged. */
void expectRefused(const std::string& path, const std::string& what)
{
    const std::string before = readBytes(path);
    bool thrown = false;
    try {
        store::RunStore s(path);
    } catch (const Error& e) {
        thrown = true;
        QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(path));
        QVERIFY2(std::string(e.what()).find(what) != std::string::npos, e.what());
    }
    QVERIFY2(thrown, path.c_str());
    QVERIFY(readBytes(path) == before);
}

void compareRuns(const sim::RunResult& a, const sim::RunResult& b)
{
    RC_ASSERT(a.policy == b.policy);
    RC_ASSERT(a.seed == b.seed);
    RC_ASSERT(a.gpuTypes == b.gpuTypes);
    RC_ASSERT(a.gpusByType == b.gpusByType);
    RC_ASSERT(a.priceUsdPerHourByType == b.priceUsdPerHourByType);
    RC_ASSERT(a.gpuType == b.gpuType);
    RC_ASSERT(a.events == b.events);
    RC_ASSERT(a.totalGpus == b.totalGpus);
    RC_ASSERT(a.makespanS == b.makespanS);
    RC_ASSERT(a.wallS == b.wallS);
    RC_ASSERT(a.cancelled == b.cancelled);
    RC_ASSERT(a.jobs.size() == b.jobs.size());
    for (std::size_t i = 0; i < a.jobs.size(); ++i) {
        const auto& x = a.jobs[i];
        const auto& y = b.jobs[i];
        RC_ASSERT(x.id == y.id && x.model == y.model && x.user == y.user && x.gpuType == y.gpuType);
        RC_ASSERT(x.arrivalS == y.arrivalS && x.startS == y.startS && x.endS == y.endS);
        RC_ASSERT(x.gpus == y.gpus && x.restarts == y.restarts);
        RC_ASSERT(x.nodes == y.nodes && x.demand == y.demand && x.excludedFromAverage == y.excludedFromAverage);
        RC_ASSERT(x.gpuSeconds == y.gpuSeconds && x.costUsd == y.costUsd && x.idealS == y.idealS);
    }
    RC_ASSERT(a.intervals.size() == b.intervals.size());
    for (std::size_t i = 0; i < a.intervals.size(); ++i)
        RC_ASSERT(a.intervals[i].job == b.intervals[i].job && a.intervals[i].gpu == b.intervals[i].gpu &&
                  a.intervals[i].startS == b.intervals[i].startS && a.intervals[i].endS == b.intervals[i].endS);
    RC_ASSERT(a.utilization.size() == b.utilization.size());
    for (std::size_t i = 0; i < a.utilization.size(); ++i)
        RC_ASSERT(a.utilization[i].timeS == b.utilization[i].timeS &&
                  a.utilization[i].busyGpus == b.utilization[i].busyGpus &&
                  a.utilization[i].busyByType == b.utilization[i].busyByType);
    RC_ASSERT(a.decisions.size() == b.decisions.size());
    for (std::size_t i = 0; i < a.decisions.size(); ++i)
        RC_ASSERT(a.decisions[i].simTimeS == b.decisions[i].simTimeS && a.decisions[i].wallS == b.decisions[i].wallS &&
                  a.decisions[i].queued == b.decisions[i].queued && a.decisions[i].running == b.decisions[i].running);
}

rc::Gen<double> seconds()
{
    return rc::gen::map(rc::gen::inRange(0, 100000000), [](int v) { return v / 1000.0; });
}

rc::Gen<sim::RunResult> genRun()
{
    return rc::gen::exec([] {
        sim::RunResult r;
        r.policy = *rc::gen::element<std::string>("fifo", "sjf", "tiresias", "gavel");
        r.seed = *rc::gen::arbitrary<std::uint64_t>();
        r.gpuTypes = {"a100-40gb-sxm", "rtx2080ti"};
        r.gpusByType = {4, 2};
        r.priceUsdPerHourByType = {*rc::gen::arbitrary<double>(), *rc::gen::arbitrary<double>()};
        r.gpuType = {0, 0, 0, 0, 1, 1};
        r.totalGpus = 6;
        r.events = *rc::gen::arbitrary<std::uint32_t>();
        const int jobs = *rc::gen::inRange(0, 40);
        for (int i = 0; i < jobs; ++i) {
            sim::JobRecord j;
            j.id = *rc::gen::arbitrary<std::string>();
            j.model = *rc::gen::element<std::string>("gpt2-124m", "bert-large", "ResNet-50 (batch size 64)");
            j.user = *rc::gen::arbitrary<std::string>();
            j.arrivalS = *seconds();
            const int state = *rc::gen::inRange(0, 3); // 0 queued, 1 running, 2 finished
            if (state >= 1)
                j.startS = j.arrivalS + *seconds();
            if (state == 2)
                j.endS = j.startS + *seconds();
            j.gpus = *rc::gen::inRange(0, 9);
            j.gpuType = *rc::gen::element<std::string>("a100-40gb-sxm", "rtx2080ti", "mixed", "");
            j.restarts = *rc::gen::inRange(0, 5);
            j.gpuSeconds = *seconds();
            j.costUsd = *rc::gen::arbitrary<double>();
            j.idealS = *seconds();
            j.nodes = *rc::gen::inRange(0, 3);
            j.demand = *rc::gen::inRange(1, 9);
            j.excludedFromAverage = *rc::gen::arbitrary<bool>();
            r.jobs.push_back(std::move(j));
        }
        const int intervals = jobs ? *rc::gen::inRange(0, 60) : 0;
        for (int i = 0; i < intervals; ++i) {
            const double start = *seconds();
            r.intervals.push_back({*rc::gen::inRange(0, jobs), *rc::gen::inRange(0, 6), start, start + *seconds()});
        }
        const int samples = *rc::gen::inRange(0, 30);
        for (int i = 0; i < samples; ++i) {
            const int a = *rc::gen::inRange(0, 5);
            const int b = *rc::gen::inRange(0, 3);
            r.utilization.push_back({i * 10.0, a + b, {a, b}});
        }
        const int decisions = *rc::gen::inRange(0, 30);
        for (int i = 0; i < decisions; ++i)
            r.decisions.push_back(
                {*seconds(), *rc::gen::inRange(0, 1000) * 1e-6, *rc::gen::inRange(0, 50), *rc::gen::inRange(0, 50)});
        r.makespanS = *seconds();
        r.wallS = *rc::gen::inRange(0, 1000) * 1e-3;
        r.cancelled = *rc::gen::arbitrary<bool>();
        return r;
    });
}

} // namespace

class TestStore : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::string path(const std::string& name) const
    {
        return m_dir.filePath(QString::fromStdString(name)).toStdString();
    }

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
        for (const char* table :
             {"scenarios", "runs", "gpus", "job_chunks", "interval_chunks", "utilization_chunks", "decision_chunks"}) {
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

    void roundTripProperty()
    {
        const auto p = path("roundtrip.sqlite");
        store::RunStore s(p);
        ORRERY_CHECK_PROPERTY("a run reads back as it was stored", [&] {
            const sim::RunResult run = *genRun();
            const auto id = s.storeRun(info(run.policy), run);
            const auto back = s.loadRun(id);
            compareRuns(run, back.result);
            RC_ASSERT(back.layout == test::twoNodeLayout());
            RC_ASSERT(back.record.status ==
                      (run.cancelled ? store::RunStatus::Cancelled : store::RunStatus::Completed));
            RC_ASSERT(back.record.jobCount == std::optional<int>(static_cast<int>(run.jobs.size())));
        });
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void seriesSyncedInPiecesAcrossChunksReadBack()
    {
        const auto p = path("chunks.sqlite");
        store::RunStore s(p);
        ORRERY_CHECK_PROPERTY("series synced at arbitrary points, across chunk boundaries, read back whole", [&] {
            const auto n = static_cast<std::size_t>(*rc::gen::inRange(0, 3 * static_cast<int>(store::kChunkRows) + 7));
            sim::RunResult full = smallRun();
            full.jobs.clear();
            full.intervals.clear();
            full.utilization.clear();
            full.decisions.clear();
            // Jobs finish in an arbitrary order, which is the order their records are written in.
            std::vector<std::size_t> finishRank(n);
            std::iota(finishRank.begin(), finishRank.end(), std::size_t(0));
            std::mt19937 rng(*rc::gen::arbitrary<std::uint32_t>());
            std::shuffle(finishRank.begin(), finishRank.end(), rng);
            for (std::size_t i = 0; i < n; ++i) {
                sim::JobRecord j;
                j.id = fmt::format("job-{}", i);
                j.model = i % 4 ? "resnet50" : "gpt2-xl";
                j.user = fmt::format("u{}", i % 9);
                j.gpuType = i % 5 ? "v100" : "mixed";
                j.arrivalS = i * 0.25;
                j.startS = i % 29 == 0 ? -1 : i * 0.25 + 3;
                j.endS = i % 17 == 0 || j.startS < 0 ? -1 : i * 0.25 + 90.5;
                j.gpus = j.demand = 1 << (i % 3);
                j.nodes = 1 + static_cast<int>(i % 2);
                j.restarts = static_cast<int>(i % 4);
                j.gpuSeconds = i * 1.5;
                j.costUsd = i * 0.001;
                j.idealS = 80 + i % 7;
                j.excludedFromAverage = i % 13 == 0;
                full.jobs.push_back(j);
                full.intervals.push_back({static_cast<int>(i % 3), static_cast<int>(i % 6), i * 1.5, i * 1.5 + 7});
                full.utilization.push_back(
                    {i * 2.0, static_cast<int>(i % 7), {static_cast<int>(i % 5), static_cast<int>(i % 3)}});
                full.decisions.push_back({i * 0.5, i * 1e-6, static_cast<int>(i % 11), static_cast<int>(i % 13)});
            }
            auto cuts = *rc::gen::container<std::vector<std::size_t>>(rc::gen::inRange<std::size_t>(0, n + 1));
            std::sort(cuts.begin(), cuts.end());
            auto writer = s.beginRun(info(), *rc::gen::inRange(1, 20000));
            for (const std::size_t cut : cuts) {
                sim::RunResult partial = full;
                for (std::size_t i = 0; i < n; ++i) {
                    if (finishRank[i] >= cut)
                        partial.jobs[i].endS = -1; // not finished yet: its record is not final
                }
                partial.intervals.resize(cut);
                partial.utilization.resize(cut);
                partial.decisions.resize(cut);
                writer.sync(partial);
            }
            writer.finish(full, store::RunStatus::Completed);
            compareRuns(full, s.loadRun(writer.runId()).result);
            RC_ASSERT(s.connection().queryInt(fmt::format("SELECT sum(records) FROM decision_chunks WHERE run_id = {}",
                                                          writer.runId())) == static_cast<std::int64_t>(n));
            RC_ASSERT(s.connection().queryInt(fmt::format(
                          "SELECT coalesce(sum(records), 0) FROM job_chunks WHERE run_id = {}", writer.runId())) ==
                      static_cast<std::int64_t>(n));
        });
        QCOMPARE(s.integrityCheck(), std::string("ok"));
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

    void damagedJobChunkIsReportedNotMisread()
    {
        const std::pair<const char*, const char*> cases[] = {
            {"UPDATE job_chunks SET labels = x'6100'", "model refers to label 1 of 1"},
            {"UPDATE job_chunks SET labels = x'61'", "labels do not end with a NUL byte"},
            {"UPDATE job_chunks SET job_index = x'000000000000000000000000'", "job 0 is stored twice"},
            {"UPDATE job_chunks SET cost_usd = x'00'", "cost_usd holds 1 bytes, expected 24"},
            // Job indices 0, 14680064, 2: below kMaxJobIndex, but past the run's three jobs (fuzz_column_chunks).
            {"UPDATE job_chunks SET job_index = x'000000000000e00002000000'",
             "record 1: job_index 14680064 is past the run's 3 jobs"},
        };
        int n = 0;
        for (const auto& [damage, expected] : cases) {
            const auto p = path(fmt::format("damaged-jobs-{}.sqlite", n++));
            store::RunStore s(p);
            const auto id = s.storeRun(info(), smallRun());
            s.connection().exec(damage);
            try {
                s.loadRun(id);
                QFAIL(damage);
            } catch (const Error& e) {
                QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(p));
                const std::string what = e.what();
                QVERIFY2(what.find("job_chunks") != std::string::npos, e.what());
                QVERIFY2(what.find(fmt::format("run {} chunk 0", id)) != std::string::npos, e.what());
                QVERIFY2(what.find(expected) != std::string::npos, e.what());
            }
        }
    }

    void labelWithNulIsRefused()
    {
        const auto p = path("nul.sqlite");
        store::RunStore s(p);
        auto run = smallRun();
        run.jobs[0].id = std::string("a\0b", 3);
        QVERIFY_THROWS_EXCEPTION(Error, s.storeRun(info(), run));
    }

    void damagedChunkIsReportedNotMisread()
    {
        const auto p = path("damaged-chunk.sqlite");
        store::RunStore s(p);
        const auto id = s.storeRun(info(), smallRun());
        s.connection().exec("UPDATE interval_chunks SET start_s = x'0000'");
        try {
            s.loadRun(id);
            QFAIL("a damaged chunk was read");
        } catch (const Error& e) {
            QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(p));
            const std::string what = e.what();
            QVERIFY2(what.find("interval_chunks") != std::string::npos, e.what());
            QVERIFY2(what.find("start_s holds 2 bytes, expected 40") != std::string::npos, e.what());
        }
    }

    void scenariosAreSharedByContent()
    {
        store::RunStore s(path("scenarios.sqlite"));
        const auto a = s.storeScenario("a", R"({"x":1})");
        QCOMPARE(s.storeScenario("a again", R"({"x":1})"), a);
        QVERIFY(s.storeScenario("b", R"({"x":2})") != a);
        QCOMPARE(s.scenarioJson(a), std::string(R"({"x":1})"));
    }

    void listFiltersAndDelete()
    {
        store::RunStore s(path("list.sqlite"));
        const auto fifo = s.storeRun(info("fifo"), smallRun("fifo"));
        auto cancelled = smallRun("sjf");
        cancelled.cancelled = true;
        const auto sjf = s.storeRun(info("sjf"), cancelled);
        const auto other = s.storeRun(info("fifo", R"({"name":"other"})"), smallRun("fifo"));
        QCOMPARE(s.listRuns().size(), std::size_t(3));
        QCOMPARE(s.listRuns(filter("", "fifo")).size(), std::size_t(2));
        const auto c = s.listRuns(filter("", "", store::RunStatus::Cancelled));
        QCOMPARE(c.size(), std::size_t(1));
        QCOMPARE(c[0].id, sjf);
        const std::string hash = util::fnv1a64Hex(R"({"name":"other"})");
        const auto byHash = s.listRuns(filter(hash.substr(0, 6), ""));
        QCOMPARE(byHash.size(), std::size_t(1));
        QCOMPARE(byHash[0].id, other);
        QCOMPARE(s.listRuns(filter("t", "")).size(), std::size_t(3));
        QCOMPARE(s.listRuns(filter("", "", {}, 2)).size(), std::size_t(2));

        const auto r = *s.findRun(fifo);
        QCOMPARE(r.finishedJobCount.value_or(-1), 2);
        QCOMPARE(r.avgJctS.value_or(0), (100.0 + 290.0) / 2);
        QCOMPARE(r.costUsd.value_or(0), 1.2);

        QVERIFY(s.deleteRun(other));
        QVERIFY(!s.deleteRun(other));
        QVERIFY(!s.findRun(other));
        QCOMPARE(count(s, fmt::format("SELECT count(*) FROM job_chunks WHERE run_id = {}", other)), std::int64_t(0));
        QCOMPARE(count(s, fmt::format("SELECT count(*) FROM interval_chunks WHERE run_id = {}", other)),
                 std::int64_t(0));
        QCOMPARE(count(s, "SELECT count(*) FROM scenarios"), std::int64_t(1)); // the orphaned scenario went too
        QVERIFY_THROWS_EXCEPTION(Error, s.loadRun(other));
    }

    void syncsAreCommittedAsTheyHappen()
    {
        const auto p = path("batches.sqlite");
        store::RunStore s(p);
        auto writer = s.beginRun(info(), 4);
        auto run = smallRun();
        run.jobs.resize(2);    // j2 has not arrived yet
        run.jobs[1].endS = -1; // j1 still runs: its record is not final
        writer.sync(run);      // 5 intervals + 4 samples + 3 decisions + 1 finished job, in batches of 4
        store::RunStore reader(p);
        const auto committed =
            count(reader, "SELECT (SELECT sum(records) FROM interval_chunks) + (SELECT sum(records) FROM "
                          "utilization_chunks) + (SELECT sum(records) FROM decision_chunks) + "
                          "(SELECT sum(records) FROM job_chunks)");
        QCOMPARE(committed, std::int64_t(13));
        QCOMPARE(reader.findRun(writer.runId())->status, store::RunStatus::Running); // its writer is alive
        writer.finish(smallRun(), store::RunStatus::Completed);
        QCOMPARE(count(reader, "SELECT sum(records) FROM job_chunks"), std::int64_t(3));
        QCOMPARE(reader.findRun(writer.runId())->status, store::RunStatus::Completed);
        compareRuns(smallRun(), reader.loadRun(writer.runId()).result);
    }

    void reorderedIntervalsAreRewrittenAtFinish()
    {
        store::RunStore s(path("reorder.sqlite"));
        auto writer = s.beginRun(info(), 3);
        auto run = smallRun();
        writer.sync(run);
        // The simulator sorts its intervals by GPU when the run ends.
        std::stable_sort(run.intervals.begin(), run.intervals.end(),
                         [](const auto& a, const auto& b) { return a.gpu < b.gpu; });
        writer.finish(run, store::RunStatus::Completed);
        compareRuns(run, s.loadRun(writer.runId()).result);
        QCOMPARE(count(s, "SELECT sum(records) FROM interval_chunks"), std::int64_t(run.intervals.size()));
    }

    /**
     * The simulator changes its last utilisation sample in place when a later step at the same instant
     * changes the busy count; a sync between the two steps must not leave the stale value in the store
     * (a stored run would chart a dip that never happened).
     */
    void lastSampleChangedInPlaceIsRewritten()
    {
        store::RunStore s(path("last-sample.sqlite"));
        auto writer = s.beginRun(info());
        auto run = smallRun();
        QVERIFY(run.utilization.size() >= 2);
        auto& last = run.utilization.back();
        const int finalBusy = last.busyGpus;
        last.busyGpus = finalBusy + 3; // the state a sync saw before a later step at the same instant
        last.busyByType.assign(last.busyByType.size(), 1);
        writer.sync(run);
        last = smallRun().utilization.back();
        QCOMPARE(last.busyGpus, finalBusy);
        writer.sync(run); // nothing new but the changed sample
        store::RunStore reader(path("last-sample.sqlite"));
        const auto synced = reader.loadRun(writer.runId()).result.utilization;
        QCOMPARE(synced.size(), run.utilization.size());
        QCOMPARE(synced.back().busyGpus, finalBusy);
        writer.finish(run, store::RunStatus::Completed);
        compareRuns(run, s.loadRun(writer.runId()).result);
    }

    void runsOfDeadWritersAreMarkedInterrupted()
    {
        const auto p = path("interrupted.sqlite");
        std::int64_t id = 0;
        {
            store::RunStore s(p);
            auto writer = s.beginRun(info());
            id = writer.runId();
            writer.sync(smallRun());
            // Pretend a process that no longer exists wrote it (pids never reach this value on Linux).
            s.connection().exec(fmt::format("UPDATE runs SET writer_pid = 2147483000 WHERE id = {}", id));
            // Leave it as a killed process would: no finish(), no destructor clean-up. A static
            // pointer keeps it reachable, so LeakSanitizer does not count it as a leak.
            [[maybe_unused]] static store::RunWriter* abandoned = nullptr;
            abandoned = new store::RunWriter(std::move(writer));
        }
        store::RunStore s(p);
        QCOMPARE(s.recoveredRuns(), std::vector<std::int64_t>{id});
        const auto r = *s.findRun(id);
        QCOMPARE(r.status, store::RunStatus::Failed);
        QCOMPARE(r.error, std::string("interrupted"));
        QVERIFY(!r.finishedAt.empty());
        // What was committed before the interruption is kept.
        const auto back = s.loadRun(id).result;
        QCOMPARE(back.intervals.size(), std::size_t(5));
        QCOMPARE(back.jobs.size(), std::size_t(2)); // the finished ones
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void abandonedWriterMarksItsRunFailed()
    {
        store::RunStore s(path("abandoned.sqlite"));
        std::int64_t id = 0;
        {
            auto writer = s.beginRun(info());
            id = writer.runId();
            writer.sync(smallRun());
        }
        const auto r = *s.findRun(id);
        QCOMPARE(r.status, store::RunStatus::Failed);
        QVERIFY(r.error.find("before the run ended") != std::string::npos);

        auto writer = s.beginRun(info());
        writer.fail("policy threw: out of memory");
        QCOMPARE(s.findRun(writer.runId())->error, std::string("policy threw: out of memory"));
    }

    void deletingALiveRunIsRefused()
    {
        store::RunStore s(path("live.sqlite"));
        auto writer = s.beginRun(info());
        QVERIFY_THROWS_EXCEPTION(Error, s.deleteRun(writer.runId()));
        writer.finish(smallRun(), store::RunStatus::Completed);
        QVERIFY(s.deleteRun(writer.runId()));
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

    /** An interrupted run's jobs that had not finished are absent, not placeholders (empty id, arrival 0). */
    void interruptedRunReportsOnlyStoredJobs()
    {
        store::RunStore s(path("partial.sqlite"));
        auto writer = s.beginRun(info());
        sim::RunResult r = smallRun();
        r.jobs[0].endS = -1; // job 0 still running, job 1 finished, job 2 not started
        writer.sync(r);
        writer.fail("killed");
        const auto run = s.loadRun(writer.runId());
        QVERIFY(run.partial);
        QCOMPARE(run.storedJobCount(), std::size_t(1));
        QCOMPARE(run.jobStored, (std::vector<char>{0, 1}));

        const auto doc = io::storedRunToJson(run);
        QCOMPARE(doc["partial"].get<bool>(), true);
        QCOMPARE(doc["jobs"].size(), std::size_t(1));
        QCOMPARE(doc["jobs"][0]["job_index"].get<int>(), 1);
        QCOMPARE(doc["jobs"][0]["job_id"].get<std::string>(), std::string("j,\"1\""));

        std::ostringstream csv;
        io::writeJobsCsv(csv, run.result, &run.jobStored);
        const std::string text = csv.str();
        QCOMPARE(std::count(text.begin(), text.end(), '\n'), 2L); // header and job 1
        QVERIFY2(text.find("\n1,") != std::string::npos, text.c_str());

        const auto cmp = store::compareRuns(s, {writer.runId()});
        QCOMPARE(cmp.metrics[0], std::string("jobs"));
        QCOMPARE(*cmp.values[0][0], 1.0);

        // A run that ended holds all its jobs and is not partial.
        const auto done = s.loadRun(s.storeRun(info(), smallRun()));
        QVERIFY(!done.partial);
        QCOMPARE(done.storedJobCount(), std::size_t(3));
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
