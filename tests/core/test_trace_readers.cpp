#include "test_support.h"

#include "hardware/cluster.h"
#include "io/error.h"
#include "io/text_table.h"
#include "workload/helios_trace.h"
#include "workload/openb_trace.h"
#include "workload/pai_trace.h"
#include "workload/philly_trace.h"
#include "workload/trace_reader.h"

#include <map>

using namespace orrery;
using orrery::test::errorOf;
using orrery::test::manifestLines;
using namespace orrery::workload;

namespace {

const char* kOpenbHeader =
    "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n";
const char* kHeliosHeader =
    "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue\n";
const char* kHeliosRow = "7,uA,vcB,2,8,1,COMPLETED,2020-06-09 18:41:01,2020-06-09 18:41:05,2020-06-09 18:51:05,600,4\n";

} // namespace

class TestTraceReaders : public QObject
{
    Q_OBJECT

private slots:
    // ---- the delimited-text layer: every quirk the README lists ----
    void textTableQuirks()
    {
        // CRLF, header with spaces after the commas, values with leading spaces, blank lines, no final newline.
        const auto t = io::TextTable::parse("machineId, number of GPUs, single GPU mem\r\nm0,2, 12GB\r\n\r\nm1,8, 24GB",
                                            "machines");
        QCOMPARE(t.header().size(), std::size_t(3));
        QCOMPARE(t.column("number of GPUs"), 1);
        QCOMPARE(t.records().size(), std::size_t(2));
        QCOMPARE(t.records()[1].line, 4);
        QCOMPARE(t.records()[1].fields[2], std::string("24GB"));
        // CR-only line endings and a trailing blank line.
        const auto cr = io::TextTable::parse("a,b\r1,2\r3,4\r\r", "cr");
        QCOMPARE(cr.records().size(), std::size_t(2));
        QCOMPARE(cr.records()[1].line, 3);
        // An unnamed pandas index column, and quoted fields.
        const auto idx = io::TextTable::parse(",machineId,number of GPUs\n0,m0,8\n1,\"m,1\",\"4\"\n", "idx");
        QCOMPARE(idx.header()[0], std::string(""));
        QCOMPARE(idx.field(idx.records()[1], idx.requireColumn("machineId")), std::string("m,1"));
        QCOMPARE(idx.field(idx.records()[1], idx.requireColumn("number of GPUs")), std::string("4"));
        // Headerless with names from elsewhere.
        auto hl =
            io::TextTable::parse("x1,2\nx2,3\n", "hl", {.separator = ',', .hasHeader = false, .trimFields = true});
        hl.setHeader({"name", "n"});
        QCOMPARE(hl.records().size(), std::size_t(2));
        QCOMPARE(hl.field(hl.records()[0], hl.requireColumn("n")), std::string("2"));
        QCOMPARE(errorOf([&] { hl.requireColumn("gpu"); }), std::string("hl:0: header: missing column \"gpu\" "
                                                                        "(columns: name, n)"));
        QCOMPARE(errorOf([] { io::TextTable::parse("\n\n", "e.csv"); }),
                 std::string("e.csv: empty file: expected a header line"));
    }

    void dateTimes()
    {
        const io::FieldParser p(std::string("f"), 1);
        QCOMPARE(p.dateTime("t", "1970-01-02 00:00:01"), 86401.0);
        QCOMPARE(p.dateTime("t", "2017-10-09 07:01:55") - p.dateTime("t", "2017-10-09 06:13:03"), 2932.0);
        // Across a leap day.
        QCOMPARE(p.dateTime("t", "2020-03-01 00:00:00") - p.dateTime("t", "2020-02-28 00:00:00"), 2 * 86400.0);
        QCOMPARE(errorOf([&] { p.dateTime("submit_time", "2020-13-01 00:00:00"); }),
                 std::string("f:1: submit_time: expected a date and time YYYY-MM-DD HH:MM:SS, got \"2020-13-01 "
                             "00:00:00\""));
    }

