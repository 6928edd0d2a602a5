#include "test_support.h"

#include "store/run_store.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace orrery;
using orrery::test::cliPath;
using orrery::test::runCommand;

namespace {

/** A run shaped like a simulator's: 3 nodes (8 + 8 + 4 GPUs), jobs run back to back on GPU blocks, some preempted. */
sim::RunResult syntheticRun(int jobs)
{
    sim::RunResult r;
    r.policy = "fifo";
    r.seed = 42;
    r.gpuTypes = {"rtx2080ti", "a100-40gb-sxm"};
    r.totalGpus = 20;
    std::vector<double> gpuFree(20, 0.0);
    for (int i = 0; i < jobs; ++i) {
        sim::JobRecord j;
        j.id = i == 3 ? "job \"3\", the odd one" : "j" + std::to_string(i);
        j.model = i % 2 ? "gpt2-124m" : "bert-large";
        j.user = "u" + std::to_string(i % 5);
        j.arrivalS = i * 30.0;
        const int width = 1 << (i % 3); // 1, 2 or 4 GPUs
        const int first = (i * 4) % 20 / width * width;
        double start = j.arrivalS;
        for (int g = first; g < first + width; ++g)
            start = std::max(start, gpuFree[static_cast<std::size_t>(g)]);
        const double dur = 100.0 + (i % 7) * 37.5;
        const bool finished = i < jobs - 2;
        j.startS = start;
        j.gpus = width;
        j.gpuType = first < 16 ? "rtx2080ti" : "a100-40gb-sxm";
        const double end = start + dur;
        for (int g = first; g < first + width; ++g) {
            if (i % 5 == 0) { // preempted once: two intervals
                r.intervals.push_back({i, g, start, start + dur / 2});
                r.intervals.push_back({i, g, start + dur / 2, end});
            } else {
                r.intervals.push_back({i, g, start, end});
            }
            gpuFree[static_cast<std::size_t>(g)] = end;
        }
        if (finished)
            j.endS = end;
        j.gpuSeconds = dur * width;
        j.costUsd = j.gpuSeconds / 3600 * 1.2;
        j.idealS = dur * 0.8;
        r.jobs.push_back(j);
        r.utilization.push_back({start, width * (i % 4), {width * (i % 4), 0}});
        r.decisions.push_back({j.arrivalS, 1e-5 * (i + 1), i % 9, i % 4});
        r.makespanS = std::max(r.makespanS, end);
    }
    return r;
}

store::RunInfo runInfo(const std::string& policy)
{
    store::RunInfo info;
    info.scenarioName = "synthetic";
    info.scenarioJson = R"({"name":"synthetic"})";
    info.policy = policy;
    info.gpuTypes = {"rtx2080ti", "a100-40gb-sxm"};
    info.layout.nodeNames = {"rtx-0", "rtx-1", "a100-0"};
    for (int g = 0; g < 20; ++g) {
        info.layout.gpuNode.push_back(g < 8 ? 0 : g < 16 ? 1 : 2);
        info.layout.gpuTypes.push_back(g < 16 ? "rtx2080ti" : "a100-40gb-sxm");
    }
    return info;
}

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/** Runs Python on `script` with `args`; returns its stdout (trimmed) or fails the test. */
std::string python(const std::string& script, const std::vector<std::string>& args)
{
    std::vector<std::string> argv = {"python3", "-c", script};
    argv.insert(argv.end(), args.begin(), args.end());
    const auto r = runCommand(argv);
    if (r.exitCode != 0)
        qWarning("python: %s", r.err.c_str());
    return QString::fromStdString(r.out).trimmed().toStdString();
}

const char* kCsvRows = R"PY(
import csv, sys
with open(sys.argv[1], newline='') as f:
    rows = list(csv.DictReader(f))
col = sys.argv[2]
print(len(rows), ','.join(sorted(rows[0].keys())) if rows else '', sum(1 for r in rows if r[col] == sys.argv[3]))
)PY";

