// The orrery_sqlite extension: loaded into a plain SQLite connection (C, the sqlite3 shell, Python), every
// virtual table read back against the stored runs, filters, joins and ordering, damaged chunks and foreign
// databases reported, read-only.
#include "sqlite_client.h"

using namespace orrery;
using namespace orrery::test::sqlitetest;

class TestSqliteExtension : public orrery::test::TempDirTest
{
    Q_OBJECT

    std::string m_path;
    std::vector<std::int64_t> m_runs;
    std::map<std::int64_t, store::StoredRun> m_stored;

    /** A copy of the store to damage. */
    std::string copyOfStore(const std::string& name) const
    {
        const std::string p = path(name);
        std::filesystem::copy_file(m_path, p, std::filesystem::copy_options::overwrite_existing);
        return p;
    }

    std::vector<Row> expectedJobs(std::int64_t run) const
    {
        std::vector<Row> out;
        const auto& jobs = m_stored.at(run).result.jobs;
        for (std::size_t i = 0; i < jobs.size(); ++i)
            out.push_back(jobRow(run, i, jobs[i]));
        return out;
    }

    template <typename Record, typename MakeRow>
    std::vector<Row> expectedSeries(std::int64_t run, std::vector<Record> sim::RunResult::*series,
                                    MakeRow makeRow) const
    {
        std::vector<Row> out;
        const auto& records = m_stored.at(run).result.*series;
        for (std::size_t i = 0; i < records.size(); ++i)
            out.push_back(makeRow(run, i, records[i]));
        return out;
    }

    std::vector<Row> expectedIntervals(std::int64_t run) const
    {
        return expectedSeries(run, &sim::RunResult::intervals, intervalRow);
    }
    std::vector<Row> expectedUtilization(std::int64_t run) const
    {
        return expectedSeries(run, &sim::RunResult::utilization, utilizationRow);
    }
    std::vector<Row> expectedDecisions(std::int64_t run) const
    {
        return expectedSeries(run, &sim::RunResult::decisions, decisionRow);
    }
    std::vector<Row> expectedEvents(std::int64_t run) const
    {
        return expectedSeries(run, &sim::RunResult::jobEvents, eventRow);
    }
    std::vector<Row> expectedSegments(std::int64_t run) const
    {
        return expectedSeries(run, &sim::RunResult::rateSegments, segmentRow);
    }

    /** The error of `sql` on a copy of the store damaged by `damage` (SQL with ?1 bound to `blob`). */
    std::string errorAfterDamage(const std::string& damage, const std::string& sql, const std::string& blob = {})
    {
        const std::string p = copyOfStore("damaged.sqlite");
        Db db(p);
        if (!blob.empty()) {
            sqlite3_stmt* stmt = nullptr;
            if (sqlite3_prepare_v2(db.handle(), damage.c_str(), -1, &stmt, nullptr) != SQLITE_OK)
                throw std::runtime_error(damage + ": " + sqlite3_errmsg(db.handle()));
            sqlite3_bind_blob(stmt, 1, blob.data(), static_cast<int>(blob.size()), SQLITE_TRANSIENT);
            const int rc = sqlite3_step(stmt);
            sqlite3_finalize(stmt);
            if (rc != SQLITE_DONE)
                throw std::runtime_error(damage + ": " + sqlite3_errmsg(db.handle()));
        } else {
            db.exec(damage);
        }
        if (const auto error = db.load(); !error.empty())
            throw std::runtime_error(error);
        const QueryResult r = db.query(sql);
        if (r.error.empty())
            return "no error, " + std::to_string(r.rows.size()) + " rows";
        return r.error;
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_path = path("runs.sqlite");
        {
            store::RunStore s(m_path);
            // 1: synthetic, several chunks of everything; 2: a real simulation; 3: a small synthetic run.
            m_runs.push_back(storeIncrementally(s, syntheticInfo("fifo"), syntheticRun(9000)));

            const io::Scenario scenario = io::defaultScenario();
            const sim::PreparedWorkload workload = sim::prepareScenario(scenario);
            store::RunInfo info;
            info.scenarioName = scenario.name;
            info.scenarioJson = io::scenarioToJson(scenario).dump();
            info.policy = "sjf";
            info.seed = scenario.options.seed;
            store::setClusterOf(info, workload.cluster());
            const auto runs = sched::runPolicies(workload, {"sjf"}, scenario.options.seed);
            m_runs.push_back(s.storeRun(info, runs.at(0)));

            auto small = syntheticRun(40);
            small.policy = "las";
            m_runs.push_back(s.storeRun(syntheticInfo("las"), small));
            for (const auto id : m_runs)
                m_stored.emplace(id, s.loadRun(id));
        }
        const auto& big = m_stored.at(m_runs[0]).result;
        QVERIFY(big.jobs.size() > 2 * store::kChunkRows);
        QVERIFY(big.intervals.size() > 2 * store::kChunkRows);
        QVERIFY(big.utilization.size() > store::kChunkRows);
        QVERIFY(big.decisions.size() > store::kChunkRows);
        QVERIFY(big.jobEvents.size() > store::kChunkRows);
        QVERIFY(!m_stored.at(m_runs[1]).result.intervals.empty());
    }

