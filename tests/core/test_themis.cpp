// Themis (Mahajan et al., NSDI'20): the finish-time fairness estimates against the paper's worked values, the
// partial-allocation auction's properties on random instances (conservation, payments, Pareto efficiency by brute
// force), the filter arithmetic, the Figure 5 instances through the policy, and the policy's properties on random
// apps (no GPU twice, leases honoured, same seed same run, rho finite). Spec: ../shared/specs/themis-crius.md D.2.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "metrics/apps.h"
#include "sched/registry.h"
#include "sched/themis_auction.h"
#include "sched/themis_rho.h"
#include "sim/simulator.h"

#include <rapidcheck.h>

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <numeric>
#include <set>

using namespace orrery;
using namespace orrery::sched::themis;
using orrery::test::fixedJob;

namespace {

/** The paper's §4.3.3 app: 4 configurations of 80, 100, 100, 120 s per iteration, B = 10,000, demand 8. */
SuccessiveHalvingApp workedApp()
{
    SuccessiveHalvingApp app;
    app.iterS = {80, 100, 100, 120};
    app.budgetS = 10000;
    app.demandMax = 8;
    app.appDemandMax = 32; // min(R_C = 16, app_demand_max) = 16
    return app;
}

/** A random instance: per bidder a value for every subset of |R| GPUs (candidates are all subsets). */
struct Instance
{
    int gpus = 0;
    std::vector<Bid> bids;
    std::vector<std::vector<double>> value; // [bidder][mask] = v (integers 1..20: ties are exact)
};

Instance randomInstance(int gpus, int bidders, const std::vector<int>& values)
{
    Instance in;
    in.gpus = gpus;
    const int masks = 1 << gpus;
    std::size_t at = 0;
    for (int i = 0; i < bidders; ++i) {
        Bid b;
        std::vector<double> v;
        for (int m = 0; m < masks; ++m) {
            Candidate c;
            for (int g = 0; g < gpus; ++g)
                if (m & (1 << g))
                    c.gpus.push_back(g);
            const double value = values[at++ % values.size()];
            c.logValue = std::log(value);
            v.push_back(value);
            b.candidates.push_back(std::move(c));
        }
        in.bids.push_back(std::move(b));
        in.value.push_back(std::move(v));
    }
    return in;
}

int maskOf(const std::vector<int>& gpus)
{
    int m = 0;
    for (int g : gpus)
        m |= 1 << g;
    return m;
}

/** Two-level cluster description for the Figure 5 instances: node sizes, one type (V100), by_span locality. */
sim::PreparedWorkload figure5(const std::vector<int>& nodeSizes, std::vector<workload::Job> jobs)
{
    std::vector<hardware::NodeGroup> groups;
    for (std::size_t i = 0; i < nodeSizes.size(); ++i)
        groups.push_back({"n" + std::to_string(i), "v100-16gb", 1, nodeSizes[i], std::nullopt});
    hardware::Cluster c(groups, hardware::Link{hardware::LinkKind::Ethernet, 3.125, 10},
                        hardware::GpuCatalog::builtin());
    io::ScenarioOptions o;
    o.locality.model = "by_span";
    return test::prepare(c, std::move(jobs), o);
}

workload::Job archJob(std::string id, int gpus, std::string arch, double durationS = 3600)
{
    auto j = fixedJob(std::move(id), 0, gpus, durationS);
    j.arch = std::move(arch);
    return j;
}

/** Nodes job j's first allocation spanned, from the intervals that start at its start. */
std::set<int> nodesOf(const sim::RunResult& r, const sim::PreparedWorkload& w, int j)
{
    std::set<int> nodes;
    for (const auto& iv : r.intervals)
        if (iv.job == j && iv.startS == r.jobs[static_cast<std::size_t>(j)].startS)
            nodes.insert(w.cluster().nodeOfGpu(iv.gpu));
    return nodes;
}

} // namespace