const char* kTraceCheck = R"PY(
import json, sys, collections
doc = json.load(open(sys.argv[1]))
ev = doc['traceEvents']
slices = [e for e in ev if e['ph'] == 'X']
procs = [e for e in ev if e['ph'] == 'M' and e['name'] == 'process_name']
threads = [e for e in ev if e['ph'] == 'M' and e['name'] == 'thread_name']
tracks = collections.defaultdict(list)
for s in slices:
    assert s['dur'] > 0 and 'job' in s['args'] and 'model' in s['args'] and s['args']['policy'] == 'fifo'
    tracks[(s['pid'], s['tid'])].append((s['ts'], s['ts'] + s['dur']))
overlaps = 0
for spans in tracks.values():
    spans.sort()
    overlaps += sum(1 for a, b in zip(spans, spans[1:]) if b[0] < a[1])
named = {(t['pid'], t['tid']) for t in threads}
print(len(slices), len(procs), len(threads), overlaps, all(k in named for k in tracks))
)PY";

/** The documented stdlib reader of column chunks (scripts/orrery_db.py) against the store's own loader. */
const char* kChunkReader = R"PY(
import sqlite3, sys
sys.path.insert(0, sys.argv[1])
import orrery_db
con = sqlite3.connect(sys.argv[2])
run = int(sys.argv[3])
iv = orrery_db.intervals(con, run)
ut = orrery_db.utilization(con, run)
de = orrery_db.decisions(con, run)
jb = orrery_db.jobs(con, run)
busy = sum(r['end_s'] - r['start_s'] for r in iv)
print(len(iv), repr(busy), max(r['gpu'] for r in iv), len(ut), ut[-1]['busy_by_type'], len(de), sum(d['queued'] for d in de))
print(len(jb), repr(sum(j['jct_s'] for j in jb if j['jct_s'] is not None)), sum(1 for j in jb if j['end_s'] is None),
      repr(sum(j['cost_usd'] for j in jb)), jb[3]['job_id'], jb[7]['model'], jb[9]['user'], jb[119]['gpu_type'])
print(" ".join("%d:%d:%s:%s" % (g['gpu'], g['node_index'], g['node'], g['gpu_type']) for g in orrery_db.gpus(con, run)))
)PY";

} // namespace

class TestCliRuns : public orrery::test::TempDirTest
{
    Q_OBJECT
private:
    std::string m_db;
    std::int64_t m_fifo = 0, m_sjf = 0;
    std::size_t m_intervals = 0;

private slots:
    void initTestCase()
    {
        m_db = path("runs.sqlite");
        store::RunStore s(m_db);
        const auto run = syntheticRun(120);
        m_intervals = run.intervals.size();
        m_fifo = s.storeRun(runInfo("fifo"), run);
        auto sjf = syntheticRun(60);
        sjf.policy = "sjf";
        sjf.cancelled = true;
        m_sjf = s.storeRun(runInfo("sjf"), sjf);
    }

