// The `pollux` policy (core/sched/pollux.cpp; docs/models/goodput.md, "pollux"): Pollux's genetic search over
// replica placements, on hand-sized cases whose best allocation is known, and its invariants on random ones.
#include "test_support.h"

#include "io/scenario.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "sim/simulator.h"
#include "sim_test_helpers.h"

#include <map>
#include <rapidcheck.h>
#include <set>

using namespace orrery;

namespace {

sim::RunResult run(const sim::PreparedWorkload& w, const std::string& spec, std::uint64_t seed = 1)
{
    auto p = sched::makePolicy(spec);
    return sim::simulate(w, *p, seed);
}

workload::Job elastic(std::string id, double arrivalS, int gpus, double durationS, int lo, int hi)
{
    workload::Job j = test::fixedJob(std::move(id), arrivalS, gpus, durationS);
    j.minGpus = lo;
    j.maxGpus = hi;
    return j;
}

/** GPUs job j holds at time t (intervals covering t). */
std::vector<int> gpusAt(const sim::RunResult& r, int j, double t)
{
    std::vector<int> out;
    for (const auto& iv : r.intervals)
        if (iv.job == j && iv.startS <= t && t < iv.endS)
            out.push_back(iv.gpu);
    return out;
}

} // namespace

class TestPollux : public QObject
{
    Q_OBJECT

private slots:
    /**
     * Two elastic jobs on one node of 4 GPUs, arriving at 10 s: at the first round (60 s; age 50, restart factor
     * 50 / 80) the power mean with p = -1 is largest when they share the node 2 + 2 (scaled speed-ups 0.156 each,
     * against 0.234 and 0.078 for 3 + 1, and the floor 0.001 for a job left out), and they keep it.
     */
    void sharesANodeFairly()
    {
        io::ScenarioOptions o;
        o.restartPenaltyS = 0;
        const auto w = test::prepare(test::makeCluster({{"v100", 1, 4}}),
                                     {elastic("a", 10, 4, 20000, 1, 4), elastic("b", 10, 4, 20000, 1, 4)}, o);
        const auto r = run(w, "pollux:population=20:generations=20");
        QCOMPARE(gpusAt(r, 0, 30).size(), std::size_t(0)); // arrived, but no round yet
        for (double t : {90.0, 3000.0}) {
            QCOMPARE(gpusAt(r, 0, t).size(), std::size_t(2));
            QCOMPARE(gpusAt(r, 1, t).size(), std::size_t(2));
        }
        for (const auto& rec : r.jobs)
            QVERIFY(rec.finished());
        // Decisions on the 60 s grid.
        for (const auto& iv : r.intervals)
            QVERIFY(std::abs(iv.startS - 60 * std::round(iv.startS / 60)) < 1e-6);
    }

    /** A rigid job (range of one count) gets that count or nothing; a queue of them never overfills the node. */
    void rigidJobsGetTheirCountOrNothing()
    {
        const auto w = test::prepare(
            test::makeCluster({{"v100", 1, 4}}),
            {test::fixedJob("a", 0, 2, 600), test::fixedJob("b", 0, 2, 600), test::fixedJob("c", 0, 2, 600)});
        const auto r = run(w, "pollux:population=20:generations=10");
        for (const auto& iv : r.intervals) {
            const auto held = gpusAt(r, iv.job, iv.startS);
            QCOMPARE(held.size(), std::size_t(2));
        }
        for (const auto& rec : r.jobs)
            QVERIFY(rec.finished());
        // The parameters are checked: p = 0 (the geometric mean) is refused by name.
        QVERIFY(test::errorOf([] { sched::makePolicy("pollux:p=0"); }).find("pollux") != std::string::npos);
    }

    /**
     * Random elastic workloads on two GPU types: every allocation within the job's range, on one type, at most
     * one job spread over several nodes per node, the same run for the same seed.
     */
    void invariantsOnRandomWorkloads()
    {
        const bool ok = rc::check("pollux: ranges, one type, one distributed job per node, deterministic", [] {
            const int jobs = *rc::gen::inRange(1, 9);
            std::vector<workload::Job> list;
            for (int i = 0; i < jobs; ++i) {
                const int lo = *rc::gen::inRange(1, 3);
                const int hi = lo + *rc::gen::inRange(0, 6);
                list.push_back(elastic("j" + std::to_string(i), *rc::gen::inRange(0, 400), lo,
                                       *rc::gen::inRange(100, 3000), lo, hi));
            }
            const auto w = test::prepare(test::makeCluster({{"v100", 2, 4}, {"k80", 2, 4}}), list);
            const auto r = run(w, "pollux:population=12:generations=6", 7);
            const auto again = run(w, "pollux:population=12:generations=6", 7);
            RC_ASSERT(r.intervals.size() == again.intervals.size());
            for (std::size_t k = 0; k < r.intervals.size(); ++k)
                RC_ASSERT(r.intervals[k].startS == again.intervals[k].startS &&
                          r.intervals[k].gpu == again.intervals[k].gpu);
            for (const auto& rec : r.jobs)
                RC_ASSERT(rec.finished());
            std::set<double> starts;
            for (const auto& iv : r.intervals)
                starts.insert(iv.startS);
            for (double t : starts) {
                std::map<int, int> spreadOnNode; // node -> distributed jobs on it
                for (int j = 0; j < w.jobCount(); ++j) {
                    const auto held = gpusAt(r, j, t);
                    if (held.empty())
                        continue;
                    RC_ASSERT(static_cast<int>(held.size()) >= w.job(j).minGpus);
                    RC_ASSERT(static_cast<int>(held.size()) <= w.job(j).maxGpus);
                    std::set<int> types, nodes;
                    for (int g : held) {
                        types.insert(w.typeOfGpu(g));
                        nodes.insert(w.cluster().nodeOfGpu(g));
                    }
                    RC_ASSERT(types.size() == 1u);
                    if (nodes.size() > 1)
                        for (int n : nodes)
                            RC_ASSERT(++spreadOnNode[n] == 1);
                }
            }
        });
        QVERIFY(ok);
    }

    /** On Pollux's own workload and profiles (the first jobs of workload-6 on its 16 x 4 T4): every job finishes
     *  and the search tunes batches (recorded as the job's `batch` note). */
    void runsAPolluxWorkload()
    {
        const std::string path = test::sharedDataPath("pollux/workloads/workload-6.csv");
        const std::string profiles = test::sharedDataPath("sia/profiles");
        if (path.empty() || profiles.empty())
            QSKIP("shared data not present");
        const nlohmann::json cluster = {
            {"nodes", {{{"name", "t4"}, {"gpu", "t4"}, {"count", 16}, {"gpus_per_node", 4}}}}};
        const auto doc = test::goodputScenarioJson(path, 12, cluster, {{"restart_penalty_s", 30}}, 32, profiles);
        const auto prepared = sim::prepareScenario(io::parseScenario(doc, "pollux6.json"));
        const auto r = run(prepared, "pollux:population=20:generations=10");
        bool tuned = false;
        for (const auto& rec : r.jobs) {
            QVERIFY2(rec.finished(), rec.id.c_str());
            for (const auto& [k, v] : rec.extras)
                tuned = tuned || k == "batch";
        }
        QVERIFY(tuned);
    }
};

QTEST_GUILESS_MAIN(TestPollux)
#include "test_pollux.moc"