class TestThemis : public QObject
{
    Q_OBJECT

private slots:
    // D.2.1: §4.3.3, T_id = 2500; 2 GPUs: phases 1600 + 1600 + 1800, rho = 2; 1 GPU: 4; 4, 8, 16 GPUs within
    // 10% of the paper's 1, 0.5, 0.34 (the model gives 1.064, 0.532, 0.356).
    void workedExampleRho()
    {
        const auto app = workedApp();
        QCOMPARE(phaseCount(4), 3);
        QCOMPARE(phaseIterations(app), (std::vector<double>{8, 16, 36}));
        const std::vector<JobInfo> phase1 = {{8, 80, 8, 1}, {8, 100, 8, 1}, {8, 100, 8, 1}, {8, 120, 8, 1}};
        QCOMPARE(phaseTimeS(phase1, 2), 1600.0);
        QCOMPARE(phaseTimeS({{16, 100, 8, 1}, {16, 100, 8, 1}}, 2), 1600.0);
        QCOMPARE(phaseTimeS({{36, 100, 8, 1}}, 2), 1800.0);
        // T_id = B / min(R_C, demand) x N_avg = 10000 / 16 x 4.
        QCOMPARE(rhoSuccessiveHalving(app, 2, 0, 16, 4), 2.0);
        QCOMPARE(rhoSuccessiveHalving(app, 1, 0, 16, 4), 4.0);
        const std::map<int, double> paper = {{4, 1.0}, {8, 0.5}, {16, 0.34}};
        // At 16 GPUs water-filling gives phase 1's 80 s job 3 GPUs and the 120 s job 5 (213.3 s), not 4 each (240 s,
        // the spec's hand check): 863.3 s in all, nearer the paper's 0.34 than the spec's 0.356.
        const std::map<int, double> model = {
            {4, 2660.0 / 2500}, {8, 1330.0 / 2500}, {16, (640.0 / 3 + 200 + 450) / 2500}};
        for (const auto& [gpus, rho] : paper) {
            const double got = rhoSuccessiveHalving(app, gpus, 0, 16, 4);
            QVERIFY2(std::abs(got - model.at(gpus)) < 1e-9, qPrintable(QString::number(got)));
            QVERIFY(std::abs(got - rho) / rho <= 0.1);
        }
        QVERIFY(std::isinf(rhoSuccessiveHalving(app, 0, 0, 16, 4)));
        // strictSH caps phase p at 2^(p-1) GPUs per job: with 16 GPUs phase 1 runs 1 GPU per job.
        auto strict = app;
        strict.strict = true;
        QCOMPARE(rhoSuccessiveHalving(strict, 16, 0, 16, 4), (960.0 + 800 + 900) / 2500);
    }

    // The revision example: once phase 2's survivors are known (120 and 100 s), T_sh(2) = 120 x 16 = 1920 (the
    // paper prints 3200, an arithmetic slip) and phase 3 still uses the median stand-in.
    void revisionUsesTheSurvivors()
    {
        auto app = workedApp();
        app.currentPhase = 2;
        app.current = {{16, 120, 8, 1}, {16, 100, 8, 1}};
        QCOMPARE(phaseTimeS(app.current, 2), 1920.0);
        QCOMPARE(rhoSuccessiveHalving(app, 2, 0, 16, 4), (1920.0 + 1800) / 2500);
    }

    // D.2.2: Table 2, T_id = 400 and 2 GPUs offered: one GPU 200/400, two 100/400.
    void table2Bids()
    {
        const JobInfo job{200, 1, 2, 1}; // 200 serial seconds, demand 2
        // T_cluster = 200 / min(R_C = 2, 2) = 100; N_avg = 4: T_id = 400.
        QCOMPARE(rhoSingle(job, 200, 1, 0, 2, 4), 0.5);
        QCOMPARE(rhoSingle(job, 200, 2, 0, 2, 4), 0.25);
        QVERIFY(std::isinf(rhoSingle(job, 200, 0, 0, 2, 4)));
        // Elapsed time counts in T_sh.
        QCOMPARE(rhoSingle(job, 200, 2, 100, 2, 4), 0.5);
    }

    // D.2.5: k = max(1, ceil((1 - f) N)).
    void filterArithmetic()
    {
        QCOMPARE(filterCount(10, 0.8), 2);
        QCOMPARE(filterCount(10, 1.0), 1);
        QCOMPARE(filterCount(10, 0.0), 10);
        QCOMPARE(filterCount(3, 0.8), 1);
        QCOMPARE(filterCount(6, 0.5), 3);
        QCOMPARE(filterCount(0, 0.8), 0);
    }

