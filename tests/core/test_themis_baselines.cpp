// Themis' baselines as its paper ran them (../shared/specs/themis-crius.md A.8): one hand-worked run per policy of
// the behaviour that defines it, and properties every one of them keeps on random apps (every job finishes, no GPU
// held twice, every interval under a live lease of the job's own app, same seed same run).
#include "test_support.h"

#include "sim_test_helpers.h"

#include "sched/registry.h"
#include "sim/simulator.h"

#include <rapidcheck.h>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

using namespace orrery;
using orrery::test::fixedJob;

namespace {

/** Nodes of the given sizes (V100s, no racks), by_span locality, no restart pause unless asked. */
sim::PreparedWorkload cluster(const std::vector<int>& nodeSizes, std::vector<workload::Job> jobs, double restartS = 0)
{
    std::vector<hardware::NodeGroup> groups;
    for (std::size_t i = 0; i < nodeSizes.size(); ++i)
        groups.push_back({"n" + std::to_string(i), "v100-16gb", 1, nodeSizes[i], std::nullopt});
    hardware::Cluster c(groups, hardware::Link{hardware::LinkKind::Ethernet, 3.125, 10},
                        hardware::GpuCatalog::builtin());
    io::ScenarioOptions o;
    o.locality.model = "by_span";
    o.restartPenaltyS = restartS;
    return test::prepare(c, std::move(jobs), o);
}

/** A job of app `app`: `gpus` GPUs for `durationS` (rigid, or elastic 1..gpus), a network-intensive model. */
workload::Job appJob(std::string app, std::string id, double arrivalS, int gpus, double durationS, bool elastic = false)
{
    auto j = fixedJob(std::move(id), arrivalS, gpus, durationS);
    j.app = std::move(app);
    j.arch = "vgg16";
    if (elastic) {
        j.minGpus = 1;
        j.maxGpus = gpus;
    }
    return j;
}

sim::RunResult run(const sim::PreparedWorkload& w, const std::string& spec, std::uint64_t seed = 1)
{
    auto p = sched::makePolicy(spec);
    return sim::simulate(w, *p, seed);
}

/** GPUs job j holds at time t (from the allocation intervals). */
std::set<int> gpusAt(const sim::RunResult& r, int j, double t)
{
    std::set<int> out;
    for (const auto& iv : r.intervals)
        if (iv.job == j && iv.startS <= t + 1e-9 && t < iv.endS - 1e-9)
            out.insert(iv.gpu);
    return out;
}

std::set<int> nodesOf(const sim::PreparedWorkload& w, const std::set<int>& gpus)
{
    std::set<int> nodes;
    for (int g : gpus)
        nodes.insert(w.cluster().nodeOfGpu(g));
    return nodes;
}

const sim::JobRecord& job(const sim::RunResult& r, int j)
{
    return r.jobs[static_cast<std::size_t>(j)];
}

} // namespace

class TestThemisBaselines : public QObject
{
    Q_OBJECT

private slots:
    // Gandiva: placement preference first. Two 2-GPU machines; app "big" (a rigid 4-GPU job, listed first) can only
    // spread over both (score 1/S = 1.1/1.6 = 0.69 for VGG16), app "small" (2 GPUs) fits one machine (score 1):
    // small goes first and big, which cannot use the 2 GPUs left, waits for small's end (3,000 s). Least attained
    // service (tiresias_app) sees a tie and takes the first app: big starts at once, and at its lease expiry (600 s)
    // small, with less service, takes 2 GPUs, which leaves big (rigid) waiting.
    void gandivaPlacesBestFirst()
    {
        const auto w = cluster({2, 2}, {appJob("big", "big", 0, 4, 5000), appJob("small", "small", 0, 2, 3000)});
        const auto r = run(w, "gandiva");
        QCOMPARE(job(r, 1).startS, 0.0);
        QCOMPARE(nodesOf(w, gpusAt(r, 1, 0)).size(), std::size_t(1));
        QCOMPARE(job(r, 0).startS, 3000.0);
        const auto las = run(w, "tiresias_app");
        QCOMPARE(job(las, 0).startS, 0.0);
        QCOMPARE(job(las, 1).startS, 600.0);
    }

