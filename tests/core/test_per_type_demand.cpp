// Serverless jobs on every GPU type that fits: a per-type request (PreparedWorkload::demandOn) and the baselines'
// choice among types (docs/simulator.md, "Rate model" and "Policies").
#include "test_support.h"

#include "estimate/plan.h"
#include "io/scenario.h"
#include "metrics/metrics.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "sim/simulator.h"

#include <map>
#include <string>

using namespace orrery;

namespace {

// GPT-2 774M at batch 4 fits one A100 40 GB but needs eight RTX 2080 Ti (11 GB) under the itemised memory model.
std::string scenarioText(const std::string& nodes, const std::string& jobs)
{
    return R"({"format": "orrery-scenario", "version": 1,
        "cluster": {"nodes": [)" +
           nodes + R"(], "network": {"kind": "ethernet", "bandwidth_gbit_s": 25}},
        "workload": {"jobs": [)" +
           jobs + R"(]}, "options": {"restart_penalty_s": 0}})";
}

const char* kA100First = R"({"name": "a", "gpu": "a100-40gb-sxm", "count": 1, "gpus_per_node": 1},
                            {"name": "r", "gpu": "rtx2080ti", "count": 1, "gpus_per_node": 8})";
const char* kRtxFirst = R"({"name": "r", "gpu": "rtx2080ti", "count": 1, "gpus_per_node": 8},
                           {"name": "a", "gpu": "a100-40gb-sxm", "count": 1, "gpus_per_node": 1})";
const char* kTwoJobs = R"({"id": "first", "arrival_s": 0, "model": "gpt2-774m", "batch": 4, "iterations": 2000},
                          {"id": "second", "arrival_s": 1, "model": "gpt2-774m", "batch": 4, "iterations": 2000})";

sim::PreparedWorkload prepared(const std::string& nodes, const std::string& jobs)
{
    return sim::prepareScenario(io::parseScenarioText(scenarioText(nodes, jobs), "t.json"));
}

int typeNamed(const sim::PreparedWorkload& w, const std::string& name)
{
    for (int t = 0; t < w.typeCount(); ++t)
        if (w.type(t).name == name)
            return t;
    return -1;
}

sim::RunResult run(const sim::PreparedWorkload& w, const std::string& policy)
{
    auto p = sched::makePolicy(policy);
    return sim::simulate(w, *p, 1);
}

} // namespace

class TestPerTypeDemand : public QObject
{
    Q_OBJECT
private slots:
    /** Per type, the request is the best-ranked plan on that type alone, at that plan's rate. */
    void demandPerTypeIsTheBestPlanThere()
    {
        const auto w = prepared(kA100First, kTwoJobs);
        const auto& job = w.jobs()[0];
        const auto scenario = io::parseScenarioText(scenarioText(kA100First, kTwoJobs), "t.json");
        for (int t = 0; t < w.typeCount(); ++t) {
            estimate::PlanTarget target;
            target.gpu = &w.type(t);
            target.maxGpus = w.gpusOfType(t);
            target.gpusPerNode = w.maxGpusPerNode(t);
            target.interNode = w.cluster().network();
            for (const auto& node : w.cluster().nodes())
                if (w.typeOfNode(node.id) == t)
                    target.intraNode = node.intraLink;
            const auto plans = estimate::rankPlans(scenario.models().at(job.model), job.config, {target});
            QVERIFY(!plans.empty());
            QCOMPARE(w.demandOn(0, t), plans.front().count);
            QCOMPARE(w.rate(0, t), 1.0 / plans.front().iterationS);
            QCOMPARE(w.rate(0, t, w.demandOn(0, t)), w.rate(0, t));
            QVERIFY(w.allowed(0, t));
        }
        const int a100 = typeNamed(w, "a100-40gb-sxm");
        const int rtx = typeNamed(w, "rtx2080ti");
        // One A100 holds it, the 11 GB cards need eight; the overall request is the best-ranked plan over both.
        QCOMPARE(w.demandOn(0, a100), 1);
        QCOMPARE(w.demandOn(0, rtx), 8);
        QCOMPARE(w.job(0).demand, 1);
        QVERIFY(w.rate(0, a100) > w.rate(0, rtx));
        // The ideal run time is its best over the types.
        QCOMPARE(w.job(0).idealS, job.iterations * (1.0 / w.rate(0, a100)));
    }

    /** fifo takes any type with room, in cluster order: with the A100 busy, the second job runs on eight RTX. */
    void fifoRunsOnTheSlowerTypeWhenTheFastOneIsBusy()
    {
        const auto w = prepared(kA100First, kTwoJobs);
        const int rtx = typeNamed(w, "rtx2080ti");
        for (const char* policy : {"fifo", "fifo_perf", "sjf", "edf", "tiresias"}) {
            const auto r = run(w, policy);
            QCOMPARE(r.jobs[0].gpuType, std::string("a100-40gb-sxm"));
            QCOMPARE(r.jobs[0].gpus, 1);
            QCOMPARE(r.jobs[1].gpuType, std::string("rtx2080ti"));
            QCOMPARE(r.jobs[1].gpus, 8);
            QCOMPARE(r.jobs[1].startS, 1.0);
            QVERIFY2(std::abs(r.jobs[1].endS - (1.0 + 2000 / w.rate(1, rtx))) < 1e-6, policy);
        }
    }