    // D.2.3: a single bidder pays nothing and gets its best bundle.
    void singleBidderPaysNothing()
    {
        const auto in = randomInstance(3, 1, {1, 2, 3, 5, 4, 7, 6, 7});
        const auto r = partialAllocation(in.bids, {0, 1, 2});
        QCOMPARE(r.payment, std::vector<double>{1.0});
        QCOMPARE(r.solves, 1);
        // The best value is 7 (masks 5 and 7): the smaller bundle {0, 2} wins the tie, GPU 1 is left over.
        QCOMPARE(r.granted[0], (std::vector<int>{0, 2}));
        QCOMPARE(r.leftover, std::vector<int>{1});
    }

    // D.2.3 on random instances: conservation, c_i in [0, 1], the PF allocation Pareto-efficient (brute force over
    // every assignment of |R| <= 6 GPUs to k <= 3 bidders or none), grants inside the PF bundles. Instances with
    // more than 4096 candidate combinations go through CBC, the others through the exhaustive search.
    void auctionProperties()
    {
        QVERIFY(test::checkProperty("partial allocation", [] {
            const int gpus = *rc::gen::inRange(1, 7);
            const int k = *rc::gen::inRange(1, 4);
            const auto values =
                *rc::gen::container<std::vector<int>>(static_cast<std::size_t>(k << gpus), rc::gen::inRange(1, 21));
            const auto in = randomInstance(gpus, k, values);
            std::vector<int> offered(static_cast<std::size_t>(gpus));
            std::iota(offered.begin(), offered.end(), 0);
            const auto r = partialAllocation(in.bids, offered);
            RC_ASSERT(r.pfChoice.size() == static_cast<std::size_t>(k));
            std::set<int> seen;
            std::size_t granted = 0;
            for (int i = 0; i < k; ++i) {
                const auto ui = static_cast<std::size_t>(i);
                RC_ASSERT(r.payment[ui] >= 0.0);
                RC_ASSERT(r.payment[ui] <= 1.0);
                const auto& pf = in.bids[ui].candidates[static_cast<std::size_t>(r.pfChoice[ui])].gpus;
                RC_ASSERT(r.granted[ui].size() ==
                          static_cast<std::size_t>(std::floor(r.payment[ui] * static_cast<double>(pf.size()) + 1e-9)));
                for (int g : r.granted[ui]) {
                    RC_ASSERT(std::find(pf.begin(), pf.end(), g) != pf.end());
                    RC_ASSERT(seen.insert(g).second); // no GPU granted twice
                }
                granted += r.granted[ui].size();
            }
            if (k == 1)
                RC_ASSERT(r.payment[0] == 1.0);
            RC_ASSERT(granted + r.leftover.size() == static_cast<std::size_t>(gpus));
            for (int g : r.leftover)
                RC_ASSERT(!seen.count(g));
            // Pareto efficiency of the PF allocation: no assignment makes a bidder better and none worse.
            std::vector<double> pfValue;
            for (int i = 0; i < k; ++i) {
                const auto ui = static_cast<std::size_t>(i);
                pfValue.push_back(in.value[ui][static_cast<std::size_t>(
                    maskOf(in.bids[ui].candidates[static_cast<std::size_t>(r.pfChoice[ui])].gpus))]);
            }
            int assignments = 1;
            for (int g = 0; g < gpus; ++g)
                assignments *= k + 1;
            for (int code = 0; code < assignments; ++code) {
                std::vector<int> mask(static_cast<std::size_t>(k), 0);
                int c = code;
                for (int g = 0; g < gpus; ++g, c /= k + 1)
                    if (c % (k + 1) < k)
                        mask[static_cast<std::size_t>(c % (k + 1))] |= 1 << g;
                bool noWorse = true, better = false;
                for (int i = 0; i < k; ++i) {
                    const double v = in.value[static_cast<std::size_t>(i)]
                                             [static_cast<std::size_t>(mask[static_cast<std::size_t>(i)])];
                    noWorse = noWorse && v >= pfValue[static_cast<std::size_t>(i)];
                    better = better || v > pfValue[static_cast<std::size_t>(i)];
                }
                RC_ASSERT(!(noWorse && better));
            }
        }));
    }