    // Gandiva's migration at lease boundaries. Two 3-GPU machines; at t = 0 apps b1 and b2 (2 GPUs each) take one
    // machine's two GPUs each (all bundles score 1, app order), so x (2 GPUs) gets the last GPU of each machine
    // (spread, score 0.69). b1 ends at 100 s; at x's lease expiry (600 s) its best bundle is two GPUs of one machine
    // (its own machine n0, now free): it moves there and runs packed.
    void gandivaMigratesAtLeaseBoundaries()
    {
        const auto w = cluster(
            {3, 3}, {appJob("b1", "b1", 0, 2, 100), appJob("b2", "b2", 0, 2, 5000), appJob("x", "x", 0, 2, 5000)});
        const auto r = run(w, "gandiva");
        QCOMPARE(job(r, 2).startS, 0.0);
        QCOMPARE(nodesOf(w, gpusAt(r, 2, 0)).size(), std::size_t(2));   // spread at first
        QCOMPARE(nodesOf(w, gpusAt(r, 2, 600)).size(), std::size_t(1)); // packed from its first lease expiry on
        QCOMPARE(nodesOf(w, gpusAt(r, 2, 599)).size(), std::size_t(2)); // not before: leases are honoured
        QVERIFY(job(r, 2).restarts >= 1);
        QCOMPARE(gpusAt(r, 1, 600), gpusAt(r, 1, 0)); // b2 keeps its GPUs: no needless move
    }

    // Tiresias at app level: least service summed over an app's jobs. One 2-GPU machine; app A (two 1-GPU jobs,
    // listed first) and app B (one 1-GPU job) arrive at 0 with no service: A takes both GPUs. At the lease expiry
    // (600 s) A has 1,200 GPU-s, B none: B's job starts, one of A's jobs waits. At 1,200 s B has 600 < A's 1,800:
    // B keeps its GPU. (Orrery's job-level 2D-LAS leaves b1 waiting until a job crosses 3,600 GPU-s.)
    void tiresiasAppCountsTheWholeApp()
    {
        const auto w =
            cluster({2}, {appJob("A", "a1", 0, 1, 3000), appJob("A", "a2", 0, 1, 3000), appJob("B", "b1", 0, 1, 3000)});
        const auto r = run(w, "tiresias_app");
        QCOMPARE(job(r, 0).startS, 0.0);
        QCOMPARE(job(r, 1).startS, 0.0);
        QCOMPARE(job(r, 2).startS, 600.0);
        QCOMPARE(gpusAt(r, 2, 1300).size(), std::size_t(1));
        QCOMPARE(job(r, 0).suspensions + job(r, 1).suspensions, 1);
        const auto jobLevel = run(w, "tiresias");
        QVERIFY(job(jobLevel, 2).startS > 600.0);
    }

    // SLAQ: the largest loss decrease per GPU in a lease first, normalised loss 1/(1 + 10 p) rescaled to [1, 0].
    // One GPU; L (10,000 s, listed first) and S (1,000 s) arrive at 0. t = 0: a lease takes L to p = 0.06 (loss
    // 1 -> 0.5875, drop 0.41) and S to 0.6 (drop 0.94): S. t = 600: S's last 40% sheds 0.057, L's 0.41: L, and L
    // keeps winning (0.19, 0.107, 0.069 at p = 0.06, 0.12, 0.18) until at p = 0.24 it sheds 0.0485 < 0.057 (t =
    // 3,000): S finishes its 400 s at 3,400. Least service (tiresias_app) would give S the GPU back at 1,200.
    void slaqFollowsTheSteepestLoss()
    {
        const auto w = cluster({1}, {appJob("L", "L", 0, 1, 10000), appJob("S", "S", 0, 1, 1000)});
        const auto r = run(w, "slaq");
        QCOMPARE(job(r, 1).startS, 0.0);
        QCOMPARE(job(r, 0).startS, 600.0);
        QCOMPARE(job(r, 1).endS, 3400.0);
        QCOMPARE(job(r, 0).endS, 11000.0);
        const auto las = run(w, "tiresias_app");
        QVERIFY(job(las, 1).endS < 3400.0);
    }

