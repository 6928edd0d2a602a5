// Each policy on small cases whose JCTs are worked out by hand in the comments.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "estimate/plan.h"
#include "io/error.h"
#include "io/scenario.h"
#include "metrics/metrics.h"
#include "sched/max_min_lp.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "sim/simulator.h"

#include <cmath>
#include <set>
#include <utility>

using namespace orrery;
using orrery::test::fixedJob;
using orrery::test::makeCluster;
using orrery::test::prepare;

namespace {

sim::RunResult run(const sim::PreparedWorkload& w, const std::string& policy, std::uint64_t seed = 0)
{
    auto p = sched::makePolicy(policy);
    return sim::simulate(w, *p, seed);
}

std::vector<double> jcts(const sim::RunResult& r)
{
    std::vector<double> out;
    for (const auto& j : r.jobs)
        out.push_back(j.jctS());
    return out;
}

io::ScenarioOptions noPenalty()
{
    io::ScenarioOptions o;
    o.restartPenaltyS = 0;
    return o;
}

bool near(const std::vector<double>& got, const std::vector<double>& want)
{
    if (got.size() != want.size())
        return false;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::abs(got[i] - want[i]) > 1e-6)
            return false;
    return true;
}

/** A deliberately broken policy: puts every queued job on GPU 0. */
class Greedy : public sim::Policy
{
public:
    std::string name() const override { return "greedy-broken"; }
    void schedule(sim::Decision& d) override
    {
        const std::vector<int> queued = d.view().queued();
        for (int j : queued)
            d.assign(j, {0});
    }
};

} // namespace