    // ---- openb ----
    void openbPods()
    {
        const std::string text = std::string(kOpenbHeader) +
                                 "p0,12000,16384,1,1000,,LS,Running,0,500,10\n"
                                 "p1,6000,12288,1,460,V100M16|V100M32|V100M32,LS,Succeeded,5,105,5\n"
                                 "p2,6000,12288,0,0,,BE,Running,6,100,6\n"
                                 "p3,6000,12288,4,1000,G2,LS,Pending,7,207,\n"
                                 "p4,6000,12288,2,1000,V100M32,LS,Failed,1,50,2\n";
        const TraceRead r = parseOpenbPods(text, "pods.csv");
        QCOMPARE(r.rows, 5);
        QCOMPARE(r.skipped, 1);
        QCOMPARE(r.jobs.size(), std::size_t(4));
        // Sorted by arrival: p0 (0), p4 (1), p1 (5), p3 (7).
        QCOMPARE(r.jobs[0].id, std::string("p0"));
        QCOMPARE(r.jobs[0].durationS, 490.0);
        QCOMPARE(r.jobs[0].gpus, 1);
        QVERIFY(r.jobs[0].gpuType.empty());
        QCOMPARE(r.jobs[1].id, std::string("p4"));
        QCOMPARE(r.jobs[1].gpuType, std::string("v100-32gb"));
        QCOMPARE(r.jobs[1].referenceGpu, std::string("v100-32gb"));
        QCOMPARE(r.jobs[1].durationS, 48.0);
        QCOMPARE(r.jobs[2].id, std::string("p1"));
        QCOMPARE(r.jobs[2].gpus, 1);        // a 46% share takes a whole GPU
        QVERIFY(r.jobs[2].gpuType.empty()); // two allowed types: unconstrained
        QCOMPARE(r.jobs[3].id, std::string("p3"));
        QCOMPARE(r.jobs[3].durationS, 200.0); // Pending: deletion - creation
        QCOMPARE(r.jobs[3].gpuType, std::string("openb-g2"));
        QCOMPARE(parseOpenbPods(text, "pods.csv", 2).jobs.size(), std::size_t(2));
    }

    void openbNodes()
    {
        const auto n = parseOpenbNodes("sn,cpu_milli,memory_mib,gpu,model\nn0,1,1,2,P100\nn1,1,1,8,G2\nn2,1,1,0,\n"
                                       "n3,1,1,2,P100\nn4,1,1,4,V100M16\n",
                                       "nodes.csv");
        QCOMPARE(n.nodes, 4);
        QCOMPARE(n.cpuOnlyNodes, 1);
        QCOMPARE(n.gpus, 16);
        QCOMPARE(n.groups.size(), std::size_t(3));
        QCOMPARE(n.groups[0].name, std::string("p100x2"));
        QCOMPARE(n.groups[0].count, 2);
        QCOMPARE(n.groups[1].gpuType, std::string("openb-g2"));
        QCOMPARE(n.groups[2].gpuType, std::string("v100-16gb"));
        // The groups build a cluster against the openb catalog.
        const hardware::Cluster c(n.groups, {}, openbCatalog());
        QCOMPARE(c.totalGpus(), 16);
    }

