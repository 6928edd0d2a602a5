#include "test_support.h"

#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "sim/goodput_throughput.h"
#include "util/text.h"
#include "workload/goodput_model.h"
#include "workload/goodput_profile.h"
#include "workload/pollux_workload.h"
#include "workload/trace_reader.h"

#include <cmath>
#include <filesystem>
#include <fstream>

using namespace orrery;
using orrery::test::errorOf;
using namespace orrery::workload;

namespace {

std::string profilesDir()
{
    return test::sharedDataPath("sia/profiles");
}

const char* kApps[] = {"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"};

} // namespace

class TestGoodput : public QObject
{
    Q_OBJECT

private slots:
    // ---- the workload CSV ----
    void workloadRealFiles()
    {
        const std::string pollux = test::sharedDataPath("pollux/workloads/workload-6.csv");
        const std::string saturn = test::sharedDataPath("sia/workloads/saturn/workload-1.csv");
        if (pollux.empty() || saturn.empty())
            QSKIP("shared data not present");
        const TraceRead p = readTrace("pollux", pollux);
        QCOMPARE(p.rows, 160);
        QCOMPARE(p.jobs.size(), std::size_t(160));
        for (const auto& j : p.jobs) {
            QVERIFY(!j.application.empty());
            QVERIFY(j.batchSize > 0);
            QVERIFY(j.gpus >= 1);
            QCOMPARE(j.arrivalS, std::floor(j.arrivalS)); // Pollux writes whole seconds
        }
        QVERIFY(std::is_sorted(p.jobs.begin(), p.jobs.end(),
                               [](const Job& a, const Job& b) { return a.arrivalS < b.arrivalS; }));
        TraceOptions ten;
        ten.limit = 10;
        const TraceRead s = readTrace("sia", saturn, ten);
        QCOMPARE(s.rows, 160);
        QCOMPARE(s.jobs.size(), std::size_t(10));
        bool fractional = false;
        const std::string newtrace = test::sharedDataPath("sia/workloads/newtrace/workload-1.csv");
        for (const auto& j : readTrace("sia", newtrace).jobs)
            fractional = fractional || j.arrivalS != std::floor(j.arrivalS);
        QVERIFY(fractional); // Sia's newTrace times carry fractions (Saturn's are written "401.0")
    }

    void workloadErrorsNameFileLineField()
    {
        const std::string h = "name,time,application,num_replicas,batch_size\n";
        QCOMPARE(errorOf([&] { parsePolluxWorkload(h + "a-0,0,cifar10,0,128\n", "w.csv"); }),
                 std::string("w.csv:2: num_replicas: expected a positive integer, got \"0\""));
        QCOMPARE(errorOf([&] { parsePolluxWorkload(h + "a-0,0,cifar10,1,128\na-0,5,bert,1,12\n", "w.csv"); }),
                 std::string("w.csv:3: name: job name \"a-0\" appears twice"));
        QCOMPARE(errorOf([&] { parsePolluxWorkload(h + "a-0,-1,cifar10,1,128\n", "w.csv"); }),
                 std::string("w.csv:2: time: expected a non-negative number, got \"-1\""));
        QCOMPARE(errorOf([&] { parsePolluxWorkload(h + "a-0,1,,1,128\n", "w.csv"); }),
                 std::string("w.csv:2: application: expected an application name (cifar10, bert, ...), got an "
                             "empty field"));
        QCOMPARE(errorOf([&] { parsePolluxWorkload("name,time,application,num_replicas\na,0,b,1\n", "w.csv"); }),
                 std::string("w.csv:1: header: missing column \"batch_size\" (columns: name, time, application, "
                             "num_replicas)"));
        // Column order does not matter.
        const TraceRead r =
            parsePolluxWorkload("batch_size,num_replicas,application,time,name\n64,2,bert,7.5,b\n", "w");
        QCOMPARE(r.jobs.at(0).id, std::string("b"));
        QCOMPARE(r.jobs.at(0).gpus, 2);
        QCOMPARE(r.jobs.at(0).batchSize, 64);
        QCOMPARE(r.jobs.at(0).arrivalS, 7.5);
    }