    /** fifo_perf with min_relative_speed above the slow type's relative speed waits for the A100. */
    void fifoPerfWaitsForTheFastTypeWhenAsked()
    {
        const auto w = prepared(kA100First, kTwoJobs);
        const int a100 = typeNamed(w, "a100-40gb-sxm");
        const int rtx = typeNamed(w, "rtx2080ti");
        const double relative = w.rate(1, rtx) / w.rate(1, a100);
        QVERIFY(relative > 0.1 && relative < 0.9);
        const auto waits = run(w, "fifo_perf:min_relative_speed=0.9");
        QCOMPARE(waits.jobs[1].gpuType, std::string("a100-40gb-sxm"));
        QCOMPARE(waits.jobs[1].startS, waits.jobs[0].endS);
        // No RTX was ever used: the whole run is on the A100.
        for (const auto& u : metrics::usageByType(waits))
            if (u.type == "rtx2080ti")
                QCOMPARE(u.gpuHours, 0.0);
        // A threshold below the slow type's relative speed changes nothing.
        const auto settles = run(w, "fifo_perf:min_relative_speed=" + std::to_string(relative * 0.5));
        QCOMPARE(settles.jobs[1].gpuType, std::string("rtx2080ti"));
        QCOMPARE(settles.jobs[1].startS, 1.0);
    }

    /** Both types free: fifo takes the first in cluster order, the heterogeneity-aware policies the fastest. */
    void agnosticTakesClusterOrderAwareTakesTheFastest()
    {
        const auto w = prepared(kRtxFirst, kTwoJobs);
        const auto agnostic = run(w, "fifo");
        QCOMPARE(agnostic.jobs[0].gpuType, std::string("rtx2080ti"));
        QCOMPARE(agnostic.jobs[0].gpus, 8);
        QCOMPARE(agnostic.jobs[1].gpuType, std::string("a100-40gb-sxm"));
        for (const char* policy : {"fifo_perf", "sjf", "edf"}) {
            const auto aware = run(w, policy);
            QCOMPARE(aware.jobs[0].gpuType, std::string("a100-40gb-sxm"));
            QCOMPARE(aware.jobs[0].gpus, 1);
            QCOMPARE(aware.jobs[1].gpuType, std::string("rtx2080ti"));
        }
    }

    /**
     * The default scenario under every policy that reads the per-type table: each allocation on one type holds
     * the job's request there (a mix: its overall request); every job finishes; GPU-hours by type add up.
     */
    void everyAllocationIsTheRequestOnItsType()
    {
        const auto w = sim::prepareScenario(io::defaultScenario());
        bool anyDiffers = false;
        for (int j = 0; j < w.jobCount(); ++j)
            for (int t = 0; t < w.typeCount(); ++t)
                anyDiffers = anyDiffers || (w.allowed(j, t) && w.demandOn(j, t) != w.job(j).demand);
        QVERIFY(anyDiffers);
        for (const auto& info : sched::registeredPolicies()) {
            if (info.name.rfind("frenzy", 0) == 0 || info.name == "opportunistic")
                continue; // they plan serverless jobs themselves
            if (info.name == "sia" || info.name == "optimus" || info.name == "themis" || info.name == "pollux" ||
                info.name == "gandiva" || info.name == "tiresias_app" || info.name == "slaq" || info.name == "srtf" ||
                info.name == "srsf" || info.name == "optimus_app")
                continue; // they size every job within its elastic range (a serverless job's is open-ended)
            const auto r = run(w, info.name);
            QCOMPARE(metrics::summarize(r).jobsCompleted, w.jobCount());
            // Each allocation: the GPUs a job holds at an instant one of its intervals starts (a job given part of
            // its GPUs back keeps their intervals open from earlier).
            std::map<std::pair<int, double>, std::vector<int>> allocations; // (job, start) -> GPUs
            for (const auto& iv : r.intervals)
                allocations[{iv.job, iv.startS}];
            for (auto& [key, gpus] : allocations)
                for (const auto& iv : r.intervals)
                    if (iv.job == key.first && iv.startS <= key.second && key.second < iv.endS)
                        gpus.push_back(iv.gpu);
            for (const auto& [key, gpus] : allocations) {
                if (gpus.empty())
                    continue; // an interval of no length
                const int j = key.first;
                const int t = w.typeOfGpu(gpus.front());
                bool mixed = false;
                for (int g : gpus)
                    mixed = mixed || w.typeOfGpu(g) != t;
                // One type: its request there, or the overall request that a mix takes (the engine's mix may
                // land on one type when that count runs there too).
                const int n = static_cast<int>(gpus.size());
                const int want = mixed ? w.job(j).demand : w.demandOn(j, t);
                QVERIFY2(n == want || (n == w.job(j).demand && w.rate(j, t, n) > 0),
                         qPrintable(QString("%1: job %2 on %3 GPUs of %4, asks %5")
                                        .arg(info.name.c_str())
                                        .arg(j)
                                        .arg(gpus.size())
                                        .arg(mixed ? "mixed" : w.type(t).name.c_str())
                                        .arg(want)));
            }
            double byType = 0;
            for (const auto& u : metrics::usageByType(r))
                byType += u.gpuHours;
            const double total = metrics::summarize(r).gpuHours;
            QVERIFY2(std::abs(byType - total) <= 1e-9 * std::max(1.0, total), info.name.c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestPerTypeDemand)
#include "test_per_type_demand.moc"