    void listAsJson()
    {
        const auto r = runCommand({cliPath(), "runs", "list", "--db", m_db, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto runs = nlohmann::json::parse(r.out)["runs"];
        QCOMPARE(runs.size(), std::size_t(2));
        for (const char* key : {"id", "policy", "status", "scenario", "started", "avg_jct_s"})
            QVERIFY2(runs[0].contains(key), key);
        QCOMPARE(runs[0]["policy"].get<std::string>(), std::string("fifo"));
        QCOMPARE(runs[0]["status"].get<std::string>(), std::string("completed"));
        QCOMPARE(runs[1]["status"].get<std::string>(), std::string("cancelled"));
        QCOMPARE(runs[0]["scenario"].get<std::string>(), std::string("synthetic"));
        QVERIFY(runs[0]["avg_jct_s"].get<double>() > 100);

        const auto filtered = runCommand({cliPath(), "runs", "list", "--db", m_db, "--json", "--status", "cancelled"});
        QCOMPARE(nlohmann::json::parse(filtered.out)["runs"].size(), std::size_t(1));
        const auto bad = runCommand({cliPath(), "runs", "list", "--db", m_db, "--status", "done"});
        QCOMPARE(bad.exitCode, 2);
        QVERIFY(bad.err.find("status") != std::string::npos);

        const auto human = runCommand({cliPath(), "runs", "list", "--db", m_db});
        QCOMPARE(human.exitCode, 0);
        QVERIFY(human.out.find("synthetic") != std::string::npos && human.out.find("cancelled") != std::string::npos);
    }

    void showAsJsonHasEverything()
    {
        const auto r = runCommand({cliPath(), "runs", "show", std::to_string(m_fifo), "--db", m_db, "--json"});
        QCOMPARE(r.exitCode, 0);
        const auto doc = nlohmann::json::parse(r.out);
        QCOMPARE(doc["jobs"].size(), std::size_t(120));
        QCOMPARE(doc["intervals"].size(), m_intervals);
        QCOMPARE(doc["gpus"].size(), std::size_t(20));
        QCOMPARE(doc["utilization"].size(), std::size_t(120));
        QCOMPARE(doc["decisions"].size(), std::size_t(120));
        QCOMPARE(doc["metrics"]["jobs_completed"].get<double>(), 118.0);
        QCOMPARE(doc["run"]["policy"].get<std::string>(), std::string("fifo"));
        QCOMPARE(doc["scenario"]["name"].get<std::string>(), std::string("synthetic"));
        QVERIFY(doc["jobs"][119]["end_s"].is_null());

        const auto missing = runCommand({cliPath(), "runs", "show", "999", "--db", m_db});
        QCOMPARE(missing.exitCode, 2);
        QVERIFY(missing.err.find("no run with id 999") != std::string::npos);
    }

    void csvExportsReadBackInPython()
    {
        const auto jobs = path("jobs.csv");
        auto r = runCommand(
            {cliPath(), "runs", "export", std::to_string(m_fifo), "--db", m_db, "--format", "csv", "-o", jobs});
        QCOMPARE(r.exitCode, 0);
        // 120 rows; the quoted id with a comma and quotes survives; units in column names.
        QCOMPARE(python(kCsvRows, {jobs, "job_id", "job \"3\", the odd one"}),
                 std::string("120 arrival_s,cost_usd,drop_reason,dropped_s,end_s,gpu_seconds,gpu_type,gpus,ideal_s,"
                             "jct_s,job_id,job_index,model,queue_s,restarts,start_s,suspensions,user 1"));
        QCOMPARE(python(kCsvRows, {jobs, "end_s", ""}).substr(0, 4), std::string("120 "));
        QVERIFY(python(kCsvRows, {jobs, "end_s", ""}).ends_with(" 2")); // two unfinished jobs: empty end_s

        const auto intervals = path("intervals.csv");
        r = runCommand({cliPath(), "runs", "export", std::to_string(m_fifo), "--db", m_db, "--format", "csv", "--what",
                        "intervals", "-o", intervals});
        QCOMPARE(r.exitCode, 0);
        const auto iv = python(kCsvRows, {intervals, "node", "a100-0"});
        QVERIFY2(iv.starts_with(std::to_string(m_intervals) + " "), iv.c_str());

        const auto util = path("util.csv");
        r = runCommand({cliPath(), "runs", "export", std::to_string(m_fifo), "--db", m_db, "--format", "csv", "--what",
                        "utilization", "-o", util});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(
            python(kCsvRows, {util, "total_gpus", "20"}),
            std::string("120 busy_frac,busy_gpus,busy_gpus_a100-40gb-sxm,busy_gpus_rtx2080ti,time_s,total_gpus 120"));

        const auto cmp = path("compare.csv");
        r = runCommand(
            {cliPath(), "runs", "compare", std::to_string(m_fifo), std::to_string(m_sjf), "--db", m_db, "-o", cmp});
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.out.find("avg_jct_s") != std::string::npos);
        QCOMPARE(python(kCsvRows, {cmp, "policy", "sjf"}).substr(0, 2), std::string("2 "));
        QVERIFY(python(kCsvRows, {cmp, "policy", "sjf"}).ends_with(" 1"));
    }

    void chunksReadBackWithTheDocumentedPythonModule()
    {
        store::RunStore s(m_db);
        const auto stored = s.loadRun(m_fifo);
        const auto& run = stored.result;
        std::vector<std::string> gpus;
        for (int g = 0; g < stored.layout.gpuCount(); ++g) {
            const int node = stored.layout.gpuNode[static_cast<std::size_t>(g)];
            gpus.push_back(fmt::format("{}:{}:{}:{}", g, node, stored.layout.nodeNames[static_cast<std::size_t>(node)],
                                       stored.layout.gpuTypes[static_cast<std::size_t>(g)]));
        }
        QVERIFY(!gpus.empty());
        double busy = 0;
        int maxGpu = 0;
        for (const auto& iv : run.intervals) {
            busy += iv.endS - iv.startS;
            maxGpu = std::max(maxGpu, iv.gpu);
        }
        long queued = 0;
        for (const auto& d : run.decisions)
            queued += d.queued;
        const auto& last = run.utilization.back().busyByType;
        double jct = 0, cost = 0;
        int unfinished = 0;
        for (const auto& j : run.jobs) {
            if (j.finished())
                jct += j.jctS();
            else
                ++unfinished;
            cost += j.costUsd;
        }
        const auto expected =
            fmt::format("{} {} {} {} [{}] {} {}\n{} {} {} {} {} {} {} {}\n{}", run.intervals.size(), busy, maxGpu,
                        run.utilization.size(), fmt::join(last, ", "), run.decisions.size(), queued, run.jobs.size(),
                        jct, unfinished, cost, run.jobs[3].id, run.jobs[7].model, run.jobs[9].user,
                        run.jobs[119].gpuType, fmt::join(gpus, " "));
        QCOMPARE(python(kChunkReader, {test::sourcePath("scripts"), m_db, std::to_string(m_fifo)}), expected);
    }

    void chromeTraceReadsBackInPython()
    {
        const auto trace = path("trace.json");
        const auto r = runCommand({cliPath(), "runs", "export", std::to_string(m_fifo), "--db", m_db, "--format",
                                   "chrome-trace", "-o", trace});
        QCOMPARE(r.exitCode, 0);
        // slices, nodes (+1 "cluster" counter process), GPU tracks, overlaps on one track, every track named.
        QCOMPARE(python(kTraceCheck, {trace}), fmt::format("{} 4 20 0 True", m_intervals));
    }

    void foreignAndDamagedDbAreBadInput()
    {
        const auto notes = path("notes.txt");
        {
            std::ofstream out(notes);
            out << "not a database\n";
        }
        const auto before = readBytes(notes);
        for (const char* cmd : {"list", "show"}) {
            std::vector<std::string> argv = {cliPath(), "runs", cmd, "--db", notes};
            if (std::string(cmd) == "show")
                argv.push_back("1");
            const auto r = runCommand(argv);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.find(notes) != std::string::npos, r.err.c_str());
        }
        QVERIFY(readBytes(notes) == before);

        const auto damaged = path("damaged.sqlite");
        {
            std::string bytes = readBytes(m_db);
            QVERIFY(bytes.size() > 8192);
            for (std::size_t i = 4096; i < bytes.size(); ++i)
                bytes[i] = static_cast<char>(i * 7);
            std::ofstream out(damaged, std::ios::binary);
            out << bytes;
        }
        const auto damagedBefore = readBytes(damaged);
        const auto r = runCommand({cliPath(), "runs", "list", "--db", damaged});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.find(damaged) != std::string::npos, r.err.c_str());
        QVERIFY(readBytes(damaged) == damagedBefore);

        const auto missing = runCommand({cliPath(), "runs", "list", "--db", path("nope.sqlite")});
        QCOMPARE(missing.exitCode, 2);
    }

    void deleteRemovesRun()
    {
        const auto copy = path("delete.sqlite");
        {
            store::RunStore s(copy);
            s.storeRun(runInfo("fifo"), syntheticRun(10));
            s.storeRun(runInfo("sjf"), syntheticRun(10));
        }
        auto r = runCommand({cliPath(), "runs", "delete", "1", "--db", copy});
        QCOMPARE(r.exitCode, 0);
        r = runCommand({cliPath(), "runs", "list", "--db", copy, "--json"});
        const auto runs = nlohmann::json::parse(r.out)["runs"];
        QCOMPARE(runs.size(), std::size_t(1));
        QCOMPARE(runs[0]["id"].get<int>(), 2);
        QCOMPARE(runCommand({cliPath(), "runs", "delete", "1", "--db", copy}).exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestCliRuns)
#include "test_cli_runs.moc"