    // SRTF: the app with the least remaining time on its bundle first, at lease boundaries (not preempting a live
    // lease). One GPU; L (3,000 s) from 0, S (500 s) arrives at 100 and waits for L's lease to end at 600; then S
    // (500 s left) beats L (2,400 s): S runs 600-1,100 and L resumes when S releases the GPU.
    void srtfShortestRemainingTimeFirst()
    {
        const auto w = cluster({1}, {appJob("L", "L", 0, 1, 3000), appJob("S", "S", 100, 1, 500)});
        const auto r = run(w, "srtf");
        QCOMPARE(job(r, 0).startS, 0.0);
        QCOMPARE(job(r, 1).startS, 600.0);
        QCOMPARE(job(r, 1).endS, 1100.0);
        QCOMPARE(job(r, 0).endS, 3500.0);
        QCOMPARE(job(r, 0).suspensions, 1);
    }

    // SRSF: one GPU at a time to the app with the least serial GPU-time left. One 4-GPU machine; elastic 1..2 jobs
    // of 4,000 (A, listed first), 1,000 (B) and 3,000 (C) GPU-s arrive at 0: B takes one GPU, then its second (it
    // still has the least service left), then C two; A waits for B's end (1,000 / 2 = 500 s) and then takes B's.
    void srsfOneGpuAtATimeLeastServiceFirst()
    {
        const auto w = cluster({4}, {appJob("A", "A", 0, 2, 2000, true), appJob("B", "B", 0, 2, 500, true),
                                     appJob("C", "C", 0, 2, 1500, true)});
        const auto r = run(w, "srsf");
        QCOMPARE(gpusAt(r, 1, 0).size(), std::size_t(2));
        QCOMPARE(gpusAt(r, 2, 0).size(), std::size_t(2));
        QCOMPARE(job(r, 1).endS, 500.0);
        QCOMPARE(job(r, 0).startS, 500.0);
        // Each grant was one GPU: four grants at t = 0 (the series apps.grants).
        for (const auto& s : r.series)
            if (s.name == "apps.grants") {
                QCOMPARE(s.timeS.front(), 0.0);
                QCOMPARE(s.value.front(), 4.0);
            }
    }

    // Optimus over apps: one GPU at a time to the app whose throughput grows most with it. A 2-GPU machine n0 and a
    // 1-GPU machine n1; apps A (listed first) and B, each one VGG16 job elastic 1..2. Running nothing, both scale
    // infinitely: A takes the tightest node's GPU (n1), B one of n0. The last GPU (n0) would spread A over two
    // machines (throughput x 2 x 1.1 / 1.6 = 1.375) but double B's on one: B takes it although A is first in order.
    void optimusAppScalesThroughputFirst()
    {
        const auto w = cluster({2, 1}, {appJob("A", "A", 0, 2, 3000, true), appJob("B", "B", 0, 2, 3000, true)});
        const auto r = run(w, "optimus_app");
        QCOMPARE(gpusAt(r, 0, 0), (std::set<int>{2}));
        QCOMPARE(gpusAt(r, 1, 0), (std::set<int>{0, 1}));
        for (const auto& s : r.series)
            if (s.name == "apps.grants")
                QCOMPARE(s.value.front(), 3.0); // one GPU per grant
    }