    // The hidden payment of the paper's definition on a hand-solved case: two bidders want the same single GPU;
    // A values it 4 (else 1), B 2 (else 1). PF gives it to A; without A, B would take it: c_A = 1/2, c_B = 1.
    void paymentsOnAHandSolvedCase()
    {
        std::vector<Bid> bids(2);
        bids[0].candidates = {{{}, std::log(1.0)}, {{0}, std::log(4.0)}};
        bids[1].candidates = {{{}, std::log(1.0)}, {{0}, std::log(2.0)}};
        const auto r = partialAllocation(bids, {0});
        QCOMPARE(r.pfChoice, (std::vector<int>{1, 0}));
        QVERIFY(std::abs(r.payment[0] - 0.5) < 1e-12);
        QCOMPARE(r.payment[1], 1.0);
        QVERIFY(r.granted[0].empty()); // floor(0.5 x 1) = 0: the GPU is left over
        QCOMPARE(r.leftover, std::vector<int>{0});
        QCOMPARE(r.solves, 3);
    }

    // D.2.4, Instance 1: two VGG16 apps of one 4-GPU job on two 4-GPU machines: each gets its own machine.
    void figure5Instance1()
    {
        const auto w = figure5({4, 4}, {archJob("a1", 4, "vgg16"), archJob("a2", 4, "vgg16")});
        for (const char* spec : {"themis", "themis:f=0"}) {
            auto p = sched::makePolicy(spec);
            const auto r = sim::simulate(w, *p, 1);
            for (int j = 0; j < 2; ++j) {
                QCOMPARE(r.jobs[static_cast<std::size_t>(j)].startS, 0.0);
                QCOMPARE(nodesOf(r, w, j).size(), std::size_t(1));
            }
            QVERIFY(nodesOf(r, w, 0) != nodesOf(r, w, 1));
        }
    }

    // D.2.4, Instance 2: Inception-v3 (insensitive) and VGG16 (sensitive) on a 4-GPU and two 2-GPU machines:
    // VGG16 gets the 4-GPU machine, Inception-v3 the 2 + 2.
    void figure5Instance2()
    {
        const auto w = figure5({4, 2, 2}, {archJob("inception", 4, "inception_v3"), archJob("vgg", 4, "vgg16")});
        for (std::uint64_t seed : {1, 2, 3}) {
            auto p = sched::makePolicy("themis:f=0");
            const auto r = sim::simulate(w, *p, seed);
            QCOMPARE(nodesOf(r, w, 1), (std::set<int>{0}));
            QCOMPARE(nodesOf(r, w, 0), (std::set<int>{1, 2}));
        }
    }

    // The truth-telling experiment's liar (§6.3, Figure 18): two identical VGG16 apps, each one rigid 8-GPU job, on an
    // 8-GPU and four 2-GPU machines, both bidding (f = 0). Truthful, the tie gives the 8-GPU machine to the first app;
    // a second app that over-reports the slowdown of spread placements by 100% takes it instead (and the first is
    // spread over the four small machines); lying by 0 is the truth. A liar beyond the apps is an error.
    void liarWinsTheDenseMachine()
    {
        const auto w = figure5({8, 2, 2, 2, 2}, {archJob("a1", 8, "vgg16"), archJob("a2", 8, "vgg16")});
        const auto firstNodes = [&](const char* spec, int j) {
            auto p = sched::makePolicy(spec);
            return nodesOf(sim::simulate(w, *p, 1), w, j);
        };
        QCOMPARE(firstNodes("themis:f=0", 0), (std::set<int>{0}));
        QCOMPARE(firstNodes("themis:f=0:liar=1:lie=0", 0), (std::set<int>{0}));
        QCOMPARE(firstNodes("themis:f=0:liar=1:lie=1", 1), (std::set<int>{0}));
        QCOMPARE(firstNodes("themis:f=0:liar=1:lie=1", 0), (std::set<int>{1, 2, 3, 4}));
        // A small lie loses the tie-break too: any X > 0 makes spread worth less to the liar than to the other app.
        QCOMPARE(firstNodes("themis:f=0:liar=1:lie=0.01", 1), (std::set<int>{0}));
        auto bad = sched::makePolicy("themis:liar=2");
        try {
            sim::simulate(w, *bad, 1);
            QFAIL("liar=2 of 2 apps ran");
        } catch (const Error& e) {
            QVERIFY2(std::string(e.what()).find("liar=2") != std::string::npos, e.what());
        }
    }

