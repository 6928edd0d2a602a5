// Schema version 9 (docs/database.md): each job's app in job_chunks, the migration from version 8 (runs stored
// before read as jobs without apps), and apps through the scenario reader and writer.
#include "store_fixtures.h"
#include "test_support.h"

#include "io/scenario.h"
#include "store/column_chunks.h"
#include "store/run_store.h"
#include "store/schema.h"
#include "store/sqlite.h"

#include <QTemporaryDir>

using namespace orrery;

namespace {

sim::RunResult runWithJobs(const std::string& policy, std::vector<std::string> apps)
{
    sim::RunResult r = test::twoNodeRun(policy, 3);
    r.jobs.clear();
    for (std::size_t i = 0; i < apps.size(); ++i) {
        sim::JobRecord j;
        j.id = "j" + std::to_string(i);
        j.model = "m";
        j.arrivalS = static_cast<double>(i);
        j.startS = j.arrivalS;
        j.endS = j.arrivalS + 10;
        j.gpus = 1;
        j.demand = 1;
        j.app = apps[i];
        r.jobs.push_back(std::move(j));
    }
    r.makespanS = static_cast<double>(apps.size()) + 10;
    return r;
}

} // namespace

class TestStoreApps : public QObject
{
    Q_OBJECT

private slots:
    void appsRoundTrip()
    {
        QTemporaryDir dir;
        const std::string p = dir.filePath("s.db").toStdString();
        store::RunStore s(p);
        const std::vector<std::string> apps = {"hp-1", "hp-1", "", "hp-2"};
        const auto id = s.storeRun(test::twoNodeRunInfo("t", "{}", "themis", 3), runWithJobs("themis", apps));
        const auto plain = s.storeRun(test::twoNodeRunInfo("t", "{}", "fifo", 3), runWithJobs("fifo", {"", ""}));
        const auto got = s.loadRun(id).result.jobs;
        QCOMPARE(got.size(), apps.size());
        for (std::size_t i = 0; i < apps.size(); ++i)
            QCOMPARE(got[i].app, apps[i]);
        // A run without apps stores no app column at all (NULL), as every run before version 9.
        auto& db = s.connection();
        QCOMPARE(db.queryInt(fmt::format("SELECT count(*) FROM job_chunks WHERE run_id = {} AND app IS NULL", plain)),
                 std::int64_t(1));
        QCOMPARE(db.queryInt(fmt::format("SELECT count(*) FROM job_chunks WHERE run_id = {} AND app IS NULL", id)),
                 std::int64_t(0));
        for (const auto& j : s.loadRun(plain).result.jobs)
            QVERIFY(j.app.empty());
    }

    void migratesFromVersion8()
    {
        QTemporaryDir dir;
        const std::string p = dir.filePath("old.db").toStdString();
        const auto old = runWithJobs("fifo", {"", "", ""});
        {
            store::Connection db(p, store::Connection::Mode::ReadWriteCreate);
            store::migrate(db, 8);
            db.exec("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES ('old', 'x', '{}', 't');"
                    "INSERT INTO runs (scenario_id, policy, seed, orrery_version, started_at, status, total_gpus, "
                    "job_count, finished_job_count, uid) VALUES (1, 'fifo', 1, '0.1.0', 't', 'completed', 6, 3, 3, "
                    "'00112233445566778899aabbccddeeff')");
            QCOMPARE(db.queryInt("SELECT count(*) FROM pragma_table_info('job_chunks') WHERE name = 'app'"),
                     std::int64_t(0));
            std::vector<std::uint32_t> order = {0, 1, 2};
            store::ColumnChunkWriter(db, 1).writeJobs(old.jobs, order, 0);
        }
        {
            store::RunStore::Options ro;
            ro.access = store::RunStore::Access::ReadOnly;
            const std::string err = test::errorOf([&] { store::RunStore s(p, ro); });
            QVERIFY2(err.find("schema version 8, now 11") != std::string::npos, err.c_str());
        }
        store::RunStore s(p);
        auto& db = s.connection();
        QCOMPARE(store::schemaVersion(), 11);
        QCOMPARE(db.queryInt("PRAGMA user_version"), std::int64_t(11));
        QCOMPARE(db.queryInt("SELECT count(*) FROM pragma_table_info('job_chunks') WHERE name = 'app'"),
                 std::int64_t(1));
        const auto jobs = store::readJobs(db, p, 1, 3, nullptr);
        QCOMPARE(jobs.size(), std::size_t(3));
        for (std::size_t i = 0; i < jobs.size(); ++i) {
            QCOMPARE(jobs[i].id, old.jobs[i].id);
            QCOMPARE(jobs[i].endS, old.jobs[i].endS);
            QVERIFY(jobs[i].app.empty());
        }
        // New runs with apps go into the migrated file beside the old one.
        const auto id = s.storeRun(test::twoNodeRunInfo("t", "{}", "themis", 3), runWithJobs("themis", {"a", "b"}));
        QCOMPARE(s.loadRun(id).result.jobs[1].app, std::string("b"));
    }

    void scenarioCarriesApps()
    {
        const auto s = io::parseScenarioText(
            R"({"format": "orrery-scenario", "version": 1, "cluster": {"nodes": [{"name": "a", "gpu": "v100",
            "count": 1, "gpus_per_node": 4}]}, "workload": {"jobs": [{"gpus": 1, "duration_s": 10, "app": "hp"},
            {"gpus": 1, "duration_s": 10}]}})",
            "a.json");
        QCOMPARE(s.workload.jobs[0].app, std::string("hp"));
        QVERIFY(s.workload.jobs[1].app.empty());
        const auto back = io::parseScenarioText(io::scenarioToJsonText(s), "b.json");
        QCOMPARE(back.workload.jobs[0].app, std::string("hp"));
        QVERIFY(back.workload.jobs[1].app.empty());
        const std::string err = test::errorOf([] {
            io::parseScenarioText(R"({"format": "orrery-scenario", "version": 1, "cluster": {"nodes": [{"name": "a",
                "gpu": "v100", "count": 1, "gpus_per_node": 4}]}, "workload": {"jobs": [{"gpus": 1,
                "duration_s": 10, "app": 3}]}})",
                                  "c.json");
        });
        QVERIFY2(err.find("c.json") != std::string::npos && err.find("app") != std::string::npos, err.c_str());
    }
};

QTEST_GUILESS_MAIN(TestStoreApps)
#include "test_store_apps.moc"
