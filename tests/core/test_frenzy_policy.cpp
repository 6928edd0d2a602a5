// The `frenzy` and `opportunistic` policies in the simulator, on hand-worked clusters: serverless
// jobs planned by MARP and placed by HAS, plan fallback, backfilling, fixed (trace) jobs, and the
// baseline's conservative request on the fastest GPUs.
#include "test_support.h"

#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "io/scenario.h"
#include "io/workload_loader.h"
#include "metrics/metrics.h"
#include "sched/registry.h"
#include "sim/prepared_workload.h"
#include "sim/simulator.h"
#include "sim/throughput.h"
#include "workload/model_library.h"

#include <map>
#include <set>

using namespace orrery;

namespace {

struct Run
{
    sim::RunResult result;
    hardware::Cluster cluster;
    /** Node names a job ran on. */
    std::set<std::string> nodesOf(const std::string& id) const
    {
        std::set<std::string> out;
        for (std::size_t j = 0; j < result.jobs.size(); ++j)
            if (result.jobs[j].id == id)
                for (const auto& iv : result.intervals)
                    if (iv.job == static_cast<int>(j))
                        out.insert(cluster.nodes()[static_cast<std::size_t>(cluster.nodeOfGpu(iv.gpu))].name);
        return out;
    }
    const sim::JobRecord& job(const std::string& id) const
    {
        for (const auto& r : result.jobs)
            if (r.id == id)
                return r;
        throw std::runtime_error("no job " + id);
    }
};

Run simulateScenario(const io::Scenario& s, const std::string& policy)
{
    sim::PreparedWorkload w(s.cluster, io::loadJobs(s), sim::makeScenarioThroughput(s), s.options);
    auto p = sched::makePolicy(policy);
    return {sim::simulate(w, *p, s.options.seed), s.cluster};
}

Run simulateText(const std::string& clusterJson, const std::string& jobsJson, const std::string& policy)
{
    const std::string text = R"({"format": "orrery-scenario", "version": 1, "cluster": )" + clusterJson +
                             R"(, "workload": {"jobs": )" + jobsJson + "}}";
    return simulateScenario(io::parseScenarioText(text, "test.json"), policy);
}

// Frenzy's testbed (spec A.8): nodes head, n2, n3, n45-0, n45-1.
const char* kTestbed = R"({"nodes": [
    {"name": "head", "gpu": "a100-40gb-pcie", "gpus_per_node": 2},
    {"name": "n2", "gpu": "a100-40gb-pcie", "gpus_per_node": 1},
    {"name": "n3", "gpu": "a800-80gb", "gpus_per_node": 4},
    {"name": "n45", "gpu": "a100-80gb-pcie", "count": 2, "gpus_per_node": 2}]})";

// One node of 2 x A100 80 GB, one of 8 x A100 40 GB.
const char* kTwoNodes = R"({"nodes": [
    {"name": "big", "gpu": "a100-80gb-pcie", "gpus_per_node": 2},
    {"name": "small", "gpu": "a100-40gb-sxm", "gpus_per_node": 8}]})";

} // namespace

class TestFrenzyPolicy : public QObject
{
    Q_OBJECT
private slots:
    void registered()
    {
        std::map<std::string, std::string> names;
        for (const auto& p : sched::registeredPolicies())
            names[p.name] = p.description;
        for (const char* n : {"frenzy", "opportunistic", "frenzy_exact", "frenzy_strict"}) {
            QVERIFY2(names.count(n), n);
            QVERIFY(!names[n].empty() && names[n].find('\n') == std::string::npos);
            QCOMPARE(sched::makePolicy(n)->name(), std::string(n));
        }
    }