    void openbRealFiles_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<int>("cpuPods");
        QTest::newRow("default") << "alibaba/openb_pod_list_default.csv" << 1088;
        QTest::newRow("cpu0") << "alibaba/openb_pod_list_cpu0.csv" << 0;
        QTest::newRow("cpu300") << "alibaba/openb_pod_list_cpu300.csv" << 3030;
        QTest::newRow("gpushare100") << "alibaba/openb_pod_list_gpushare100.csv" << 1088;
    }

    void openbRealFiles()
    {
        QFETCH(QString, file);
        QFETCH(int, cpuPods);
        const std::string path = test::sharedDataPath(file.toStdString());
        if (path.empty())
            QSKIP("shared data not present");
        const TraceRead r = readOpenbPods(path);
        QCOMPARE(r.rows, manifestLines(file.toStdString()) - 1);
        // Every non-CPU pod is a job, but for the few of zero length.
        QVERIFY(r.skipped >= cpuPods && r.skipped <= cpuPods + 5);
        QCOMPARE(static_cast<int>(r.jobs.size()), r.rows - r.skipped);
        QVERIFY(r.skippedWhy.find(std::to_string(cpuPods) + " CPU-only pods") == 0);
        for (std::size_t i = 1; i < r.jobs.size(); ++i)
            QVERIFY(r.jobs[i - 1].arrivalS <= r.jobs[i].arrivalS);
    }

    void openbRealNodes()
    {
        const std::string path = test::sharedDataPath("alibaba/openb_node_list_gpu_node.csv");
        if (path.empty())
            QSKIP("shared data not present");
        const OpenbNodes n = readOpenbNodes(path);
        QCOMPARE(n.nodes, manifestLines("alibaba/openb_node_list_gpu_node.csv") - 1);
        // README: G2x8 549, T4x2 387, P100x2 131, G3x8 39, V100M16x4 28, V100M32x8 21, V100M16x1 19,
        // T4x4 17, V100M32x4 9, V100M16x8 8, P100x1 3, A10x1 2.
        std::map<std::string, int> byName;
        for (const auto& g : n.groups)
            byName[g.name] = g.count;
        QCOMPARE(byName["g2x8"], 549);
        QCOMPARE(byName["t4x2"], 387);
        QCOMPARE(byName["g3x8"], 39);
        QCOMPARE(byName["v100m16x1"], 19);
        QCOMPARE(byName["a10x1"], 2);
        QCOMPARE(n.groups.size(), std::size_t(12));
        QCOMPARE(n.gpus, 549 * 8 + 387 * 2 + 131 * 2 + 39 * 8 + 28 * 4 + 21 * 8 + 19 + 17 * 4 + 9 * 4 + 8 * 8 + 3 + 2);
        const auto all = test::sharedDataPath("alibaba/openb_node_list_all_node.csv");
        QCOMPARE(readOpenbNodes(all).cpuOnlyNodes, 310);
    }

    // ---- Helios ----
    void helios()
    {
        // An extra jobname column, CRLF, a CPU job, a zero-length job.
        const std::string text = "job_id,jobname,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,"
                                 "end_time,duration,queue\r\n"
                                 "1,a,u1,v,8,64,1,FAILED,2020-06-09 18:41:27,2020-06-09 18:41:27,2020-06-09 "
                                 "18:45:36,249,0\r\n"
                                 "2,b,u2,v,0,4,1,COMPLETED,2020-06-09 18:00:00,2020-06-09 18:00:00,2020-06-09 "
                                 "18:01:00,60,0\r\n"
                                 "3,c,u3,v,1,4,1,CANCELLED,2020-06-09 18:41:01,2020-06-09 18:41:01,2020-06-09 "
                                 "18:41:01,0,0\r\n";
        const TraceRead r = parseHeliosLog(text, "log.csv");
        QCOMPARE(r.rows, 3);
        QCOMPARE(r.skipped, 2);
        QCOMPARE(r.jobs.size(), std::size_t(1));
        QCOMPARE(r.jobs[0].id, std::string("1"));
        QCOMPARE(r.jobs[0].user, std::string("u1"));
        QCOMPARE(r.jobs[0].gpus, 8);
        QCOMPARE(r.jobs[0].durationS, 249.0);
        // Relative to the earliest submission of the file (the CPU job's, 18:00:00).
        QCOMPARE(r.jobs[0].arrivalS, 41 * 60 + 27.0);
        // Without a duration column, end - start.
        const TraceRead d = parseHeliosLog("job_id,gpu_num,submit_time,start_time,end_time\n"
                                           "5,2,2020-01-01 00:00:00,2020-01-01 00:00:10,2020-01-01 01:00:10\n",
                                           "d.csv");
        QCOMPARE(d.jobs[0].durationS, 3600.0);
    }

    void heliosReadmeExample()
    {
        const std::string path = test::sharedDataPath("helios/cluster_log.readme-example.csv");
        if (path.empty())
            QSKIP("shared data not present");
        const TraceRead r = readHeliosLog(path);
        QCOMPARE(r.rows, manifestLines("helios/cluster_log.readme-example.csv") - 1);
        QCOMPARE(r.jobs.size(), std::size_t(3));
        // README example: the cancelled job ran 675,233 s; the failed 4-GPU job 249 s.
        QCOMPARE(r.jobs[0].id, std::string("1425511"));
        QCOMPARE(r.jobs[0].durationS, 36848.0);
        QCOMPARE(r.jobs[1].gpus, 4);
        QCOMPARE(r.jobs[1].arrivalS, 26.0);
        QCOMPARE(r.jobs[2].durationS, 675233.0);
    }

    // ---- Philly ----
    void phillyCsv()
    {
        const TraceRead r = parsePhillyCsv("timestamp,duration,num_gpus,gpu_time,cluster\n"
                                           "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
                                           "2017-10-09 06:13:03,2951.0,4,11804.0,6214e9\n"
                                           "2017-10-09 06:13:04,0.0,1,0.0,6214e9\n\n",
                                           "philly.csv");
        QCOMPARE(r.rows, 3);
        QCOMPARE(r.skipped, 1);
        QCOMPARE(r.jobs[0].id, std::string("philly-1"));
        QCOMPARE(r.jobs[0].arrivalS, 0.0);
        QCOMPARE(r.jobs[0].gpus, 4);
        QCOMPARE(r.jobs[0].user, std::string("6214e9"));
        QCOMPARE(r.jobs[1].arrivalS, 2932.0);
        QCOMPARE(r.jobs[1].durationS, 66.0);
    }

    void phillyRealCsv()
    {
        const std::string path = test::sharedDataPath("pollux/philly.csv");
        if (path.empty())
            QSKIP("shared data not present");
        const TraceRead r = readPhillyTrace(path);
        QCOMPARE(r.rows, manifestLines("pollux/philly.csv") - 1);
        QCOMPARE(r.rows, 82247);
        QCOMPARE(r.jobs.size(), std::size_t(82247)); // minimum duration is 1 s
        std::map<int, int> byGpus;
        double maxDuration = 0;
        for (const auto& j : r.jobs) {
            ++byGpus[j.gpus];
            maxDuration = std::max(maxDuration, j.durationS);
        }
        // README: 1: 76,627 jobs; 2: 1,818; 4: 1,870; 8: 1,643; 128: 3. Max duration 4,628,226 s.
        QCOMPARE(byGpus[1], 76627);
        QCOMPARE(byGpus[2], 1818);
        QCOMPARE(byGpus[4], 1870);
        QCOMPARE(byGpus[8], 1643);
        QCOMPARE(byGpus[128], 3);
        QCOMPARE(maxDuration, 4628226.0);
        QCOMPARE(r.jobs.front().arrivalS, 0.0);
        // 2017-09-04 10:30:41 to 2017-12-22 08:02:11.
        QCOMPARE(r.jobs.back().arrivalS, 109.0 * 86400 + (8 * 3600 + 2 * 60 + 11) - (10 * 3600 + 30 * 60 + 41));
        QCOMPARE(readPhillyTrace(path, 100).jobs.size(), std::size_t(100));
    }

    void phillyJobLog()
    {
        // No attempts; "None" start; running (null end); ok across two machines; "" time.
        const std::string text = R"([
          {"status": "Killed", "vc": "a", "jobid": "j0", "user": "u", "submitted_time": "2017-10-07 01:00:00",
           "attempts": []},
          {"status": "Failed", "vc": "a", "jobid": "j1", "user": "u", "submitted_time": "2017-10-07 01:00:00",
           "attempts": [{"start_time": "None", "end_time": "None", "detail": []}]},
          {"status": "Pass", "vc": "a", "jobid": "j2", "user": "u", "submitted_time": "2017-10-07 01:00:00",
           "attempts": [{"start_time": "2017-10-07 01:00:10", "end_time": null, "detail": []}]},
          {"status": "Pass", "vc": "a", "jobid": "j3", "user": "v", "submitted_time": "2017-10-07 00:59:00",
           "attempts": [{"start_time": "2017-10-07 01:00:00", "end_time": "2017-10-07 01:10:00",
                         "detail": [{"ip": "m1", "gpus": ["gpu0", "gpu1"]}, {"ip": "m2", "gpus": ["gpu0"]}]},
                        {"start_time": "2017-10-07 01:20:00", "end_time": "2017-10-07 02:00:00",
                         "detail": [{"ip": "m3", "gpus": ["gpu0"]}]}]},
          {"status": "Pass", "vc": "a", "jobid": "j4", "user": "u", "submitted_time": "2017-10-07 01:00:00",
           "attempts": [{"start_time": "", "end_time": "", "detail": []}]}
        ])";
        const TraceRead r = parsePhillyJobLog(text, "log.json");
        QCOMPARE(r.rows, 5);
        QCOMPARE(r.skipped, 4);
        QCOMPARE(r.jobs.size(), std::size_t(1));
        QCOMPARE(r.jobs[0].id, std::string("j3"));
        QCOMPARE(r.jobs[0].gpus, 3);           // GPUs of the first attempt, over its machines
        QCOMPARE(r.jobs[0].durationS, 3600.0); // last end - first start
        QCOMPARE(r.jobs[0].arrivalS, 0.0);
        QCOMPARE(errorOf([] {
                     parsePhillyJobLog(R"([{"jobid": "x", "submitted_time": "yesterday", "attempts": []}])", "l.json");
                 }),
                 std::string("l.json: [0].submitted_time: expected a date and time YYYY-MM-DD HH:MM:SS, got "
                             "\"yesterday\""));
        QCOMPARE(errorOf([] { parsePhillyJobLog(R"({"jobs": []})", "l.json"); }),
                 std::string("l.json: expected an array of jobs, got an object"));
        QCOMPARE(
            errorOf([] { parsePhillyJobLog("[1e999]", "l.json"); }), // once escaped as out_of_range (fuzzing)
            std::string("l.json: [0]: number out of range: 1e999 at line 1, column 7 (numbers must fit a 64-bit float, "
                        "about 1.8e308)"));
    }

    void phillyJobLogReadmeExample()
    {
        const std::string path = test::sharedDataPath("philly/cluster_job_log.readme-example.json");
        if (path.empty())
            QSKIP("shared data not present");
        const TraceRead r = readPhillyTrace(path);
        QCOMPARE(r.rows, 1);
        QCOMPARE(r.jobs.size(), std::size_t(1));
        QCOMPARE(r.jobs[0].id, std::string("application_1506638472019_14199"));
        QCOMPARE(r.jobs[0].gpus, 8);
        // 2017-10-07 01:12:09 to 2017-10-09 06:53:12.
        QCOMPARE(r.jobs[0].durationS, 2 * 86400.0 + 5 * 3600 + 41 * 60 + 3);
        QCOMPARE(r.jobs[0].user, std::string("ce2f4c"));
    }

    // ---- PAI ----
    void malformed_data()
    {
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("expected");
        auto row = [](const char* name, const char* format, const std::string& text, const std::string& expected) {
            QTest::newRow(name) << format << QString::fromStdString(text) << QString::fromStdString(expected);
        };
        const std::string oh = kOpenbHeader;
        row("openb gpus", "openb", oh + "p,1,1,two,1000,,LS,Running,0,5,0\n",
            "t.csv:2: num_gpu: expected a non-negative integer, got \"two\"");
        row("openb milli", "openb", oh + "p,1,1,1,1500,,LS,Running,0,5,0\n",
            "t.csv:2: gpu_milli: expected thousandths of one GPU (0 to 1000), got 1500");
        row("openb phase", "openb", oh + "p,1,1,1,1000,,LS,Done,0,5,0\n",
            "t.csv:2: pod_phase: expected Running, Succeeded, Failed or Pending, got \"Done\"");
        row("openb unscheduled", "openb", oh + "p,1,1,1,1000,,LS,Running,0,5,\n",
            "t.csv:2: scheduled_time: expected a non-negative number, got an empty field");
        row("openb order", "openb", oh + "p,1,1,1,1000,,LS,Running,10,5,10\n",
            "t.csv:2: deletion_time: deleted at 5 before it was scheduled at 10");
        row("openb spec", "openb", oh + "p,1,1,1,1000,V100M64,LS,Running,0,5,0\n",
            "t.csv:2: gpu_spec: unknown GPU type \"V100M64\" (did you mean \"v100m16\"?)");
        row("openb short row", "openb", oh + "p,1,1,1,1000\n",
            "t.csv:2: pod_phase: missing value (the row has 5 "
            "fields, the header 11)");
        row("openb missing column", "openb", "name,num_gpu,gpu_milli,creation_time\n",
            "t.csv:1: header: missing column \"pod_phase\" (columns: name, num_gpu, gpu_milli, creation_time)");
        const std::string hh = kHeliosHeader;
        row("helios time", "helios", hh + std::string(kHeliosRow) + "8,u,v,1,1,1,COMPLETED,09/06/2020,x,y,5,0\n",
            "t.csv:3: submit_time: expected a date and time YYYY-MM-DD HH:MM:SS, got \"09/06/2020\"");
        row("helios gpus", "helios", hh + "8,u,v,-1,1,1,COMPLETED,2020-06-09 18:41:01,x,y,5,0\n",
            "t.csv:2: gpu_num: expected a non-negative integer, got \"-1\"");
        row("helios duration", "helios", hh + "8,u,v,1,1,1,COMPLETED,2020-06-09 18:41:01,x,y,long,0\n",
            "t.csv:2: duration: expected a non-negative number, got \"long\"");
        row("philly duration", "philly",
            "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,abc,1,1,c\n",
            "t.csv:2: duration: expected a non-negative number, got \"abc\"");
        row("philly gpus", "philly", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,5,1.5,1,c\n",
            "t.csv:2: num_gpus: expected a non-negative integer, got \"1.5\"");
        row("philly header", "philly", "time,duration,num_gpus\n",
            "t.csv:1: header: missing column \"timestamp\" (columns: time, duration, num_gpus)");
        row("philly json attempts", "philly", R"([{"jobid": "x", "submitted_time": "2017-10-07 01:00:00",
            "attempts": {}}])",
            "t.csv: [0].attempts: expected an array, got an object");
        row("philly json gpus", "philly", R"([{"jobid": "x", "submitted_time": "2017-10-07 01:00:00",
            "attempts": [{"start_time": "2017-10-07 01:00:00", "end_time": "2017-10-07 01:01:00",
                          "detail": [{"ip": "m1"}]}]}])",
            "t.csv: [0].attempts[0].detail[0].gpus: missing required field");
    }

    void malformed()
    {
        QFETCH(QString, format);
        QFETCH(QString, text);
        QFETCH(QString, expected);
        const std::string t = text.toStdString();
        const std::string f = format.toStdString();
        const std::string got = errorOf([&] {
            if (f == "openb")
                parseOpenbPods(t, "t.csv");
            else if (f == "helios")
                parseHeliosLog(t, "t.csv");
            else if (t.front() == '[')
                parsePhillyJobLog(t, "t.csv");
            else
                parsePhillyCsv(t, "t.csv");
        });
        QCOMPARE(QString::fromStdString(got), expected);
    }

    void jobCountCap()
    {
        QCOMPARE(errorOf([] { checkTraceJobCount(3, "philly.csv", "4", 3); }), std::string("(no error)"));
        QCOMPARE(errorOf([] { checkTraceJobCount(4, "philly.csv", "5", 3); }),
                 std::string("philly.csv:5: more than 3 GPU jobs: a trace may hold at most that many (a workload's "
                             "cap); split the file"));
        QCOMPARE(errorOf([] { checkTraceJobCount(2'000'001, "log.json", "[2000003]"); }),
                 std::string("log.json: [2000003]: more than 2000000 GPU jobs: a trace may hold at most that many "
                             "(a workload's cap); split the file"));
        QCOMPARE(errorOf([] { checkTraceJobCount(2'000'000, "log.json", "[2000002]"); }), std::string("(no error)"));
    }

    /** Node lists and machine tables are refused at the row where the cluster passes a scenario's caps. */
    void clusterSizeCaps()
    {
        // 16,384 machines of 64 GPUs are exactly the 1,048,576 GPUs a cluster may have; one more is refused.
        std::string machines = "machine,gpu_type,cap_cpu,cap_mem,cap_gpu\n";
        for (int i = 0; i < 16384; ++i)
            machines += "m,V100,96,512,64\n";
        QCOMPARE(parsePaiMachines(machines, "spec.csv", std::nullopt).gpus, 1048576);
        machines += "m,V100,96,512,8\n";
        QCOMPARE(errorOf([&] { parsePaiMachines(machines, "spec.csv", std::nullopt); }),
                 std::string("spec.csv:16386: 1048584 GPUs up to here, more than the 1048576 a cluster may have"));
        // 100,001 one-GPU nodes: more nodes than a cluster may have.
        std::string nodes = "sn,cpu_milli,memory_mib,gpu,model\n";
        for (int i = 0; i < 100001; ++i)
            nodes += "n,1,1,1,T4\n";
        QCOMPARE(errorOf([&] { parseOpenbNodes(nodes, "nodes.csv"); }),
                 std::string("nodes.csv:100002: more than 100000 GPU nodes: a cluster may have at most that many"));
    }

    void dispatcher()
    {
        QCOMPARE(traceFormats().size(), std::size_t(8));
        QCOMPARE(errorOf([] { readTrace("slurm", "x"); }),
                 std::string("unknown trace format \"slurm\" (expected gavel, openb, pai, helios, philly, sia, "
                             "pollux or tiresias)"));
        const std::string path = test::sharedDataPath("gavel/traces/msr_seed0_0e4a51.trace");
        if (path.empty())
            QSKIP("shared data not present");
        TraceOptions o;
        o.limit = 10;
        const TraceRead r = readTrace("gavel", path, o);
        QCOMPARE(r.jobs.size(), std::size_t(10));
        QCOMPARE(r.jobs[9].id, std::string("9"));
    }
};

QTEST_GUILESS_MAIN(TestTraceReaders)
#include "test_trace_readers.moc"