    void loadsThroughEitherEntryPoint()
    {
        for (const char* entry :
             {static_cast<const char*>(nullptr), "sqlite3_orrerysqlite_init", "sqlite3_extension_init"}) {
            Db db(m_path, SQLITE_OPEN_READONLY);
            QCOMPARE(db.load(entry), std::string());
            QCOMPARE(db.integer("SELECT count(*) FROM decisions WHERE run_id = ?1", {integer(m_runs[2])}),
                     static_cast<std::int64_t>(m_stored.at(m_runs[2]).result.decisions.size()));
        }
    }

    /** The documented Python route (docs/database.md): the standard sqlite3 module loads it, as Debian's python3 can.
     */
    void loadsFromPython()
    {
#ifdef ORRERY_TEST_ASAN
        QSKIP("a sanitizer build's module needs the sanitizer runtime, which python3 does not load");
#endif
        const char* script = R"PY(
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
if not hasattr(con, "enable_load_extension"):
    print("no-extension-loading")
    sys.exit(0)
con.enable_load_extension(True)
con.load_extension(sys.argv[2])
run = int(sys.argv[3])
n, finished, jct = con.execute("SELECT count(*), count(end_s), sum(jct_s) FROM jobs WHERE run_id = ?", (run,)).fetchone()
print(n, finished, repr(jct))
)PY";
        const auto r =
            test::runCommand({"python3", "-c", script, m_path, ORRERY_SQLITE_MODULE, std::to_string(m_runs[0])});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const std::string out = QString::fromStdString(r.out).trimmed().toStdString();
        if (out == "no-extension-loading")
            QSKIP("this python3's sqlite3 module was built without loadable extensions (scripts/orrery_db.py is "
                  "the route there)");
        const auto& jobs = m_stored.at(m_runs[0]).result.jobs;
        double jct = 0;
        std::size_t finished = 0;
        for (const auto& j : jobs) {
            if (j.finished()) {
                jct += j.jctS();
                ++finished;
            }
        }
        std::istringstream in(out);
        std::size_t gotJobs = 0, gotFinished = 0;
        double gotJct = 0;
        QVERIFY2(static_cast<bool>(in >> gotJobs >> gotFinished >> gotJct), out.c_str());
        QCOMPARE(gotJobs, jobs.size());
        QCOMPARE(gotFinished, finished);
        // SQLite adds in storage order, the loop above in job order: equal up to rounding.
        QVERIFY2(std::abs(gotJct - jct) <= 1e-9 * std::abs(jct), out.c_str());
    }

    /** scripts/orrery_db.py, the standard-library route, reads the event chunks as the store does. */
    void stdlibReaderReadsEvents()
    {
        const char* script = R"PY(
import sqlite3, sys
sys.path.insert(0, sys.argv[1])
import orrery_db
ev = orrery_db.job_events(sqlite3.connect(sys.argv[2]), int(sys.argv[3]))
print(len(ev), sum(1 for e in ev if e['kind'] == 'drop'), ev[4100]['job_index'], '%.17g' % ev[4100]['time_s'],
      ev[4100]['kind'], '[%s]' % ev[4102]['detail'], '[%s]' % ev[4103]['detail'])
)PY";
        const auto r =
            test::runCommand({"python3", "-c", script, test::sourcePath("scripts"), m_path, std::to_string(m_runs[0])});
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const auto& events = m_stored.at(m_runs[0]).result.jobEvents;
        const auto drops = std::count_if(events.begin(), events.end(),
                                         [](const sim::JobEvent& e) { return e.kind == sim::JobEventKind::Drop; });
        const auto& e = events.at(4100);
        std::ostringstream want;
        want << events.size() << " " << drops << " " << e.job << " " << fmt::format("{:.17g}", e.timeS) << " "
             << sim::toString(e.kind) << " [" << events.at(4102).detail << "] [" << events.at(4103).detail << "]\n";
        QCOMPARE(r.out, want.str());
    }

    void everyColumnOfEveryRecordOfEachRun()
    {
        Db db(m_path, SQLITE_OPEN_READONLY);
        QCOMPARE(db.load(), std::string());
        for (const auto run : m_runs) {
            // Jobs come in the order they were written (as they finished); job_index orders them.
            COMPARE_ROWS(db.rows("SELECT * FROM jobs WHERE run_id = ?1 ORDER BY job_index", {integer(run)}),
                         expectedJobs(run));
            COMPARE_ROWS(db.rows("SELECT * FROM intervals WHERE run_id = ?1", {integer(run)}), expectedIntervals(run));
            COMPARE_ROWS(db.rows("SELECT * FROM utilization WHERE run_id = ?1", {integer(run)}),
                         expectedUtilization(run));
            COMPARE_ROWS(db.rows("SELECT * FROM decisions WHERE run_id = ?1", {integer(run)}), expectedDecisions(run));
            COMPARE_ROWS(db.rows("SELECT * FROM job_events WHERE run_id = ?1", {integer(run)}), expectedEvents(run));
            COMPARE_ROWS(db.rows("SELECT * FROM rate_segments WHERE run_id = ?1", {integer(run)}),
                         expectedSegments(run));
            const auto gpus = gpuRows(run, m_stored.at(run).layout);
            QVERIFY(!gpus.empty());
            COMPARE_ROWS(db.rows("SELECT * FROM gpus WHERE run_id = ?1", {integer(run)}), gpus);
            COMPARE_ROWS(db.rows("SELECT * FROM gpus WHERE run_id = ?1 AND gpu = 3", {integer(run)}),
                         std::vector<Row>{gpus.at(3)});
        }
        std::size_t allGpus = 0;
        for (const auto run : m_runs)
            allGpus += gpuRows(run, m_stored.at(run).layout).size();
        QCOMPARE(db.integer("SELECT count(*) FROM gpus"), static_cast<std::int64_t>(allGpus));
        // The real simulation records a rate segment per allocation; the segments of one job, looked up by job.
        const auto segments = expectedSegments(m_runs[1]);
        QVERIFY(segments.size() > 10);
        std::vector<Row> ofJob3;
        for (const auto& r : segments)
            if (std::get<std::int64_t>(r[2]) == 3)
                ofJob3.push_back(r);
        QVERIFY(!ofJob3.empty());
        COMPARE_ROWS(db.rows("SELECT * FROM rate_segments WHERE run_id = ?1 AND job_index = 3", {integer(m_runs[1])}),
                     ofJob3);
        std::size_t allSegments = 0;
        for (const auto run : m_runs)
            allSegments += expectedSegments(run).size();
        QVERIFY(expectedSegments(m_runs[0]).size() > store::kChunkRows);
        QCOMPARE(db.integer("SELECT count(*) FROM rate_segments"), static_cast<std::int64_t>(allSegments));
        // Looked up by job, as a join with jobs asks: the events of job 7 of the big run, in event order.
        std::vector<Row> ofJob7;
        for (const auto& r : expectedEvents(m_runs[0]))
            if (std::get<std::int64_t>(r[2]) == 7)
                ofJob7.push_back(r);
        QVERIFY(ofJob7.size() > 1);
        COMPARE_ROWS(db.rows("SELECT * FROM job_events WHERE run_id = ?1 AND job_index = 7", {integer(m_runs[0])}),
                     ofJob7);
        COMPARE_ROWS(db.rows("SELECT * FROM job_events WHERE run_id = ?1 AND event_index = 4100", {integer(m_runs[0])}),
                     std::vector<Row>{expectedEvents(m_runs[0]).at(4100)});
        // The big run's jobs really are stored out of job_index order.
        const auto order = db.rows("SELECT job_index FROM jobs WHERE run_id = ?1", {integer(m_runs[0])});
        QVERIFY(!std::is_sorted(order.begin(), order.end()));
    }

    void withoutRunIdEveryRunInRunIdOrder()
    {
        Db db(m_path, SQLITE_OPEN_READONLY);
        QCOMPARE(db.load(), std::string());
        std::vector<Row> intervals, utilization, decisions, jobs, events;
        for (const auto run : m_runs) {
            for (auto& r : expectedEvents(run))
                events.push_back(std::move(r));
            for (auto& r : expectedIntervals(run))
                intervals.push_back(std::move(r));
            for (auto& r : expectedUtilization(run))
                utilization.push_back(std::move(r));
            for (auto& r : expectedDecisions(run))
                decisions.push_back(std::move(r));
            for (auto& r : expectedJobs(run))
                jobs.push_back(std::move(r));
        }
        COMPARE_ROWS(db.rows("SELECT * FROM intervals"), intervals);
        COMPARE_ROWS(db.rows("SELECT * FROM utilization"), utilization);
        COMPARE_ROWS(db.rows("SELECT * FROM decisions"), decisions);
        COMPARE_ROWS(db.rows("SELECT * FROM job_events"), events);
        COMPARE_ROWS(db.rows("SELECT * FROM jobs ORDER BY run_id, job_index"), jobs);
        // Column names are those of the old plain tables.
        QVERIFY(db.query("SELECT run_id, job_index, job_id, model, user, arrival_s, start_s, end_s, gpus, gpu_type, "
                         "restarts, gpu_seconds, cost_usd, ideal_s, nodes, demand, excluded_from_average, queue_s, "
                         "jct_s FROM jobs LIMIT 1")
                    .error.empty());
    }

    void runIdFilterTakesAnyValueThatEqualsTheId()
    {
        Db db(m_path, SQLITE_OPEN_READONLY);
        QCOMPARE(db.load(), std::string());
        const auto run = m_runs[1];
        const auto n = static_cast<std::int64_t>(m_stored.at(run).result.intervals.size());
        QCOMPARE(db.integer("SELECT count(*) FROM intervals WHERE run_id = ?1", {integer(run)}), n);
        QCOMPARE(db.integer("SELECT count(*) FROM intervals WHERE run_id = ?1", {static_cast<double>(run)}), n);
        QCOMPARE(db.integer("SELECT count(*) FROM intervals WHERE run_id = ?1", {text(std::to_string(run))}), n);
        QCOMPARE(db.integer("SELECT count(*) FROM intervals WHERE run_id = ?1", {run + 0.5}), std::int64_t{0});
        QCOMPARE(db.integer("SELECT count(*) FROM intervals WHERE run_id = 999"), std::int64_t{0});
        QCOMPARE(db.integer("SELECT count(*) FROM intervals WHERE run_id = NULL"), std::int64_t{0});
        QCOMPARE(
            db.integer("SELECT count(*) FROM jobs WHERE run_id IN (?1, ?2)", {integer(m_runs[2]), integer(run)}),
            static_cast<std::int64_t>(m_stored.at(run).result.jobs.size() + m_stored.at(m_runs[2]).result.jobs.size()));
        // The planner is told that run_id = ? reads one run.
        const auto plan = db.rows("EXPLAIN QUERY PLAN SELECT * FROM jobs WHERE run_id = 2");
        QCOMPARE(std::get<std::string>(plan.at(0).at(3)), std::string("SCAN jobs VIRTUAL TABLE INDEX 1:"));
    }

    void lookupsByKeyColumns()
    {
        Db db(m_path, SQLITE_OPEN_READONLY);
        QCOMPARE(db.load(), std::string());
        const auto run = m_runs[0];
        const auto jobs = expectedJobs(run);
        for (const std::int64_t job : {0, 3, 57, 4095, 4096, 5000, 8999}) {
            const auto at = static_cast<std::size_t>(job);
            COMPARE_ROWS(db.rows("SELECT * FROM jobs WHERE run_id = ?1 AND job_index = ?2", {integer(run), job}),
                         std::vector<Row>{jobs[at]});
            // A value that is no exact integer goes through SQLite's own comparison.
            COMPARE_ROWS(db.rows("SELECT * FROM jobs WHERE run_id = ?1 AND job_index = ?2",
                                 {integer(run), text(std::to_string(job))}),
                         std::vector<Row>{jobs[at]});
            COMPARE_ROWS(db.rows("SELECT * FROM jobs WHERE run_id = ?1 AND job_index = ?2",
                                 {integer(run), static_cast<double>(job)}),
                         std::vector<Row>{jobs[at]});
        }
        for (const Value& missing : {Value{std::int64_t{-1}}, Value{std::int64_t{9000}}, Value{0.5}, Value{text("x")}})
            QVERIFY(
                db.rows("SELECT * FROM jobs WHERE run_id = ?1 AND job_index = ?2", {integer(run), missing}).empty());

        const auto intervals = expectedIntervals(run);
        for (const std::int64_t i : {std::int64_t{0}, std::int64_t{4095}, std::int64_t{4096}, std::int64_t{8191},
                                     std::int64_t{8192}, static_cast<std::int64_t>(intervals.size()) - 1})
            COMPARE_ROWS(
                db.rows("SELECT * FROM intervals WHERE run_id = ?1 AND interval_index = ?2", {integer(run), i}),
                std::vector<Row>{intervals[static_cast<std::size_t>(i)]});
        QVERIFY(db.rows("SELECT * FROM intervals WHERE run_id = ?1 AND interval_index = ?2",
                        {integer(run), static_cast<std::int64_t>(intervals.size())})
                    .empty());
        // Non-unique keys: every record with the value, in record order.
        for (const int gpu : {0, 5}) {
            std::vector<Row> want;
            for (const auto& r : intervals) {
                if (std::get<std::int64_t>(r[3]) == gpu)
                    want.push_back(r);
            }
            COMPARE_ROWS(
                db.rows("SELECT * FROM intervals WHERE run_id = ?1 AND gpu = ?2", {integer(run), integer(gpu)}), want);
        }
        std::vector<Row> ofJob5;
        for (const auto& r : intervals) {
            if (std::get<std::int64_t>(r[2]) == 5)
                ofJob5.push_back(r);
        }
        QCOMPARE(ofJob5.size(), std::size_t{2});
        COMPARE_ROWS(db.rows("SELECT * FROM intervals WHERE run_id = ?1 AND job_index = 5", {integer(run)}), ofJob5);

        const auto decisions = expectedDecisions(run);
        COMPARE_ROWS(db.rows("SELECT * FROM decisions WHERE run_id = ?1 AND decision_index = 4100", {integer(run)}),
                     std::vector<Row>{decisions.at(4100)});
        const auto samples = expectedUtilization(run);
        COMPARE_ROWS(db.rows("SELECT * FROM utilization WHERE run_id = ?1 AND sample_index = 4097", {integer(run)}),
                     std::vector<Row>{samples.at(4097)});
    }

    void joinsWithRunsAndBetweenTables()
    {
        Db db(m_path, SQLITE_OPEN_READONLY);
        QCOMPARE(db.load(), std::string());
        // The query of the old plain table, unchanged.
        const auto byPolicy = db.rows("SELECT r.policy, avg(j.jct_s), count(j.jct_s), count(*) FROM jobs j "
                                      "JOIN runs r ON r.id = j.run_id GROUP BY r.policy ORDER BY r.policy");
        QCOMPARE(byPolicy.size(), std::size_t{3});
        std::map<std::string, std::int64_t> runOf;
        for (const auto& [id, stored] : m_stored)
            runOf[stored.record.policy] = id;
        for (const auto& row : byPolicy) {
            const auto& jobs = m_stored.at(runOf.at(std::get<std::string>(row[0]))).result.jobs;
            double sum = 0;
            std::int64_t finished = 0;
            for (const auto& j : jobs) {
                if (j.endS >= 0) {
                    sum += j.jctS();
                    ++finished;
                }
            }
            QCOMPARE(std::get<std::int64_t>(row[2]), finished);
            QCOMPARE(std::get<std::int64_t>(row[3]), static_cast<std::int64_t>(jobs.size()));
            const double avg = std::get<double>(row[1]);
            QVERIFY2(std::abs(avg - sum / static_cast<double>(finished)) <= 1e-9 * std::abs(avg),
                     std::get<std::string>(row[0]).c_str());
        }
        // Joined with runs, each run's chunks are read through its run_id, not scanned once per run.
        const auto plan = db.rows("EXPLAIN QUERY PLAN SELECT r.policy, avg(j.jct_s) FROM jobs j JOIN runs r "
                                  "ON r.id = j.run_id GROUP BY r.policy");
        bool lookup = false;
        for (const auto& step : plan)
            lookup = lookup || std::get<std::string>(step.at(3)) == "SCAN j VIRTUAL TABLE INDEX 1:";
        QVERIFY(lookup);

        // Intervals with their job (a lookup by run_id and job_index) and their GPU's node.
        for (const auto run : m_runs) {
            const auto& r = m_stored.at(run);
            std::map<std::string, double> gpuSecondsByModel;
            for (const auto& iv : r.result.intervals)
                gpuSecondsByModel[r.result.jobs.at(static_cast<std::size_t>(iv.job)).model] += iv.endS - iv.startS;
            const auto got = db.rows(
                "SELECT j.model, sum(i.end_s - i.start_s) FROM intervals i JOIN jobs j USING (run_id, job_index) "
                "WHERE i.run_id = ?1 GROUP BY j.model ORDER BY j.model",
                {integer(run)});
            QCOMPARE(got.size(), gpuSecondsByModel.size());
            for (const auto& row : got) {
                const double want = gpuSecondsByModel.at(std::get<std::string>(row[0]));
                QVERIFY(std::abs(std::get<double>(row[1]) - want) <= 1e-9 * want);
            }
            std::map<std::string, std::int64_t> intervalsByNode;
            for (const auto& iv : r.result.intervals)
                ++intervalsByNode[r.layout.nodeNames.at(
                    static_cast<std::size_t>(r.layout.gpuNode.at(static_cast<std::size_t>(iv.gpu))))];
            const auto nodes = db.rows("SELECT g.node, count(*) FROM intervals i JOIN gpus g USING (run_id, gpu) "
                                       "WHERE g.run_id = ?1 GROUP BY g.node ORDER BY g.node",
                                       {integer(run)});
            QCOMPARE(nodes.size(), intervalsByNode.size());
            for (const auto& row : nodes)
                QCOMPARE(std::get<std::int64_t>(row[1]), intervalsByNode.at(std::get<std::string>(row[0])));
        }
        // All runs at once, joined both ways round.
        std::int64_t all = 0;
        for (const auto& [id, stored] : m_stored)
            all += static_cast<std::int64_t>(stored.result.intervals.size());
        QCOMPARE(db.integer("SELECT count(*) FROM intervals i JOIN jobs j USING (run_id, job_index)"), all);
        QCOMPARE(db.integer("SELECT count(*) FROM jobs j JOIN intervals i USING (run_id, job_index)"), all);
        QCOMPARE(db.integer("SELECT count(*) FROM gpus g JOIN intervals i USING (run_id, gpu)"), all);
    }

    void orderByIsRightWhetherOrNotTheScanGivesIt()
    {
        Db db(m_path, SQLITE_OPEN_READONLY);
        QCOMPARE(db.load(), std::string());
        const auto run = m_runs[0];
        const auto n = static_cast<std::int64_t>(m_stored.at(run).result.decisions.size());
        const auto up =
            db.rows("SELECT decision_index FROM decisions WHERE run_id = ?1 ORDER BY decision_index", {integer(run)});
        const auto down = db.rows("SELECT decision_index FROM decisions WHERE run_id = ?1 ORDER BY decision_index DESC",
                                  {integer(run)});
        QCOMPARE(static_cast<std::int64_t>(up.size()), n);
        for (std::int64_t i = 0; i < n; ++i) {
            QCOMPARE(std::get<std::int64_t>(up[static_cast<std::size_t>(i)][0]), i);
            QCOMPARE(std::get<std::int64_t>(down[static_cast<std::size_t>(i)][0]), n - 1 - i);
        }
        // Runs from an IN list, in ORDER BY order whatever the list's.
        const auto both = db.rows("SELECT run_id, sample_index FROM utilization WHERE run_id IN (?1, ?2) "
                                  "ORDER BY run_id, sample_index",
                                  {integer(m_runs[2]), integer(m_runs[0])});
        QVERIFY(std::is_sorted(both.begin(), both.end()));
        QCOMPARE(both.size(),
                 m_stored.at(m_runs[0]).result.utilization.size() + m_stored.at(m_runs[2]).result.utilization.size());
    }

    void damagedChunksGiveAnErrorNamingTableRunAndChunk()
    {
        const std::string run = std::to_string(m_runs[0]);
        const std::string where = " WHERE run_id = " + run + " AND chunk_index = 1";
        struct Case
        {
            std::string damage, query, blob, expected;
        };
        const std::vector<Case> cases = {
            {"UPDATE job_chunks SET end_s = zeroblob(7)" + where,
             "SELECT * FROM jobs",
             {},
             "jobs: run " + run + " chunk 1 of job_chunks is damaged: column end_s holds 7 bytes, expected 32768"},
            {"UPDATE job_chunks SET labels = CAST('abc' AS BLOB)" + where,
             "SELECT count(*) FROM jobs",
             {},
             "jobs: run " + run + " chunk 1 of job_chunks is damaged: column labels does not end with a NUL byte"},
            {"UPDATE job_chunks SET model = ?1" + where, "SELECT job_id FROM jobs WHERE run_id = " + run,
             blobOfInt32(std::vector<std::int32_t>(store::kChunkRows, 100000)),
             "jobs: run " + run +
                 " chunk 1 of job_chunks is damaged: column model of record 0 is label 100000, but "
                 "the chunk has "},
            {"UPDATE job_chunks SET gpu_type = ?1" + where, "SELECT * FROM jobs WHERE run_id = " + run,
             blobOfInt32(std::vector<std::int32_t>(store::kChunkRows, -1)),
             "jobs: run " + run + " chunk 1 of job_chunks is damaged: column gpu_type of record 0 is label -1"},
            {"UPDATE job_chunks SET job_index = ?1" + where,
             "SELECT * FROM jobs WHERE run_id = " + run + " AND job_index = 1",
             blobOfInt32(std::vector<std::int32_t>(store::kChunkRows, 1)),
             "jobs: run " + run + " chunk 1 of job_chunks is damaged: job_index 1 is stored twice"},
            {"UPDATE job_chunks SET job_index = ?1" + where, "SELECT * FROM jobs",
             blobOfInt32(std::vector<std::int32_t>(store::kChunkRows, -5)),
             "jobs: run " + run + " chunk 1 of job_chunks is damaged: record 0: job_index -5 is out of range"},
            {"UPDATE job_chunks SET records = 5000" + where,
             "SELECT * FROM jobs",
             {},
             "jobs: run " + run + " chunk 1 of job_chunks is damaged: starts at record 4096 with 5000 records"},
            {"UPDATE job_chunks SET records = -1" + where,
             "SELECT * FROM jobs WHERE run_id = " + run + " AND job_index = 7",
             {},
             "jobs: run " + run + " chunk 1 of job_chunks is damaged: starts at record 4096 with -1 records"},
            {"DELETE FROM interval_chunks" + where,
             "SELECT * FROM intervals",
             {},
             "intervals: run " + run + " chunk 2 of interval_chunks is damaged: starts at record 8192 with " +
                 std::to_string(m_stored.at(m_runs[0]).result.intervals.size() - 8192) +
                 " records, expected a chunk starting at record 4096"},
            {"UPDATE interval_chunks SET first_record = 4095" + where,
             "SELECT * FROM intervals WHERE run_id = " + run + " AND interval_index = 5000",
             {},
             "intervals: run " + run + " chunk 1 of interval_chunks is damaged: starts at record 4095"},
            {"UPDATE interval_chunks SET gpu = zeroblob(16384 + 4)" + where,
             "SELECT * FROM gpus g JOIN intervals i USING (run_id, gpu)",
             {},
             "intervals: run " + run +
                 " chunk 1 of interval_chunks is damaged: column gpu holds 16388 bytes, "
                 "expected 16384"},
            {"UPDATE utilization_chunks SET gpu_types = -1" + where,
             "SELECT * FROM utilization",
             {},
             "utilization: run " + run + " chunk 1 of utilization_chunks is damaged: gpu_types is -1"},
            {"UPDATE utilization_chunks SET gpu_types = 3" + where,
             "SELECT busy_by_type FROM utilization",
             {},
             "utilization: run " + run + " chunk 1 of utilization_chunks is damaged: column busy_by_type holds"},
            {"UPDATE utilization_chunks SET gpu_types = 4611686018427387904" + where,
             "SELECT * FROM utilization",
             {},
             "utilization: run " + run + " chunk 1 of utilization_chunks is damaged: gpu_types is 4611686018427387904"},
            {"UPDATE decision_chunks SET running = zeroblob(0)" + where,
             "SELECT sum(running) FROM decisions",
             {},
             "decisions: run " + run + " chunk 1 of decision_chunks is damaged: column running holds 0 bytes"},
            {"UPDATE decision_chunks SET records = 4611686018427387904" + where,
             "SELECT count(*) FROM decisions",
             {},
             "decisions: run " + run +
                 " chunk 1 of decision_chunks is damaged: starts at record 4096 with "
                 "4611686018427387904 records"},
            {"UPDATE event_chunks SET kind = ?1" + where, "SELECT kind FROM job_events",
             blobOfInt32(
                 std::vector<std::int32_t>(m_stored.at(m_runs[0]).result.jobEvents.size() - store::kChunkRows, 99)),
             "job_events: run " + run + " chunk 1 of event_chunks is damaged: column kind of record 0 is label 99"},
            {"UPDATE gpu_chunks SET node = zeroblob(12) WHERE run_id = " + run,
             "SELECT node FROM gpus",
             {},
             "gpus: run " + run + " chunk 0 of gpu_chunks is damaged: column node holds 12 bytes, expected " +
                 std::to_string(4 * m_stored.at(m_runs[0]).layout.gpuCount())},
            {"UPDATE gpu_chunks SET gpu_type = ?1 WHERE run_id = " + run,
             "SELECT * FROM gpus WHERE run_id = " + run + " AND gpu = 1",
             blobOfInt32(
                 std::vector<std::int32_t>(static_cast<std::size_t>(m_stored.at(m_runs[0]).layout.gpuCount()), 77)),
             "gpus: run " + run + " chunk 0 of gpu_chunks is damaged: column gpu_type of record 0 is label 77"},
            {"UPDATE event_chunks SET time_s = zeroblob(8)" + where,
             "SELECT * FROM job_events WHERE job_index = 2",
             {},
             "job_events: run " + run + " chunk 1 of event_chunks is damaged: column time_s holds 8 bytes"},
        };
        for (const auto& c : cases) {
            const std::string error = errorAfterDamage(c.damage, c.query, c.blob);
            QVERIFY2(error.rfind(c.expected, 0) == 0, (c.damage + "\n  gave: " + error).c_str());
        }
    }

    void otherDatabasesGiveAnErrorSayingWhatIsMissing()
    {
        const std::string p = path("not-orrery.sqlite");
        {
            Db db(p, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
            db.exec("CREATE TABLE interval_chunks (run_id INTEGER, chunk_index INTEGER)");
        }
        Db db(p, SQLITE_OPEN_READONLY);
        QCOMPARE(db.load(), std::string());
        for (const auto& [table, version] : std::vector<std::pair<std::string, int>>{
                 {"jobs", 4}, {"utilization", 3}, {"decisions", 3}, {"job_events", 6}, {"gpus", 11}}) {
            const auto chunks = table == "jobs"          ? "job_chunks"
                                : table == "utilization" ? "utilization_chunks"
                                : table == "job_events"  ? "event_chunks"
                                : table == "gpus"        ? "gpu_chunks"
                                                         : "decision_chunks";
            for (const std::string where : {"", " WHERE run_id = 1", " WHERE run_id = 1 AND rowid = 2"}) {
                const auto r = db.query("SELECT * FROM " + table + where);
                QCOMPARE(r.error, table + ": this database has no " + chunks + " table; " + table +
                                      " reads an Orrery run store of schema version " + std::to_string(version) +
                                      " or later");
            }
        }
        // A table of that name without the chunk columns: SQLite's own message, after the table's name.
        const auto r = db.query("SELECT * FROM intervals");
        QVERIFY2(r.error.rfind("intervals: cannot read interval_chunks: no such column", 0) == 0, r.error.c_str());
    }

    void readOnlyAndEponymousOnly()
    {
        const std::string p = copyOfStore("read-only-check.sqlite");
        const std::string before = readBytes(p);
        {
            Db db(p);
            QCOMPARE(db.load(), std::string());
            for (const std::string sql : {"INSERT INTO jobs (run_id, job_index) VALUES (1, 1)",
                                          "DELETE FROM intervals WHERE run_id = 1", "UPDATE decisions SET queued = 0",
                                          "CREATE VIRTUAL TABLE more_jobs USING jobs", "DROP TABLE utilization"}) {
                const auto r = db.query(sql);
                QVERIFY2(!r.error.empty(), sql.c_str());
            }
            QCOMPARE(db.integer("SELECT count(*) FROM sqlite_master WHERE name IN ('jobs', 'intervals', 'more_jobs')"),
                     std::int64_t{0});
            QCOMPARE(db.integer("SELECT count(*) FROM intervals"),
                     db.integer("SELECT sum(records) FROM interval_chunks"));
        }
        QVERIFY(readBytes(p) == before);
        QCOMPARE(store::RunStore(p).integrityCheck(), std::string("ok"));
    }
};

QTEST_GUILESS_MAIN(TestSqliteExtension)
#include "test_sqlite_extension.moc"