    // GPT2-7B at B = 2 needs 77.8 GB per GPU on 2 GPUs (t = 2): the first job takes the 80 GB node.
    // The second finds it busy and settles for MARP's 8-GPU plan (t = 4, d = 2, 36.7 GB) on the
    // 40 GB node, so both start at once.
    void planFallbackInTheSimulator()
    {
        const auto r = simulateText(kTwoNodes, R"([
            {"id": "a", "model": "gpt2-7b", "batch": 2, "iterations": 100},
            {"id": "b", "model": "gpt2-7b", "batch": 2, "iterations": 100}])",
                                    "frenzy");
        QCOMPARE(r.job("a").gpus, 2);
        QCOMPARE(r.nodesOf("a"), (std::set<std::string>{"big"}));
        QCOMPARE(r.job("b").gpus, 8);
        QCOMPARE(r.nodesOf("b"), (std::set<std::string>{"small"}));
        QCOMPARE(r.job("a").startS, 0.0);
        QCOMPARE(r.job("b").startS, 0.0);
        QVERIFY(r.job("a").finished() && r.job("b").finished());
        // Job a's speed is the estimator's for its plan (t = 2 on one 2 x A100 80 GB node):
        // 100 iterations of 2 samples at B / iterationS.
        const auto& gpu = hardware::GpuCatalog::builtin().at("a100-80gb-pcie");
        estimate::PlanTarget target{&gpu, 2, 2, gpu.intraLink, r.cluster.network(), 0};
        workload::TrainingConfig config;
        config.globalBatch = 2;
        const double iterationS =
            estimate::estimateThroughput(workload::ModelLibrary::builtin().at("gpt2-7b"), config, {1, 2, 1}, target)
                .iterationS;
        QVERIFY(std::abs((r.job("a").endS - r.job("a").startS) - 100 * iterationS) < 1e-6 * 100 * iterationS);
        QCOMPARE(r.job("a").samples, 200.0);
        const double expected = (2 / iterationS + r.job("b").samples / (r.job("b").endS - r.job("b").startS)) / 2;
        const auto summary = metrics::summarize(r.result);
        QVERIFY(std::abs(summary.avgJobSamplesPerS - expected) < 1e-9 * expected);
        // Both started at t = 0, so per second of JCT is the same figure here.
        QVERIFY(std::abs(summary.avgJobSamplesPerJctS - expected) < 1e-9 * expected);
    }

    // Opportunistic asks for what fits the smallest GPU (40 GB: 8 GPUs) and takes the most powerful
    // idle GPUs (all A100s: the 80 GB ones first), so the second job must wait for the first.
    void opportunisticOverAllocatesAndWaits()
    {
        const auto r = simulateText(kTwoNodes, R"([
            {"id": "a", "model": "gpt2-7b", "batch": 2, "iterations": 100},
            {"id": "b", "model": "gpt2-7b", "batch": 2, "iterations": 100}])",
                                    "opportunistic");
        QCOMPARE(r.job("a").gpus, 8);
        QCOMPARE(r.nodesOf("a"), (std::set<std::string>{"big", "small"}));
        QCOMPARE(r.job("a").startS, 0.0);
        QCOMPARE(r.job("b").startS, r.job("a").endS);
        // Queueing counts in samples per second of JCT, not in samples per second of run time.
        const auto summary = metrics::summarize(r.result);
        QVERIFY(summary.avgJobSamplesPerJctS < 0.9 * summary.avgJobSamplesPerS);
    }

    // Best fit on the testbed: a 2-GPU 80 GB plan goes to a 2-GPU A100 80 GB node, not the 4-GPU
    // A800 node; small jobs go to the smallest adequate nodes.
    void bestFitOnTheTestbed()
    {
        const auto r = simulateText(kTestbed, R"([
            {"id": "big", "model": "gpt2-7b", "batch": 2, "iterations": 50},
            {"id": "tiny", "model": "gpt2-124m", "batch": 4, "iterations": 50}])",
                                    "frenzy");
        QCOMPARE(r.nodesOf("big"), (std::set<std::string>{"n45-0"}));
        QCOMPARE(r.job("tiny").gpus, 1);
        QCOMPARE(r.nodesOf("tiny"), (std::set<std::string>{"n2"})); // 1 idle GPU: the tightest fit
    }

    // U-F10 in the simulator: two GPT2-7B B = 8 jobs (4 GPUs of 80 GB each: 61 GB at t = 4) fill
    // every 80 GB GPU; a GPT2-7B B = 2 job then fits nowhere (its plans need 80 GB GPUs, or 8 GPUs
    // of 40 GB where 3 exist). With backfilling a later small job starts at once on a 40 GB GPU;
    // with strict FCFS it waits behind the blocked one.
    void backfillVsStrict()
    {
        const std::string jobs = R"([
            {"id": "first", "model": "gpt2-7b", "batch": 8, "iterations": 40},
            {"id": "second", "model": "gpt2-7b", "batch": 8, "iterations": 40},
            {"id": "blocked", "model": "gpt2-7b", "batch": 2, "iterations": 40},
            {"id": "small", "model": "gpt2-124m", "batch": 4, "iterations": 40}])";
        const auto backfill = simulateText(kTestbed, jobs, "frenzy");
        QCOMPARE(backfill.nodesOf("first"), (std::set<std::string>{"n3"}));
        QCOMPARE(backfill.nodesOf("second"), (std::set<std::string>{"n45-0", "n45-1"})); // greedy spill
        QCOMPARE(backfill.job("second").startS, 0.0);
        QVERIFY(backfill.job("blocked").startS > 0);
        QCOMPARE(backfill.job("small").startS, 0.0);
        const auto strict = simulateText(kTestbed, jobs, "frenzy_strict");
        QVERIFY(strict.job("blocked").startS > 0);
        QVERIFY(strict.job("small").startS >= strict.job("blocked").startS);
    }

    // Fixed-request (trace) jobs: their GPU count, any memory, placed best fit; one restricted to a
    // GPU type only goes there.
    void fixedJobs()
    {
        const auto r = simulateText(kTestbed, R"([
            {"id": "two", "gpus": 2, "duration_s": 600, "reference_gpu": "a100-40gb-pcie"},
            {"id": "one", "gpus": 1, "duration_s": 600, "reference_gpu": "a100-40gb-pcie"},
            {"id": "typed", "gpus": 2, "gpu_type": "a800-80gb", "duration_s": 600, "reference_gpu": "a100-40gb-pcie"}])",
                                    "frenzy");
        QCOMPARE(r.nodesOf("two"), (std::set<std::string>{"head"}));
        QCOMPARE(r.nodesOf("one"), (std::set<std::string>{"n2"}));
        QCOMPARE(r.nodesOf("typed"), (std::set<std::string>{"n3"}));
        const auto o = simulateText(kTestbed, R"([
            {"id": "two", "gpus": 2, "duration_s": 600, "reference_gpu": "a100-40gb-pcie"}])",
                                    "opportunistic");
        QCOMPARE(o.nodesOf("two"), (std::set<std::string>{"n3"})); // A800: same FLOPS, more memory, NVLink
    }

    void shippedScenariosRunToCompletion()
    {
        for (const char* f : {"frenzy-newworkload-30.json", "frenzy-testbed-30.json"}) {
            const auto s = io::loadScenario(test::sourcePath(std::string("data/scenarios/") + f));
            for (const char* policy : {"frenzy", "opportunistic"}) {
                const auto r = simulateScenario(s, policy);
                for (const auto& j : r.result.jobs)
                    QVERIFY2(j.finished(), (std::string(f) + " " + policy + " " + j.id).c_str());
            }
        }
    }
};

QTEST_GUILESS_MAIN(TestFrenzyPolicy)
#include "test_frenzy_policy.moc"
