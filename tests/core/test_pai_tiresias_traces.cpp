#include "test_support.h"

#include "hardware/cluster.h"
#include "io/error.h"
#include "workload/pai_trace.h"
#include "workload/tiresias_trace.h"

using namespace orrery;
using orrery::test::errorOf;
using orrery::test::manifestLines;
using namespace orrery::workload;

// The Alibaba PAI 2020 and Tiresias trace readers (the other formats: test_trace_readers.cpp).
class TestPaiTiresiasTraces : public QObject
{
    Q_OBJECT

private slots:
    void pai()
    {
        PaiTables t;
        t.taskHeader = "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type\n";
        t.taskLabel = "tasks.csv";
        t.taskTable = "jA,worker,2.0,Terminated,100.0,400.0,600.0,29.3,100.0,V100\n"
                      "jA,ps,1.0,Terminated,90.0,410.0,600.0,29.3,,\n"
                      "jA,evaluator,1.0,Terminated,150.0,500.0,600.0,29.3,50.0,V100M32\n"
                      "jB,tensorflow,1.0,Failed,1000.0,1038.0,600.0,29.3,50.0,MISC\n"
                      "jC,tensorflow,1.0,Running,2000.0,,600.0,29.3,100.0,T4\n"
                      "jD,tensorflow,1.0,Terminated,50.0,60.0,600.0,29.3,0.0,\n";
        t.jobHeader = "job_name,inst_id,user,status,start_time,end_time\n";
        t.jobLabel = "jobs.csv";
        t.jobTable = "jA,i1,alice,Terminated,80.0,500.0\n";
        const TraceRead r = parsePaiTrace(t);
        QCOMPARE(r.rows, 6);
        QCOMPARE(r.skipped, 2); // jC still running, jD no GPU
        QCOMPARE(r.jobs.size(), std::size_t(2));
        const Job& a = r.jobs[0];
        QCOMPARE(a.id, std::string("jA"));
        QCOMPARE(a.gpus, 3);          // 2 x 100% + 1 x 50% = 2.5 -> 3
        QCOMPARE(a.durationS, 400.0); // GPU tasks 100..500
        QCOMPARE(a.arrivalS, 0.0);    // submitted at 80, the earliest
        QCOMPARE(a.user, std::string("alice"));
        QCOMPARE(a.referenceGpu, std::string("v100-16gb")); // the larger GPU share
        const Job& b = r.jobs[1];
        QCOMPARE(b.gpus, 1);
        QCOMPARE(b.arrivalS, 920.0); // first task start (no job-table row) - 80
        QCOMPARE(b.referenceGpu, std::string("k80"));
        // The job table alone is refused with a pointer to the task table.
        PaiTables wrong;
        wrong.taskTable = *t.jobTable;
        wrong.taskHeader = t.jobHeader;
        wrong.taskLabel = "pai_job_table.csv";
        QCOMPARE(errorOf([&] { parsePaiTrace(wrong); }),
                 std::string("pai_job_table.csv:0: header: this is the PAI job table, which has no GPU demand: give "
                             "the task table (pai_task_table) as the trace and this one as the job table"));
        QCOMPARE(paiHeaderPath("/d/pai_task_table.readme-example.csv"), std::string("/d/pai_task_table.header"));
    }