class TestPolicies : public QObject
{
    Q_OBJECT
private slots:
    void registryListsEveryPolicyWithADescription()
    {
        // The baselines of this file; other policies (frenzy, opportunistic, ...) register alongside.
        std::set<std::string> names;
        for (const auto& p : sched::registeredPolicies())
            names.insert(p.name);
        for (const char* n : {"fifo", "fifo_perf", "sjf", "tiresias", "max_min_fairness", "max_min_fairness_perf"})
            QVERIFY2(names.count(n), n);
        QCOMPARE(names.size(), sched::registeredPolicies().size()); // no duplicates
        for (const auto& p : sched::registeredPolicies()) {
            QVERIFY(!p.description.empty());
            QCOMPARE(sched::makePolicy(p.name)->name(), p.name);
        }
        try {
            sched::makePolicy("fifo_pref");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("did you mean \"fifo_perf\"") != std::string::npos);
        }
    }

    void fifoAndSjfOnOneGpu()
    {
        // One V100; A(t=0, 100 s), B(t=10, 50 s), C(t=20, 10 s).
        // FIFO: A 0-100, B 100-150, C 150-160 -> JCT 100, 140, 140.
        // SJF:  A 0-100 (alone), then C (10 s) before B: C 100-110, B 110-160 -> JCT 100, 150, 90.
        const auto w = prepare(makeCluster({{"v100", 1, 1}}),
                               {fixedJob("A", 0, 1, 100), fixedJob("B", 10, 1, 50), fixedJob("C", 20, 1, 10)});
        QVERIFY(near(jcts(run(w, "fifo")), {100, 140, 140}));
        QVERIFY(near(jcts(run(w, "sjf")), {100, 150, 90}));
        QCOMPARE(metrics::summarize(run(w, "sjf")).avgJctS, (100.0 + 150 + 90) / 3);
    }

    void fifoHeadBlocksTheQueue()
    {
        // Two V100 on one node. A(0, 2 GPUs, 100 s), B(10, 1 GPU, 50 s), C(20, 2 GPUs, 10 s), D(30, 1 GPU, 5 s).
        // A 0-100; at 100 B (1) starts, C needs 2 and only 1 is free: C waits and blocks D.
        // B 100-150; C 150-160; D 160-165 -> JCT 100, 140, 140, 135.
        const auto w = prepare(makeCluster({{"v100", 1, 2}}), {fixedJob("A", 0, 2, 100), fixedJob("B", 10, 1, 50),
                                                               fixedJob("C", 20, 2, 10), fixedJob("D", 30, 1, 5)});
        QVERIFY(near(jcts(run(w, "fifo")), {100, 140, 140, 135}));
    }

    void fifoPerfPicksTheFastestType()
    {
        // One K80 node listed first, one V100 node. X needs 900 s on a V100. Speeds are memory bandwidths:
        // K80 240 GB/s, V100 900 GB/s. fifo takes the first type with room (K80): 900 * 900/240 = 3375 s.
        // fifo_perf takes the V100: 900 s. Y (t=1, 90 s) then gets the other GPU in both cases:
        // fifo -> V100, 90 s; fifo_perf -> K80, 90 * 900/240 = 337.5 s.
        const auto w =
            prepare(makeCluster({{"k80", 1, 1}, {"v100", 1, 1}}), {fixedJob("X", 0, 1, 900), fixedJob("Y", 1, 1, 90)});
        QVERIFY(near(jcts(run(w, "fifo")), {3375, 90}));
        QVERIFY(near(jcts(run(w, "fifo_perf")), {900, 337.5}));
        const auto r = run(w, "fifo_perf");
        QCOMPARE(r.jobs[0].gpuType, std::string("v100-16gb"));
        QCOMPARE(r.jobs[1].gpuType, std::string("k80"));
    }

    void tiresiasDemotesAfterItsThreshold()
    {
        // One V100. A(0, 5000 s), B(100, 100 s). A holds the GPU; its attained service reaches the first
        // threshold (3600 GPU-s) at t = 3600 and it drops to queue 1, so B (queue 0) preempts it:
        // B 3600-3700; A resumes at 3700, pays the 30 s restart penalty, and needs 1400 s more: ends 5130.
        // JCT A = 5130, B = 3600.
        const auto w = prepare(makeCluster({{"v100", 1, 1}}), {fixedJob("A", 0, 1, 5000), fixedJob("B", 100, 1, 100)});
        const auto r = run(w, "tiresias");
        QVERIFY(near(jcts(r), {5130, 3600}));
        QCOMPARE(r.jobs[0].restarts, 1);
        // Three intervals on GPU 0: A, B, A.
        QCOMPARE(r.intervals.size(), std::size_t(3));
    }

    void maxMinTimeSharesInRounds()
    {
        // One V100, two 720 s jobs at t=0, 360 s rounds, no restart penalty. X = 0.5 each.
        // Round 0: equal priorities, lower index first: job 0 runs 0-360.
        // Round 360: job 0 has the larger share of time received -> job 1 runs 360-720.
        // Round 720: shares equal again -> job 0, finishes at 1080; job 1 runs 1080-1440.
        // JCT 1080, 1440, for both the agnostic and the throughput-aware policy (one type).
        const auto w =
            prepare(makeCluster({{"v100", 1, 1}}), {fixedJob("a", 0, 1, 720), fixedJob("b", 0, 1, 720)}, noPenalty());
        QVERIFY(near(jcts(run(w, "max_min_fairness")), {1080, 1440}));
        QVERIFY(near(jcts(run(w, "max_min_fairness_perf")), {1080, 1440}));
    }

    void maxMinPerfUsesTheFasterTypeForWhoGainsMost()
    {
        // One V100 and one K80. Both jobs are 3600 s on a V100 (3.75x slower on the K80). The LP gives each
        // half of each type; every round one job is on each type, and they alternate. Both end together.
        const auto w = prepare(makeCluster({{"v100", 1, 1}, {"k80", 1, 1}}),
                               {fixedJob("a", 0, 1, 3600), fixedJob("b", 0, 1, 3600)}, noPenalty());
        const auto r = run(w, "max_min_fairness_perf");
        QVERIFY(r.jobs[0].finished() && r.jobs[1].finished());
        // Average rate (1 + 240/900) / 2 per job -> about 5684 s, rounded up to round boundaries.
        QVERIFY(std::abs(r.jobs[0].endS - r.jobs[1].endS) <= 360);
        QVERIFY(r.jobs[1].endS > 5600 && r.jobs[1].endS < 6100);
    }

    void mergingIdenticalJobsKeepsTheLpOptimum()
    {
        ORRERY_CHECK_PROPERTY("the class-merged max-min LP reaches the same optimum, feasibly", [] {
            const int types = *rc::gen::inRange(1, 4);
            const int kinds = *rc::gen::inRange(1, 5);
            const int jobs = *rc::gen::inRange(1, 25);
            const auto T = static_cast<std::size_t>(types);
            std::vector<std::vector<double>> rows(static_cast<std::size_t>(kinds), std::vector<double>(T));
            // Per type, as a serverless job asks (PreparedWorkload::demandOn).
            std::vector<std::vector<int>> kindDemand(static_cast<std::size_t>(kinds), std::vector<int>(T));
            for (int k = 0; k < kinds; ++k) {
                for (auto& d : kindDemand[static_cast<std::size_t>(k)])
                    d = *rc::gen::element(1, 1, 2, 4);
                for (auto& v : rows[static_cast<std::size_t>(k)])
                    v = *rc::gen::inRange(0, 40) / 10.0; // zeros included: a type the job cannot use
            }
            std::vector<double> c;
            std::vector<int> demand;
            for (int j = 0; j < jobs; ++j) {
                const auto k = static_cast<std::size_t>(*rc::gen::inRange(0, kinds));
                c.insert(c.end(), rows[k].begin(), rows[k].end());
                demand.insert(demand.end(), kindDemand[k].begin(), kindDemand[k].end());
            }
            std::vector<int> capacity(T);
            for (auto& n : capacity)
                n = *rc::gen::inRange(0, 12);
            std::vector<double> merged, plain;
            RC_ASSERT(sched::solveMaxMin(jobs, types, c, demand, capacity, merged, true));
            RC_ASSERT(sched::solveMaxMin(jobs, types, c, demand, capacity, plain, false));
            const auto minAndTotal = [&](const std::vector<double>& x) {
                double lo = INFINITY, total = 0;
                std::vector<double> used(T, 0.0);
                for (std::size_t j = 0; j < static_cast<std::size_t>(jobs); ++j) {
                    double value = 0, share = 0;
                    for (std::size_t t = 0; t < T; ++t) {
                        value += c[j * T + t] * x[j * T + t];
                        share += x[j * T + t];
                        used[t] += demand[j * T + t] * x[j * T + t];
                    }
                    RC_ASSERT(share <= 1 + 1e-6);
                    lo = std::min(lo, value);
                    total += value;
                }
                for (std::size_t t = 0; t < T; ++t)
                    RC_ASSERT(used[t] <= capacity[t] + 1e-6);
                return std::pair{lo, total};
            };
            const auto [mergedMin, mergedTotal] = minAndTotal(merged);
            const auto [plainMin, plainTotal] = minAndTotal(plain);
            RC_ASSERT(std::abs(mergedMin - plainMin) <= 1e-6 * std::max(1.0, plainMin));
            RC_ASSERT(std::abs(mergedTotal - plainTotal) <= 1e-5 * std::max(1.0, plainTotal));
        });
    }

    void oversubscriptionIsAnErrorNamingThePolicy()
    {
        const auto w = prepare(makeCluster({{"v100", 1, 2}}), {fixedJob("a", 0, 1, 10), fixedJob("b", 0, 1, 10)});
        Greedy broken;
        try {
            sim::simulate(w, broken, 0);
            QFAIL("expected an error");
        } catch (const Error& e) {
            const std::string what = e.what();
            QVERIFY2(what.find("policy \"greedy-broken\"") != std::string::npos, what.c_str());
            QVERIFY2(what.find("oversubscribes GPU 0") != std::string::npos, what.c_str());
        }
    }

    void mixedAllocationRunsAtTheSlowestType()
    {
        // A 2-GPU job on a cluster of one V100 node and one K80 node (1 GPU each): it must mix types and
        // nodes. Rate = slowest per-GPU rate x count = K80 speed; times the 0.9 cross-node slowdown.
        // 100 s on 2 V100 -> 100 * 900/240 / 0.9 = 416.67 s.
        const auto w = prepare(makeCluster({{"v100", 1, 1}, {"k80", 1, 1}}), {fixedJob("m", 0, 2, 100)});
        const auto r = run(w, "fifo");
        QCOMPARE(r.jobs[0].gpuType, std::string("mixed"));
        QCOMPARE(r.jobs[0].nodes, 2);
        QVERIFY(std::abs(r.jobs[0].jctS() - 100 * 900.0 / 240 / 0.9) < 1e-6);
    }

    void cancelStopsEarly()
    {
        std::vector<workload::Job> jobs;
        for (int i = 0; i < 5000; ++i)
            jobs.push_back(fixedJob("j" + std::to_string(i), i, 1, 100));
        const auto w = prepare(makeCluster({{"v100", 1, 1}}), jobs);
        std::stop_source stop;
        stop.request_stop();
        util::Progress progress;
        progress.stop = stop.get_token();
        auto p = sched::makePolicy("fifo");
        const auto r = sim::simulate(w, *p, 0, progress);
        QVERIFY(r.cancelled);
        QVERIFY(metrics::summarize(r).jobsCompleted < 5000);
    }

    void serverlessJobsRunTheirBestPlan()
    {
        // The default scenario: 60 serverless jobs (model + config). A job's overall request is the GPU count of
        // its top-ranked plan over all the types (per type: test_per_type_demand); every policy finishes every job.
        const auto scenario = io::defaultScenario();
        const auto w = sim::prepareScenario(scenario);
        QCOMPARE(w.jobCount(), 60);
        const auto& job = w.jobs()[0];
        std::vector<estimate::PlanTarget> targets;
        for (int t = 0; t < w.typeCount(); ++t) {
            estimate::PlanTarget target;
            target.gpu = &w.type(t);
            target.maxGpus = w.gpusOfType(t);
            target.gpusPerNode = w.maxGpusPerNode(t);
            target.interNode = w.cluster().network();
            for (const auto& node : w.cluster().nodes())
                if (w.typeOfNode(node.id) == t)
                    target.intraNode = node.intraLink;
            targets.push_back(target);
        }
        const auto plans = estimate::rankPlans(scenario.models().at(job.model), job.config, targets);
        QVERIFY(!plans.empty());
        QCOMPARE(w.job(0).demand, plans.front().count);
        QCOMPARE(w.job(0).work, job.iterations);
        for (const auto& info : sched::registeredPolicies()) {
#ifdef ORRERY_TEST_ASAN
            // Pollux's search with its defaults takes 3 s here and minutes at -O0 under ASan: a smaller one there.
            const std::string spec = info.name == "pollux" ? "pollux:population=24:generations=12" : info.name;
#else
            const std::string spec = info.name;
#endif
            const auto r = run(w, spec, 1);
            QCOMPARE(metrics::summarize(r).jobsCompleted, 60);
        }
    }

    void jobThatCannotRunIsAnInputError()
    {
        try {
            prepare(makeCluster({{"v100", 1, 2}}), {fixedJob("big", 0, 4, 10)});
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("\"big\"") != std::string::npos);
        }
    }
};

QTEST_GUILESS_MAIN(TestPolicies)
#include "test_policies.moc"