    // ---- the profiles ----
    void profilesReadEveryFile()
    {
        if (profilesDir().empty())
            QSKIP("shared data not present");
        const GoodputProfile g = readGoodputProfile(profilesDir() + "/cifar10");
        QCOMPARE(g.application, std::string("cifar10"));
        for (const char* s : {"", "aws", "azure", "dgx", "dgx-ext", "quad", "rtx"})
            QVERIFY2(g.rows.count(s) && !g.rows.at(s).empty(), s);
        QCOMPARE(g.validation.size(), std::size_t(6));
        QCOMPARE(g.validation.begin()->first, 128);
        QCOMPARE(g.validation.at(128).size(), std::size_t(100));
        // placements.csv "44"-style digits: nodes = digits, replicas = their sum.
        const auto rows = parseProfileRows("placement,local_bsz,step_time,sync_time\n44,32,0.2,0.1\n", "p.csv");
        QCOMPARE(rows.at(0).nodes, 2);
        QCOMPARE(rows.at(0).replicas, 8);
        // scalability files give the counts as columns, in any order.
        const auto sc =
            parseProfileRows("local_bsz,step_time,sync_time,num_nodes,num_replicas\n32,0.2,0.1,3,12\n", "s.csv");
        QCOMPARE(sc.at(0).nodes, 3);
        QCOMPARE(sc.at(0).replicas, 12);
    }

    void profileErrorsNameFileLineField()
    {
        QCOMPARE(errorOf([] { parseProfileRows("placement,local_bsz,step_time,sync_time\n40,32,0.2,0.1\n", "p.csv"); }),
                 std::string("p.csv:2: placement: expected one digit 1-9 per node (\"44\": 2 nodes x 4 GPUs), got "
                             "\"40\""));
        QCOMPARE(errorOf([] { parseProfileRows("placement,local_bsz,step_time,sync_time\n4,32,0,0.1\n", "p.csv"); }),
                 std::string("p.csv:2: step_time: expected a positive number, got \"0\""));
        QCOMPARE(errorOf([] { parseProfileRows("local_bsz,step_time,sync_time,num_nodes\n32,1,0,1\n", "s.csv"); }),
                 std::string("s.csv:1: header: missing column \"num_replicas\" (columns: local_bsz, step_time, "
                             "sync_time, num_nodes)"));
        QCOMPARE(errorOf([] {
                     parseValidationRows("progress,iteration,metric,grad_sqr,grad_var\n10,10,0.5,1,1\n5,20,0.6,1,1\n",
                                         "validation-8.csv");
                 }),
                 std::string("validation-8.csv:3: progress: 5 is below the previous epoch's 10"));
        QCOMPARE(errorOf([] {
                     parseValidationRows("progress,iteration,metric,grad_sqr,grad_var\n10,10,0.5,-1,1\n", "v.csv");
                 }),
                 std::string("v.csv:2: grad_sqr: expected a non-negative number, got \"-1\""));
    }

    void brokenProfileCopies()
    {
        if (profilesDir().empty())
            QSKIP("shared data not present");
        // A copy of cifar10 with one row of its RTX placements broken, and one without validation files.
        namespace fs = std::filesystem;
        const fs::path dir = fs::temp_directory_path() / "orrery-goodput-broken" / "cifar10";
        fs::remove_all(dir.parent_path());
        fs::create_directories(dir);
        for (const auto& e : fs::directory_iterator(profilesDir() + "/cifar10"))
            fs::copy_file(e.path(), dir / e.path().filename());
        {
            std::string text = util::readFile((dir / "placements-rtx.csv").string());
            const auto second = text.find('\n', text.find('\n') + 1) + 1; // start of line 3
            text.insert(second, "32,abc,0.1,1\n");
            std::ofstream(dir / "placements-rtx.csv") << text;
        }
        QCOMPARE(errorOf([&] { readGoodputProfile(dir.string()); }),
                 std::string("cifar10/placements-rtx.csv:3: step_time: expected a positive number, got \"abc\""));
        for (const auto& e : fs::directory_iterator(dir))
            if (e.path().filename().string().rfind("validation", 0) == 0 || e.path().filename() == "placements-rtx.csv")
                fs::remove(e.path());
        QVERIFY(errorOf([&] { readGoodputProfile(dir.string()); }).find("no validation-<batch>.csv") !=
                std::string::npos);
        fs::remove_all(dir.parent_path());
    }