    void paiRealFiles()
    {
        const std::string tasks = test::sharedDataPath("alibaba/pai2020/pai_task_table.readme-example.csv");
        const std::string jobs = test::sharedDataPath("alibaba/pai2020/pai_job_table.readme-example.csv");
        const std::string machines = test::sharedDataPath("alibaba/pai2020/pai_machine_spec.csv");
        if (tasks.empty() || jobs.empty() || machines.empty())
            QSKIP("shared data not present");
        // README example task: 1 instance at 50% of a MISC GPU, 1739162 to 1739200.
        const TraceRead r = readPaiTrace(tasks, jobs);
        QCOMPARE(r.rows, 1);
        QCOMPARE(r.jobs.size(), std::size_t(1));
        QCOMPARE(r.jobs[0].gpus, 1);
        QCOMPARE(r.jobs[0].durationS, 38.0);
        QCOMPARE(r.jobs[0].referenceGpu, std::string("k80"));
        QVERIFY(r.jobs[0].user.empty()); // the README's job example is another job
        const PaiMachines m = readPaiMachines(machines);
        QCOMPARE(m.machines + m.cpuOnly, manifestLines("alibaba/pai2020/pai_machine_spec.csv"));
        QCOMPARE(m.cpuOnly, 83);
        QCOMPARE(m.gpus, 6742);
    }

    // ---- malformed rows, every reader: exact messages ----
    void paiMalformed()
    {
        PaiTables t;
        t.taskLabel = "tasks.csv";
        t.taskHeader = "job_name,task_name,inst_num,status,start_time,end_time,plan_cpu,plan_mem,plan_gpu,gpu_type\n";
        t.taskTable = "jA,w,1.0,Terminated,100.0,400.0,600.0,29.3,half,V100\n";
        QCOMPARE(errorOf([&] { parsePaiTrace(t); }),
                 std::string("tasks.csv:1: plan_gpu: expected a non-negative number, got \"half\""));
        t.taskTable = "jA,w,1.0,Terminated,100.0,400.0,600.0,29.3,100,A100\n";
        QCOMPARE(errorOf([&] { parsePaiTrace(t); }),
                 std::string("tasks.csv:1: gpu_type: expected P100, T4, V100, V100M32 or MISC, got \"A100\""));
        t.taskTable = "jA,w,1.0,Terminated,500.0,400.0,600.0,29.3,100,V100\n";
        QCOMPARE(errorOf([&] { parsePaiTrace(t); }),
                 std::string("tasks.csv:1: end_time: ends at 400 before it starts at 500"));
        // 1e300 instances once overflowed the int the GPU count is rounded into (fuzz_pai_trace).
        t.taskTable = "jA,w,1e300,Terminated,100.0,400.0,600.0,29.3,100,V100\n";
        const std::string huge = errorOf([&] { parsePaiTrace(t); });
        QVERIFY2(huge.starts_with("tasks.csv:1: plan_gpu: ") &&
                     huge.find("more than the 65536 a job may ask for") != std::string::npos,
                 huge.c_str());
        t.taskHeader.reset();
        QCOMPARE(errorOf([&] { parsePaiTrace(t); }),
                 std::string("tasks.csv:1: header: no column names: PAI tables are headerless, put the matching "
                             ".header file beside it (its first line names \"job_name\" first)"));
    }