    // Policy properties on random clusters (racks, 1-8 GPU nodes) and random apps (1-4 jobs, rigid or elastic,
    // staggered arrivals): every job finishes, no GPU is held by two jobs at once, an app loses a GPU before its
    // lease ends only when one of its jobs ended then, the same seed gives the same run, and every finished app's
    // rho is finite and positive.
    void policyProperties()
    {
        QVERIFY(test::checkProperty("themis runs", [] {
            const int nodes = *rc::gen::inRange(1, 6);
            std::vector<hardware::NodeGroup> groups;
            for (int n = 0; n < nodes; ++n) {
                const int per = *rc::gen::element(1, 2, 4, 8);
                groups.push_back({"n" + std::to_string(n),
                                  "v100-16gb",
                                  1,
                                  per,
                                  std::nullopt,
                                  {n % 2 ? std::string("r1") : std::string("r0")}});
            }
            hardware::Cluster cluster(groups, hardware::Link{hardware::LinkKind::Ethernet, 3.125, 10},
                                      hardware::GpuCatalog::builtin());
            const int total = cluster.totalGpus();
            std::vector<workload::Job> jobs;
            const int apps = *rc::gen::inRange(1, 6);
            for (int a = 0; a < apps; ++a) {
                const double arrival = *rc::gen::inRange(0, 3000);
                const int count = *rc::gen::inRange(1, 5);
                for (int k = 0; k < count; ++k) {
                    auto j = fixedJob(fmt::format("a{}j{}", a, k), arrival,
                                      *rc::gen::inRange(1, std::min(8, total) + 1), *rc::gen::inRange(60, 5000));
                    j.arch = *rc::gen::element(std::string("vgg16"), std::string("resnet50"));
                    if (*rc::gen::arbitrary<bool>()) {
                        j.minGpus = 1;
                        j.maxGpus = j.gpus;
                    }
                    j.app = fmt::format("app{}", a);
                    jobs.push_back(std::move(j));
                }
            }
            io::ScenarioOptions o;
            o.locality.model = "by_span";
            const auto w = test::prepare(cluster, jobs, o);
            const double lease = *rc::gen::element(120.0, 600.0);
            const double f = *rc::gen::element(0.0, 0.5, 0.8, 1.0);
            const std::string spec = fmt::format("themis:f={}:lease_s={}", f, lease);
            RC_LOG() << spec << " gpus " << total << " jobs " << jobs.size();
            auto p = sched::makePolicy(spec);
            const auto r = sim::simulate(w, *p, 7);
            for (const auto& j : r.jobs)
                RC_ASSERT(j.finished());
            // No GPU held twice: per GPU, intervals (sorted by start) do not overlap.
            std::map<int, std::vector<sim::AllocationInterval>> byGpu;
            std::map<int, std::vector<std::pair<double, int>>> grantsOf; // GPU -> (time, app's first job)
            const sim::MetricSeries* leaseGpu = nullptr;
            const sim::MetricSeries* leaseApp = nullptr;
            for (const auto& s : r.series) {
                if (s.name == "themis.lease_gpu")
                    leaseGpu = &s;
                if (s.name == "themis.lease_app")
                    leaseApp = &s;
            }
            RC_ASSERT(leaseGpu && leaseApp && leaseGpu->value.size() == leaseApp->value.size());
            for (std::size_t i = 0; i < leaseGpu->value.size(); ++i)
                grantsOf[static_cast<int>(leaseGpu->value[i])].emplace_back(leaseGpu->timeS[i],
                                                                            static_cast<int>(leaseApp->value[i]));
            for (const auto& iv : r.intervals)
                byGpu[iv.gpu].push_back(iv);
            for (auto& [g, ivs] : byGpu) {
                std::sort(ivs.begin(), ivs.end(), [](const auto& x, const auto& y) { return x.startS < y.startS; });
                for (std::size_t i = 1; i < ivs.size(); ++i)
                    RC_ASSERT(ivs[i].startS >= ivs[i - 1].endS - 1e-9);
                // Leases (series themis.lease_gpu and themis.lease_app: each grant's time, GPU and app). Every
                // interval runs under a live lease of the job's own app...
                const auto& grants = grantsOf[g];
                const auto appOfJob = [&](int job) { return r.jobs[static_cast<std::size_t>(job)].app; };
                for (const auto& iv : ivs) {
                    const std::pair<double, int>* last = nullptr;
                    for (const auto& gr : grants)
                        if (gr.first <= iv.startS + 1e-9)
                            last = &gr;
                    RC_ASSERT(last != nullptr);
                    RC_ASSERT(appOfJob(last->second) == appOfJob(iv.job));
                    RC_ASSERT(iv.startS < last->first + lease + 1e-6);
                }
                // ...and a GPU leased to app A goes to another app only once A's lease has ended, or a job of A
                // that ran on it ended (releasing it), or A has finished.
                for (std::size_t i = 1; i < grants.size(); ++i) {
                    const auto [s1, a1] = grants[i - 1];
                    const auto [s2, a2] = grants[i];
                    if (appOfJob(a1) == appOfJob(a2) || s2 >= s1 + lease - 1e-6)
                        continue;
                    bool released = false;
                    for (const auto& iv : ivs)
                        if (appOfJob(iv.job) == appOfJob(a1) && iv.endS >= s1 - 1e-9 && iv.endS <= s2 + 1e-9 &&
                            std::abs(r.jobs[static_cast<std::size_t>(iv.job)].endS - iv.endS) < 1e-6)
                            released = true;
                    bool appDone = true;
                    for (const auto& j : r.jobs)
                        if (j.app == appOfJob(a1) && !(j.endS >= 0 && j.endS <= s2 + 1e-9))
                            appDone = false;
                    if (!(released || appDone))
                        RC_LOG() << "gpu " << g << ": leased to " << appOfJob(a1) << " at " << s1 << ", to "
                                 << appOfJob(a2) << " at " << s2 << "\n";
                    RC_ASSERT(released || appDone);
                }
            }
            auto again = sched::makePolicy(spec);
            const auto r2 = sim::simulate(w, *again, 7);
            RC_ASSERT(r2.intervals.size() == r.intervals.size());
            for (std::size_t i = 0; i < r.intervals.size(); ++i) {
                RC_ASSERT(r2.intervals[i].gpu == r.intervals[i].gpu);
                RC_ASSERT(r2.intervals[i].startS == r.intervals[i].startS);
                RC_ASSERT(r2.intervals[i].endS == r.intervals[i].endS);
            }
            const auto records = metrics::appRecords(r);
            RC_ASSERT(records.size() == static_cast<std::size_t>(apps));
            for (const auto& a : records) {
                RC_ASSERT(a.finished());
                RC_ASSERT(std::isfinite(a.rho));
                RC_ASSERT(a.rho > 0);
            }
        }));
    }