    // ---- the model ----
    void fitReproducesProfileRows()
    {
        if (profilesDir().empty())
            QSKIP("shared data not present");
        // docs/models/goodput.md, "Fitting": the stated errors of the fit over each (application, GPU) file pair.
        for (const char* app : kApps) {
            const GoodputProfile g = readGoodputProfile(profilesDir() + "/" + app);
            for (const char* suffix : {"aws", "rtx", "dgx-ext"}) {
                const PerfFit f = fitPerfParams(g.rows.at(suffix));
                qInfo("%s/%s: %d rows, rmsle %.3f, mean |rel| %.3f, max |rel| %.3f, gamma %.2f", app, suffix, f.rows,
                      f.rmsle, f.meanAbsRelError, f.maxAbsRelError, f.params.gamma);
                // yolov3 on A100 measures non-monotone times (local batch 23: 0.56 s, 32: 0.39 s on one GPU), which
                // no model linear in the batch follows (docs/models/goodput.md, "Fitting").
                const bool irregular = std::string(app) == "yolov3" && std::string(suffix) == "dgx-ext";
                QVERIFY2(f.meanAbsRelError < (irregular ? 0.35 : kMeanRelBound), app);
                QVERIFY2(f.rmsle < (irregular ? 0.40 : 0.16), app);
                QVERIFY(f.params.alphaC > 0 && f.params.betaC > 0 && f.params.gamma >= 1 && f.params.gamma <= 10);
            }
        }
    }

    void fitRecoversKnownParameters()
    {
        // Rows generated from known parameters come back to within 2 % of the step time.
        PerfParams truth{0.01, 0.002, 0.05, 0.004, 0.02, 0.001, 1.0};
        std::vector<ProfileRow> rows;
        for (int nodes : {1, 2, 4})
            for (int per : {1, 2, 4})
                for (double b : {8.0, 16.0, 32.0, 64.0}) {
                    ProfileRow r;
                    r.nodes = nodes;
                    r.replicas = nodes * per;
                    r.localBsz = b;
                    r.stepS = iterationTimeS(truth, r.nodes, r.replicas, b, 0);
                    r.syncS = r.stepS - accumTimeS(truth, b);
                    rows.push_back(r);
                }
        const PerfFit f = fitPerfParams(rows);
        QVERIFY2(f.maxAbsRelError < 0.02, qPrintable(QString::number(f.maxAbsRelError)));
        QVERIFY(std::abs(f.params.betaC / truth.betaC - 1) < 0.02);
    }

    void efficiencyBoundedAndMonotone()
    {
        // (0, 1], 1 at the initial batch, non-increasing in the batch, for any statistics.
        for (double sqr : {0.0, 1e-4, 0.5, 9.0})
            for (double var : {0.0, 1e-3, 1.0, 50.0}) {
                double prev = 2;
                for (double b = 64; b <= 65536; b *= 2) {
                    const double e = statisticalEfficiency(sqr, var, b, 128);
                    QVERIFY(e > 0 && e <= 1);
                    QVERIFY(e <= prev + 1e-15);
                    prev = e;
                }
                QCOMPARE(statisticalEfficiency(sqr, var, 128, 128), 1.0);
            }
    }