    // Every baseline on random clusters (racks, 1-8 GPU nodes) and random apps (1-4 jobs, rigid or elastic,
    // staggered arrivals): every job finishes, no GPU is held by two jobs at once, every interval runs under a live
    // lease of its job's app (series themis.lease_gpu / themis.lease_app), and the same seed gives the same run.
    void properties()
    {
        QVERIFY(test::checkProperty("baselines run", [] {
            const int nodes = *rc::gen::inRange(1, 6);
            std::vector<hardware::NodeGroup> groups;
            for (int n = 0; n < nodes; ++n)
                groups.push_back({"n" + std::to_string(n),
                                  "v100-16gb",
                                  1,
                                  *rc::gen::element(1, 2, 4, 8),
                                  std::nullopt,
                                  {n % 2 ? std::string("r1") : std::string("r0")}});
            hardware::Cluster c(groups, hardware::Link{hardware::LinkKind::Ethernet, 3.125, 10},
                                hardware::GpuCatalog::builtin());
            const int total = c.totalGpus();
            std::vector<workload::Job> jobs;
            const int apps = *rc::gen::inRange(1, 6);
            for (int a = 0; a < apps; ++a) {
                const double arrival = *rc::gen::inRange(0, 3000);
                const int count = *rc::gen::inRange(1, 5);
                for (int k = 0; k < count; ++k)
                    jobs.push_back(appJob(fmt::format("app{}", a), fmt::format("a{}j{}", a, k), arrival,
                                          *rc::gen::inRange(1, std::min(8, total) + 1), *rc::gen::inRange(60, 5000),
                                          *rc::gen::arbitrary<bool>()));
            }
            io::ScenarioOptions o;
            o.locality.model = "by_span";
            const auto w = test::prepare(c, jobs, o);
            const double lease = *rc::gen::element(120.0, 600.0);
            const std::string name =
                *rc::gen::element(std::string("gandiva"), std::string("tiresias_app"), std::string("slaq"),
                                  std::string("srtf"), std::string("srsf"), std::string("optimus_app"));
            const std::string spec = fmt::format("{}:lease_s={}", name, lease);
            RC_LOG() << spec << " gpus " << total << " jobs " << jobs.size();
            const auto r = run(w, spec, 7);
            for (const auto& j : r.jobs)
                RC_ASSERT(j.finished());
            const sim::MetricSeries* leaseGpu = nullptr;
            const sim::MetricSeries* leaseApp = nullptr;
            for (const auto& s : r.series) {
                if (s.name == "themis.lease_gpu")
                    leaseGpu = &s;
                if (s.name == "themis.lease_app")
                    leaseApp = &s;
            }
            RC_ASSERT(leaseGpu && leaseApp && leaseGpu->value.size() == leaseApp->value.size());
            std::map<int, std::vector<std::pair<double, int>>> grantsOf;
            for (std::size_t i = 0; i < leaseGpu->value.size(); ++i)
                grantsOf[static_cast<int>(leaseGpu->value[i])].emplace_back(leaseGpu->timeS[i],
                                                                            static_cast<int>(leaseApp->value[i]));
            std::map<int, std::vector<sim::AllocationInterval>> byGpu;
            for (const auto& iv : r.intervals)
                byGpu[iv.gpu].push_back(iv);
            for (auto& [g, ivs] : byGpu) {
                std::sort(ivs.begin(), ivs.end(), [](const auto& x, const auto& y) { return x.startS < y.startS; });
                for (std::size_t i = 1; i < ivs.size(); ++i)
                    RC_ASSERT(ivs[i].startS >= ivs[i - 1].endS - 1e-9);
                for (const auto& iv : ivs) {
                    const std::pair<double, int>* last = nullptr;
                    for (const auto& gr : grantsOf[g])
                        if (gr.first <= iv.startS + 1e-9)
                            last = &gr;
                    RC_ASSERT(last != nullptr);
                    RC_ASSERT(job(r, last->second).app == job(r, iv.job).app);
                    RC_ASSERT(iv.startS < last->first + lease + 1e-6);
                }
            }
            const auto again = run(w, spec, 7);
            RC_ASSERT(again.intervals.size() == r.intervals.size());
            for (std::size_t i = 0; i < r.intervals.size(); ++i) {
                RC_ASSERT(again.intervals[i].gpu == r.intervals[i].gpu);
                RC_ASSERT(again.intervals[i].startS == r.intervals[i].startS);
                RC_ASSERT(again.intervals[i].endS == r.intervals[i].endS);
            }
        }));
    }
};

QTEST_GUILESS_MAIN(TestThemisBaselines)
#include "test_themis_baselines.moc"