    // Each auction is recorded: an `auction` event on the app's first job with its bid table, PF bundle and
    // payment; the series of bidders, offered GPUs and solve time.
    void auctionsAreRecorded()
    {
        const auto w = figure5({4, 4}, {archJob("a1", 4, "vgg16"), archJob("a2", 4, "vgg16")});
        auto p = sched::makePolicy("themis:f=0");
        const auto r = sim::simulate(w, *p, 1);
        // Round 1 at t = 0: both apps bid (f = 0); later rounds re-auction expired leases (600 s of 3,600).
        int first = 0, later = 0;
        for (const auto& e : r.jobEvents)
            if (e.kind == sim::JobEventKind::Auction) {
                (e.detail.find("round=1 ") == 0 ? first : later) += 1;
                QVERIFY(e.detail.find("payment=") != std::string::npos);
                QVERIFY(e.detail.find("bids=[0:") != std::string::npos);
            }
        QCOMPARE(first, 2);
        QVERIFY(later >= 2);
        std::set<std::string> series;
        for (const auto& s : r.series)
            series.insert(s.name);
        for (const char* name : {"themis.bidders", "themis.offered_gpus", "themis.leftover_gpus", "themis.solve_ms"})
            QVERIFY2(series.count(name), name);
    }
};

QTEST_GUILESS_MAIN(TestThemis)
#include "test_themis.moc"