    void goodputPositiveAndProgressMoves()
    {
        if (profilesDir().empty())
            QSKIP("shared data not present");
        for (const char* app : kApps) {
            const GoodputModel m(readGoodputProfile(profilesDir() + "/" + app));
            QVERIFY(m.workSamples() > 0);
            for (const std::string suffix : {"aws", "rtx", "dgx-ext"})
                for (int r : {1, 2, 4, 8, 16})
                    for (double p : {0.0, 0.3, 0.99, 1.0}) {
                        const int nodes = (r + 3) / 4;
                        const int b = m.bestBatch(suffix, nodes, r, p);
                        QVERIFY(b >= m.initBatch() && b <= m.maxBatch());
                        QVERIFY(m.goodput(suffix, nodes, r, b, p) > 0);
                        QVERIFY(m.goodput(suffix, nodes, r, m.initBatch(), p) > 0);
                        // The best batch is at least as good as the smallest one it may take there.
                        const int lo = std::min(m.maxBatch(), std::max(m.initBatch(), m.minLocalBsz(suffix) * r));
                        QVERIFY(m.goodput(suffix, nodes, r, b, p) >= 0.999 * m.goodput(suffix, nodes, r, lo, p));
                    }
        }
        // cifar10: the gradient noise grows as training goes on, so a large batch gets more efficient late.
        const GoodputModel c(readGoodputProfile(profilesDir() + "/cifar10"));
        QVERIFY(c.efficiencyAt(4096, 0.9) > c.efficiencyAt(4096, 0.0));
        QCOMPARE(c.epochAt(0.0), 0);
        QCOMPARE(c.epochAt(1.0), c.maxEpochs() - 1);
        QCOMPARE(c.maxEpochs(), 100);
    }

    void configSplitsLikePollux()
    {
        if (profilesDir().empty())
            QSKIP("shared data not present");
        const GoodputModel m(readGoodputProfile(profilesDir() + "/cifar10"));
        // aws: local batch at most 1024. 4096 on 2 GPUs: 2048 each, two passes of 1024.
        BatchConfig c = m.configFor("aws", 2, 4096);
        QCOMPARE(c.atomicBsz, 1024);
        QCOMPARE(c.accumSteps, 1);
        QCOMPARE(c.batch, 4096);
        // One GPU above the initial batch accumulates at least once.
        c = m.configFor("aws", 1, 256);
        QCOMPARE(c.accumSteps, 1);
        QCOMPARE(c.atomicBsz, 128);
        // Batches are clamped to the validated range.
        QCOMPARE(m.configFor("aws", 1, 16).batch, 128);
    }

    void sourceRatesAndWork()
    {
        if (profilesDir().empty())
            QSKIP("shared data not present");
        const auto src = sim::GoodputThroughput::load(profilesDir(), {"cifar10", "bert"});
        Job j;
        j.id = "cifar10-1";
        j.application = "cifar10";
        j.gpus = 2;
        j.batchSize = 256;
        QCOMPARE(src->work(j), src->goodputModel(j).targetProgress() * 128);
        QVERIFY(src->progressDependent(j));
        const auto catalog = hardware::GpuCatalog::builtin();
        QVERIFY(src->rate(j, catalog.at("t4"), 2) > 0);
        QVERIFY(src->rate(j, catalog.at("a100"), 2) > src->rate(j, catalog.at("t4"), 2));
        QCOMPARE(src->rate(j, catalog.at("h100"), 2), 0.0); // not profiled: cannot run there
        Job missing = j;
        missing.application = "resnet";
        QCOMPARE(errorOf([&] { src->work(missing); }),
                 std::string("options.goodput_profiles: job \"cifar10-1\": no goodput profile loaded for application "
                             "\"resnet\""));
    }

private:
    static constexpr double kMeanRelBound = 0.11;
};

QTEST_GUILESS_MAIN(TestGoodput)
#include "test_goodput.moc"