    /**
     * A trace holds at most kMaxJobs GPU jobs, refused at the row that passes the cap. A trace of two million
     * rows is too big for a unit test, so the check itself is tested at a small cap; the readers call it with
     * the real one.
     */
    void tiresias()
    {
        // Columns by name: tf_job.csv's layout, rows out of arrival order, extra columns read past.
        const TraceRead r = parseTiresiasTrace("job_id,num_gpu,submit_time,start_time,duration,model_size\n"
                                               "10,12,11,14,20,400\n"
                                               "11,1,5,7,3.5,1\n",
                                               "tf_job.csv");
        QCOMPARE(r.rows, 2);
        QCOMPARE(r.jobs.size(), std::size_t(2));
        QCOMPARE(r.jobs[0].id, std::string("11"));
        QCOMPARE(r.jobs[0].arrivalS, 5.0);
        QCOMPARE(r.jobs[0].durationS, 3.5);
        QCOMPARE(r.jobs[1].gpus, 12);
        QVERIFY(r.jobs[1].kind == JobKind::Fixed);
        QCOMPARE(parseTiresiasTrace("job_id,num_gpu,submit_time,duration\n1,1,0,5\n2,1,1,5\n3,1,2,5\n", "t.csv", 2)
                     .jobs.size(),
                 std::size_t(2));

        // A repeated id is a second job (Tiresias' tf_job.csv lists job 10 twice).
        QCOMPARE(parseTiresiasTrace("job_id,num_gpu,submit_time,duration\n1,1,0,5\n1,2,3,4\n", "t.csv").jobs.size(),
                 std::size_t(2));
        QVERIFY(errorOf([] {
                    parseTiresiasTrace("job_id,num_gpu,submit_time,duration\n1,0,0,5\n", "t.csv");
                }).rfind("t.csv:2: num_gpu", 0) == 0);
        QVERIFY(errorOf([] {
                    parseTiresiasTrace("job_id,num_gpu,submit_time,duration\n1,1,0,0\n", "t.csv");
                }).rfind("t.csv:2: duration", 0) == 0);
        QVERIFY(errorOf([] { parseTiresiasTrace("duration\n121\n", "yarn-gput1000.csv"); }).find("job_id") !=
                std::string::npos);

        // The cluster spec: switches x nodes per switch, each switch a rack; CPU and memory read past.
        const auto groups = parseTiresiasClusterSpec(
            "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n5,32,8,128,256\n", "n160g8.csv",
            "v100-16gb");
        QCOMPARE(groups.size(), std::size_t(1));
        QCOMPARE(groups[0].count, 160);
        QCOMPARE(groups[0].gpusPerNode, 8);
        QCOMPARE(groups[0].gpuType, std::string("v100-16gb"));
        QCOMPARE(groups[0].racks.size(), std::size_t(160));
        QCOMPARE(groups[0].racks[31], std::string("switch-0"));
        QCOMPARE(groups[0].racks[32], std::string("switch-1"));
        QVERIFY(parseTiresiasClusterSpec("num_switch,num_node_p_switch,num_gpu_p_node\n1,16,4\n", "c.csv", "v100")
                    .front()
                    .racks.empty());
        QVERIFY(errorOf([] {
                    parseTiresiasClusterSpec("num_switch,num_node_p_switch,num_gpu_p_node\n1,2,4\n1,2,4\n", "c.csv",
                                             "v100");
                }).find("one cluster row") != std::string::npos);
        QVERIFY(errorOf([] {
                    parseTiresiasClusterSpec("num_switch,num_node_p_switch,num_gpu_p_node\n100000,100000,8\n", "c.csv",
                                             "v100");
                }).rfind("c.csv:2: more than 100000 GPU nodes", 0) == 0);
    }

    void tiresiasRealFiles()
    {
        const std::string jobs60 = test::sharedDataPath("tiresias/60_job.csv");
        if (jobs60.empty())
            QSKIP("shared data not present");
        const TraceRead r = readTiresiasTrace(jobs60);
        QCOMPARE(r.jobs.size(), std::size_t(60));
        QCOMPARE(r.jobs[1].gpus, 8); // job 1: 8 GPUs at 30 s, 147 s
        QCOMPARE(r.jobs[1].arrivalS, 30.0);
        QCOMPARE(r.jobs[1].durationS, 147.0);
        const int tfLines = manifestLines("tiresias/tf_job.csv");
        const TraceRead tf = readTiresiasTrace(test::sharedDataPath("tiresias/tf_job.csv"));
        if (tfLines > 0)
            QCOMPARE(tf.rows, tfLines - 1);
        QCOMPARE(tf.jobs.size(), std::size_t(2)); // job 10, twice
        for (const char* spec : {"cluster_spec.csv", "n1g4.csv", "n32g4.csv", "n160g8.csv", "n256g8.csv"})
            QVERIFY(
                readTiresiasClusterSpec(test::sharedDataPath(std::string("tiresias/") + spec), "v100").front().count >
                0);
    }
};

QTEST_GUILESS_MAIN(TestPaiTiresiasTraces)
#include "test_pai_tiresias_traces.moc"
