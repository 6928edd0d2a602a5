// Sweeps (docs/sweeps.md): the spec, its resolution to points and keys, the scenario and workload edits, shards,
// the CPU estimate, and the local runner's resume and stop, over a temporary run store.
#include "store_fixtures.h"
#include "test_support.h"

#include "io/error.h"
#include "io/run_json.h"
#include "io/workload_loader.h"
#include "sched/registry.h"
#include "sim/simulator.h"
#include "store/run_store.h"
#include "store/run_writer.h"
#include "store/sqlite.h"
#include "store/sweep_records.h"
#include "sweep/shard.h"
#include "sweep/slurm_script.h"
#include "sweep/sweep_estimate.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"
#include "sweep/workload_cache.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <atomic>
#include <fstream>
#include <limits>
#include <set>

using namespace orrery;
using nlohmann::json;

namespace {

sweep::SweepPlan plan(const json& spec, const std::string& label = "t.json")
{
    return sweep::resolveSweep(sweep::parseSweepSpec(spec, label));
}

json spec(json axes)
{
    return {{"format", "orrery-sweep"}, {"version", 1}, {"name", "t"}, {"scenario", "default"}, {"axes", axes}};
}

std::string planError(const json& s)
{
    return test::errorOf([&] { plan(s); });
}

/** A small, quick sweep over the default scenario: 10 jobs, two policies, `seeds` seeds. */
json quickSpec(int seeds)
{
    json seedValues = json::array();
    for (int i = 0; i < seeds; ++i)
        seedValues.push_back(i);
    return spec({{{"kind", "job_limit"}, {"values", {10}}},
                 {{"kind", "policy"}, {"values", {"fifo", "sjf"}}},
                 {{"kind", "seed"}, {"values", seedValues}}});
}

std::int64_t count(store::RunStore& s, const std::string& sql)
{
    return s.connection().queryInt(sql);
}

} // namespace

class TestSweep : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void gridSizeIsTheProductOfAxisSizesAndKeysAreUnique()
    {
        ORRERY_CHECK_PROPERTY("grid = product of axis sizes, keys unique, every point names every axis", [] {
            // Up to three values per axis: subsets of a pool, by bit mask.
            const std::vector<std::string> pool = {"fifo", "sjf", "edf", "tiresias", "tiresias:backfill_limit=0"};
            const auto policyMask = *rc::gen::inRange(0, 1 << 5);
            const auto countMask = *rc::gen::inRange(0, 1 << 5);
            RC_PRE(__builtin_popcount(static_cast<unsigned>(policyMask)) <= 3 &&
                   __builtin_popcount(static_cast<unsigned>(countMask)) <= 3);
            std::vector<std::string> policies;
            std::vector<int> counts;
            for (int i = 0; i < 5; ++i) {
                if (policyMask & (1 << i))
                    policies.push_back(pool[static_cast<std::size_t>(i)]);
                if (countMask & (1 << i))
                    counts.push_back(i + 1);
            }
            const auto seedCount = *rc::gen::inRange(0, 4);
            const auto firstSeed = *rc::gen::inRange(0, 1000000);
            std::vector<int> seeds;
            for (int i = 0; i < seedCount; ++i)
                seeds.push_back(firstSeed + 7 * i);
            json axes = json::array();
            std::size_t product = 1;
            if (!counts.empty()) {
                axes.push_back({{"kind", "node_count"}, {"group", "rtx"}, {"values", counts}});
                product *= counts.size();
            }
            if (!policies.empty()) {
                axes.push_back({{"kind", "policy"}, {"values", policies}});
                product *= policies.size();
            } else {
                product *= 2; // the scenario's fifo and sjf
            }
            if (!seeds.empty()) {
                axes.push_back({{"kind", "seed"}, {"values", seeds}});
                product *= seeds.size();
            }
            const auto p = plan(spec(axes));
            RC_ASSERT(p.points.size() == product);
            std::set<std::string> keys;
            for (const auto& pt : p.points) {
                keys.insert(pt.key);
                RC_ASSERT(pt.axes.size() == p.axes.size());
            }
            RC_ASSERT(keys.size() == product);
            RC_ASSERT(p.scenarioCount ==
                      std::max<std::size_t>(counts.size(), 1) * std::max<std::size_t>(seeds.size(), 1));
            // The seed reaches no job of the default scenario (no generator): one workload per cluster.
            RC_ASSERT(p.workloadCount == std::max<std::size_t>(counts.size(), 1));
        });
    }

    void pointsFollowTheAxesFirstSlowest()
    {
        const auto p = plan(
            spec({{{"kind", "seed"}, {"values", {5, 6}}}, {{"kind", "policy"}, {"values", {"fifo", "sjf", "edf"}}}}));
        QCOMPARE(p.points.size(), std::size_t(6));
        QCOMPARE(p.points[0].seed, std::uint64_t(5));
        QCOMPARE(p.points[0].policy, std::string("fifo"));
        QCOMPARE(p.points[2].policy, std::string("edf"));
        QCOMPARE(p.points[3].seed, std::uint64_t(6));
        QCOMPARE(p.points[3].axes.dump(), std::string(R"({"policy":"fifo","seed":6})"));
        // The seed is the scenario's too (a generator draws with it) and is stored with the run.
        QCOMPARE(p.points[3].scenario->scenario.options.seed, std::uint64_t(6));
    }

    void keysDependOnTheRunNotOnTheSpelling()
    {
        // Axis order, an explicit default parameter and the object form name the same runs.
        const auto a = plan(
            spec({{{"kind", "policy"}, {"values", {"tiresias", "fifo"}}}, {{"kind", "seed"}, {"values", {1, 2}}}}));
        const auto b = plan(spec({{{"kind", "seed"}, {"values", {2, 1}}},
                                  {{"kind", "policy"}, {"values", {"fifo", json{{"name", "tiresias"}}}}}}));
        std::set<std::string> ka, kb;
        for (const auto& p : a.points)
            ka.insert(p.key);
        for (const auto& p : b.points)
            kb.insert(p.key);
        QVERIFY(ka == kb);
        // A parameter, a seed or an edit changes the key.
        const auto c = plan(spec(
            {{{"kind", "policy"}, {"values", {"tiresias:backfill_limit=0"}}}, {{"kind", "seed"}, {"values", {1}}}}));
        QVERIFY(!ka.count(c.points[0].key));
        const auto d = plan(spec({{{"kind", "policy"}, {"values", {"fifo"}}},
                                  {{"kind", "seed"}, {"values", {1}}},
                                  {{"kind", "arrival_rate_scale"}, {"values", {1}}}}));
        QVERIFY(!ka.count(d.points[0].key));
    }

    void clusterEditsReachTheScenario()
    {
        const auto p =
            plan(spec({{{"kind", "node_count"}, {"group", "rtx"}, {"values", {5}}},
                       {{"kind", "scale_nodes"}, {"group", "a100"}, {"values", {0.2, 2}}},
                       {{"kind", "gpu_type"}, {"group", "quad"}, {"values", {"v100"}}},
                       {{"kind", "add_nodes"}, {"gpu", "h100-sxm"}, {"gpus_per_node", 4}, {"values", {0, 2}}},
                       {{"kind", "policy"}, {"values", {"fifo"}}}}));
        QCOMPARE(p.points.size(), std::size_t(4));
        const auto& small = p.points[0].scenario->scenario.cluster; // a100 x 0.2 -> 1 node (at least one), no H100
        QCOMPARE(small.groups().size(), std::size_t(3));
        QCOMPARE(small.groups()[0].count, 5);
        QCOMPARE(small.groups()[1].count, 1);
        QCOMPARE(small.catalog().at(small.groups()[2].gpuType).name, std::string("v100-16gb"));
        QCOMPARE(small.totalGpus(), 5 * 8 + 8 + 4);
        const auto& big = p.points[3].scenario->scenario.cluster;
        QCOMPARE(big.groups()[1].count, 4);
        QCOMPARE(big.groups().size(), std::size_t(4));
        QCOMPARE(big.groups()[3].name, std::string("added-h100-sxm"));
        QCOMPARE(big.groups()[3].count, 2);
        QCOMPARE(big.totalGpus(), 5 * 8 + 4 * 8 + 4 + 2 * 4);
    }

    void estimateErrorAndModelMixEdits()
    {
        const auto p = plan(
            spec({{{"kind", "estimate_error"}, {"values", {"none", json{{"model", "uniform"}, {"scale", 0.3}}}}}}));
        QCOMPARE(p.points[0].scenario->scenario.options.estimateError, std::string("none"));
        QCOMPARE(p.points[2].scenario->scenario.options.estimateError, std::string("uniform"));
        QCOMPARE(p.points[2].scenario->scenario.options.estimateErrorScale, 0.3);
        // The default scenario has no generator: a mix axis is refused, naming the axis and value.
        const std::string err =
            planError(spec({{{"kind", "model_mix"}, {"values", {json::array({json{{"gpus", {1}}}})}}}}));
        QVERIFY2(err.find("t.json: axes[0].values[0]: axis \"model_mix\"") == 0, err.c_str());
        QVERIFY2(err.find("no workload.generator") != std::string::npos, err.c_str());
        // A generator's mix is replaced.
        const auto scenario = m_dir.filePath("gen.json").toStdString();
        test::writeGeneratorScenario(scenario, "gen", 50);
        json s = spec({{{"kind", "model_mix"}, {"values", {json::array({json{{"gpus", {8}}}})}}}});
        s["scenario"] = scenario;
        const auto g = plan(s);
        const auto& mix = g.points[0].scenario->scenario.workload.generator->mix;
        QCOMPARE(mix.size(), std::size_t(1));
        QCOMPARE(mix[0].gpus, std::vector<int>{8});
        for (const auto& j : io::loadJobs(g.points[0].scenario->scenario))
            QCOMPARE(j.gpus, 8);
    }

    void workloadEditsScaleArrivalsAndLimitJobs()
    {
        const auto p = plan(spec({{{"kind", "arrival_rate_scale"}, {"values", {1, 2}}},
                                  {{"kind", "job_limit"}, {"values", {7, 1000}}},
                                  {{"kind", "policy"}, {"values", {"fifo"}}}}));
        const auto base = sweep::prepareResolved(*p.points[1].scenario); // rate x1, limit above the 60 jobs
        QCOMPARE(base.jobCount(), std::size_t(60));
        const auto limited = sweep::prepareResolved(*p.points[0].scenario);
        QCOMPARE(limited.jobCount(), std::size_t(7));
        const auto fast = sweep::prepareResolved(*p.points[3].scenario);
        QCOMPARE(fast.jobCount(), std::size_t(60));
        for (std::size_t i = 0; i < 60; ++i) {
            QCOMPARE(fast.jobs()[i].arrivalS, base.jobs()[i].arrivalS / 2);
            QCOMPARE(fast.jobs()[i].id, base.jobs()[i].id);
        }
        for (std::size_t i = 0; i < 7; ++i)
            QCOMPARE(limited.jobs()[i].id, base.jobs()[i].id); // the earliest ones
        // Deadlines keep their distance to the arrival.
        sweep::WorkloadEdits e;
        e.arrivalRateScale = 4;
        std::vector<workload::Job> jobs(1);
        jobs[0].arrivalS = 400;
        jobs[0].deadlineS = 1000;
        jobs[0].deadlines = {{900, 1}};
        e.apply(jobs);
        QCOMPARE(jobs[0].arrivalS, 100.0);
        QCOMPARE(*jobs[0].deadlineS, 700.0);
        QCOMPARE(jobs[0].deadlines[0].atS, 600.0);
        QCOMPARE(e.toJson().dump(), std::string(R"({"arrival_rate_scale":4.0})"));
    }

    void explicitPoints()
    {
        json s = spec({{{"kind", "gpu_type"}, {"group", "a100"}}, {{"kind", "policy"}}, {{"kind", "job_limit"}}});
        s["points"] = {{{"gpu_type:a100", "v100"}, {"policy", "fifo"}}, {{"policy", "sjf"}, {"job_limit", 5}}};
        const auto p = plan(s);
        QCOMPARE(p.points.size(), std::size_t(2));
        const auto typeOf = [&](std::size_t point) {
            const auto& c = p.points[point].scenario->scenario.cluster;
            return c.catalog().at(c.groups()[1].gpuType).name;
        };
        QCOMPARE(typeOf(0), std::string("v100-16gb"));
        QCOMPARE(typeOf(1), std::string("a100-40gb-sxm"));
        QCOMPARE(*p.points[1].scenario->edits.jobLimit, 5LL);
        QCOMPARE(p.points[1].axes.dump(), std::string(R"({"job_limit":5,"policy":"sjf"})"));
        // Without a policy axis each point runs every policy of the scenario.
        json t = spec({{{"kind", "seed"}}});
        t["points"] = {{{"seed", 3}}};
        QCOMPARE(plan(t).points.size(), std::size_t(2));
    }

    void errorsNameTheAxisAndTheValue()
    {
        const std::vector<std::pair<json, std::string>> cases = {
            {spec({{{"kind", "gpu_type"}, {"group", "rtx"}, {"values", {"v100", "h200x"}}}}),
             "t.json: axes[0].values[1]: axis \"gpu_type:rtx\" = \"h200x\": "},
            {spec({{{"kind", "node_count"}, {"group", "rtxx"}, {"values", {2}}}}),
             "no node group \"rtxx\" (did you mean \"rtx\"?)"},
            {spec({{{"kind", "policy"}, {"values", {"fifo", "fifoo"}}}}),
             "t.json: axes[0].values[1]: axis \"policy\" = \"fifoo\""},
            {spec({{{"kind", "policy"}, {"values", {"tiresias:backfill_limit=-5"}}}}), "t.json: axes[0].values[0]"},
            {spec({{{"kind", "seed"}, {"values", {-1}}}}), "t.json: axes[0].values[0]: axis \"seed\": expected a seed, "
                                                           "an integer from 0 to 9223372036854775807, got -1"},
            {spec({{{"kind", "node_count"}, {"group", "rtx"}, {"values", {2, 2}}}}),
             "t.json: axes[0].values[1]: axis \"node_count:rtx\": value 2 is listed twice (also at axes[0].values[0])"},
            {spec({{{"kind", "scale_nodes"}, {"group", "rtx"}, {"values", {0}}}}),
             "axes[0].values[0]: axis \"scale_nodes:rtx\": expected a positive factor"},
            {spec({{{"kind", "seed"}, {"values", {1}}}, {{"kind", "job_limit"}, {"name", "seed"}, {"values", {3}}}}),
             "t.json: axes[1].name: two axes are named \"seed\""},
            {spec({{{"kind", "sed"}, {"values", {1}}}}), "t.json: axes[0].kind: expected one of policy, seed"},
            {spec({{{"kind", "seed"}, {"values", {1}}, {"valeus", 2}}}), "valeus"},
            {spec({{{"kind", "seed"}}}), "t.json: axes[0].values: missing required field"},
            {spec({{{"kind", "node_count"}, {"group", "rtx"}, {"values", {2}}},
                   {{"kind", "gpu_type"}, {"group", "rtx"}, {"values", {"v100"}}}}),
             "t.json: axes[1].group: node group \"rtx\" is already edited by axis \"node_count:rtx\""},
            {spec({{{"kind", "add_nodes"}, {"gpu", "nope"}, {"values", {1}}}}),
             "t.json: axes[0].values[0]: axis \"add_nodes:nope\" = 1"},
            {spec({{{"kind", "add_nodes"}, {"gpu", "v100"}, {"group", "rtx"}, {"values", {1}}}}),
             "already has a node group \"rtx\""},
        };
        for (const auto& [s, want] : cases) {
            const std::string got = planError(s);
            QVERIFY2(got.find(want) != std::string::npos, (got + "\n  expected: " + want).c_str());
        }
        json points = spec({{{"kind", "policy"}}, {{"kind", "seed"}}});
        points["points"] = {{{"policy", "fifo"}, {"seed", 1}}, {{"seed", 1}, {"policy", "fifo"}}};
        QVERIFY(planError(points).find("t.json: points: points 0 ({\"policy\":\"fifo\",\"seed\":1}) and 1") !=
                std::string::npos);
        points["points"] = {{{"polcy", "fifo"}}};
        QVERIFY(planError(points).find("points[0].polcy: no axis is named \"polcy\" (did you mean \"policy\"?)") !=
                std::string::npos);
        points["points"] = {{{"seed", 1}}};
        QVERIFY(planError(points).find("points[0]: the point names no policy") != std::string::npos);
        QVERIFY(planError(json{{"format", "orrery-sweep"}, {"version", 2}, {"name", "x"}, {"axes", json::array()}})
                    .find("newer than this Orrery reads") != std::string::npos);
        json missing = spec(json::array());
        missing["scenario"] = "no-such-scenario.json";
        QVERIFY2(planError(missing).find("t.json: scenario: the base scenario cannot be read") == 0,
                 planError(missing).c_str());
    }

    void shardsCoverEveryPointOnce()
    {
        ORRERY_CHECK_PROPERTY("the shards of a sweep partition its points into near-equal blocks", [] {
            const auto points = *rc::gen::inRange<std::size_t>(0, 5000);
            const auto n = *rc::gen::inRange<std::size_t>(1, 1200);
            std::size_t next = 0, smallest = points, largest = 0;
            for (std::size_t i = 0; i < n; ++i) {
                const sweep::Shard s{i, n};
                RC_ASSERT(s.begin(points) == next);
                next = s.end(points);
                smallest = std::min(smallest, s.end(points) - s.begin(points));
                largest = std::max(largest, s.end(points) - s.begin(points));
            }
            RC_ASSERT(next == points);
            RC_ASSERT(largest - smallest <= 1);
        });
        QCOMPARE(sweep::parseShard("3/8").index, std::size_t(3));
        for (const char* bad : {"8/8", "1", "a/2", "1/0", "-1/3", "1/2/3", "1/2000000"})
            QVERIFY2(test::errorOf([&] { sweep::parseShard(bad); }).find("--shard: expected I/N") == 0, bad);
    }

    void resumeRunsNothingTwice()
    {
        // One resolved plan; the store is new per case.
        const auto p = plan(quickSpec(3)); // 2 policies x 3 seeds
        int n = 0;
        ORRERY_CHECK_PROPERTY("any sequence of shard runs and a final full run stores every point once", [&] {
            const auto shards = *rc::gen::inRange<std::size_t>(1, 5);
            const auto order = *rc::gen::container<std::vector<std::size_t>>(*rc::gen::inRange<std::size_t>(0, 6),
                                                                             rc::gen::inRange<std::size_t>(0, shards));
            const std::string db = m_dir.filePath(QString("resume-%1.sqlite").arg(n++)).toStdString();
            store::RunStore s(db);
            sweep::WorkloadCache cache;
            std::size_t ran = 0;
            for (const auto i : order) {
                sweep::SweepRunOptions o;
                o.shard = {i, shards};
                o.jobs = 2;
                ran += sweep::runSweep(p, s, o, cache).ran;
            }
            const auto last = sweep::runSweep(p, s, {}, cache);
            ran += last.ran;
            RC_ASSERT(ran == p.points.size());
            RC_ASSERT(last.alreadyStored + last.ran == p.points.size());
            RC_ASSERT(count(s, "SELECT count(*) FROM runs") == std::int64_t(p.points.size()));
            RC_ASSERT(count(s, "SELECT count(DISTINCT point_key) FROM sweep_points") == std::int64_t(p.points.size()));
            RC_ASSERT(sweep::runSweep(p, s, {}, cache).ran == 0u);
            RC_ASSERT(cache.held() == 0u); // every workload freed after its last point
        });
    }

    void storedPointsAreNormalRuns()
    {
        const auto p = plan(quickSpec(1));
        const std::string db = m_dir.filePath("normal.sqlite").toStdString();
        store::RunStore s(db);
        sweep::WorkloadCache cache;
        const auto summary = sweep::runSweep(p, s, {}, cache);
        QCOMPARE(summary.ran, std::size_t(2));
        const auto rows = store::sweepPoints(s.connection(), "t");
        QCOMPARE(rows.size(), std::size_t(2));
        for (const auto& row : rows) {
            const auto& point =
                *std::find_if(p.points.begin(), p.points.end(), [&](auto& x) { return x.key == row.pointKey; });
            QCOMPARE(row.axesJson, point.axes.dump());
            QCOMPARE(row.status, std::string("completed"));
            // The same numbers as simulating the point directly.
            const auto workload = sweep::prepareResolved(*point.scenario);
            auto policy = sched::makePolicy(point.policy);
            const auto direct = sim::simulate(workload, *policy, point.seed);
            const auto stored = s.loadRun(row.runId);
            QCOMPARE(stored.result.jobs.size(), direct.jobs.size());
            for (std::size_t j = 0; j < direct.jobs.size(); ++j)
                QCOMPARE(stored.result.jobs[j].endS, direct.jobs[j].endS);
            QCOMPARE(stored.record.policy, point.policy);
            QVERIFY(stored.record.optionsJson.find("\"sweep_workload_edits\":{\"job_limit\":10}") != std::string::npos);
        }
        QCOMPARE(store::sweepAxes(s.connection(), "t"), (std::vector<std::string>{"job_limit", "policy", "seed"}));
    }

    void stopKeepsFinishedPointsAndResumes()
    {
        const auto p = plan(quickSpec(6)); // 12 points
        const std::string db = m_dir.filePath("stop.sqlite").toStdString();
        store::RunStore s(db);
        sweep::WorkloadCache cache;
        std::stop_source stop;
        sweep::SweepRunOptions o;
        o.stop = stop.get_token();
        o.maxWaitingPoints = 1;
        o.onProgress = [&](const sweep::SweepProgress& pr) {
            if (pr.done == 3)
                stop.request_stop();
        };
        const auto first = sweep::runSweep(p, s, o, cache);
        QVERIFY(first.stopped);
        // The points finished when the stop came are stored too: the one waiting for the store and the one that
        // was simulating (which ends as it is tiny; a long one is abandoned). The rest are left.
        QVERIFY2(first.ran >= 3 && first.ran <= 5, std::to_string(first.ran).c_str());
        QCOMPARE(first.ran + first.notRun, std::size_t(12));
        QCOMPARE(count(s, "SELECT count(*) FROM runs"), std::int64_t(first.ran)); // abandoned points are not stored
        QCOMPARE(count(s, "SELECT count(*) FROM runs WHERE status = 'completed'"), std::int64_t(first.ran));
        const auto second = sweep::runSweep(p, s, {}, cache);
        QCOMPARE(second.alreadyStored, first.ran);
        QCOMPARE(second.ran, 12 - first.ran);
        QCOMPARE(count(s, "SELECT count(*) FROM runs WHERE status = 'completed'"), std::int64_t(12));
    }

    void batchedPointsEqualPointsStoredOneByOne()
    {
        // The runner's writer stores finished points several to a transaction; each must be the run storeRun stores
        // alone. The estimate's samples go through that writer with results known beforehand, so both stores get
        // the very same results (a simulation again would differ in its wall-clock times).
        const auto p = plan(quickSpec(6)); // 12 points
        std::vector<sweep::SampledPoint> samples;
        for (const auto& point : p.points) {
            const auto workload = sweep::prepareResolved(*point.scenario);
            auto policy = sched::makePolicy(point.policy);
            samples.push_back({point.index, sim::simulate(workload, *policy, point.seed), 0.0});
        }
        store::RunStore one(m_dir.filePath("one-by-one.sqlite").toStdString());
        for (const auto& sample : samples)
            one.storeRun(sweep::pointRunInfo(p, p.points[sample.index]), sample.result);
        store::RunStore batched(m_dir.filePath("batched.sqlite").toStdString());
        sweep::WorkloadCache cache;
        const auto summary = sweep::runSweep(p, batched, {}, cache, samples);
        QCOMPARE(summary.ran, std::size_t(12));
        QCOMPARE(summary.storeBatches, std::size_t(1)); // twelve runs, one transaction
        const auto a = store::sweepPoints(one.connection(), "t");
        const auto b = store::sweepPoints(batched.connection(), "t");
        QCOMPARE(a.size(), std::size_t(12));
        QCOMPARE(b.size(), a.size());
        const auto comparable = [](store::RunStore& s, std::int64_t id) {
            json run = io::storedRunToJson(s.loadRun(id));
            for (const char* clock : {"started", "finished"})
                run["run"].erase(clock);
            return run;
        };
        for (std::size_t i = 0; i < a.size(); ++i) {
            QCOMPARE(b[i].pointKey, a[i].pointKey);
            QCOMPARE(b[i].axesJson, a[i].axesJson);
            QCOMPARE(b[i].status, std::string("completed"));
            const json x = comparable(one, a[i].runId);
            const json y = comparable(batched, b[i].runId);
            QVERIFY2(x == y,
                     fmt::format("point {}: {} vs {}", i, x.dump().substr(0, 300), y.dump().substr(0, 300)).c_str());
        }
        QCOMPARE(count(batched, "SELECT count(*) FROM scenarios"), count(one, "SELECT count(*) FROM scenarios"));
    }

    void preparedPointsStoreTheRowsOfRunsStoredOneByOne()
    {
        // The runner prepares each finished point for the store on the thread that has it (store::prepareRun) and its
        // writer only binds and steps. The store it leaves must be, row for row and blob for blob, the store the same
        // points make stored one by one through RunStore by a run writer (beginRun, then finish), as every run was
        // stored before points were prepared. The estimate's samples give both the very same results.
        const auto p = plan(quickSpec(3)); // 6 points
        std::vector<sweep::SampledPoint> samples;
        for (const auto& point : p.points) {
            const auto workload = sweep::prepareResolved(*point.scenario);
            auto policy = sched::makePolicy(point.policy);
            samples.push_back({point.index, sim::simulate(workload, *policy, point.seed), 0.0});
        }
        const std::string onePath = m_dir.filePath("rows-one.sqlite").toStdString();
        const std::string sweepPath = m_dir.filePath("rows-sweep.sqlite").toStdString();
        {
            store::RunStore one(onePath);
            store::saveSweep(one.connection(), p.spec.name, json(p.axisNames()).dump(), p.spec.document.dump());
            for (const auto& sample : samples) {
                store::RunInfo info = sweep::pointRunInfo(p, p.points[sample.index]);
                info.policy = sample.result.policy;
                info.seed = sample.result.seed;
                store::RunWriter writer = one.beginRun(info, std::numeric_limits<int>::max());
                writer.finish(sample.result, store::RunStatus::Completed);
            }
            store::RunStore swept(sweepPath);
            sweep::WorkloadCache cache;
            QCOMPARE(sweep::runSweep(p, swept, {}, cache, samples).ran, std::size_t(6));
        }
        const std::string a = test::storeRows(onePath);
        const std::string b = test::storeRows(sweepPath);
        QVERIFY(a.find("\njob_chunks:\nrowid=1 ") != std::string::npos);
        QVERIFY(a.find("\nsweep_points:\nrowid=1 ") != std::string::npos);
        QCOMPARE(b, a);
    }

    void aPointTheStoreCannotKeepIsStoredFailed()
    {
        const auto p = plan(quickSpec(2)); // 4 points
        std::vector<sweep::SampledPoint> samples;
        for (const auto& point : p.points) {
            const auto workload = sweep::prepareResolved(*point.scenario);
            auto policy = sched::makePolicy(point.policy);
            samples.push_back({point.index, sim::simulate(workload, *policy, point.seed), 0.0});
        }
        samples[2].result.jobs[0].id = std::string("j\0", 2);
        store::RunStore s(m_dir.filePath("unkeepable.sqlite").toStdString());
        sweep::WorkloadCache cache;
        const auto summary = sweep::runSweep(p, s, {}, cache, samples);
        QCOMPARE(summary.ran, std::size_t(3));
        QCOMPARE(summary.failed, std::size_t(1));
        QCOMPARE(summary.failures[0].index, std::size_t(2));
        QVERIFY2(summary.failures[0].error.find("holds a NUL character") != std::string::npos,
                 summary.failures[0].error.c_str());
        QCOMPARE(count(s, "SELECT count(*) FROM runs WHERE status = 'completed'"), std::int64_t(3));
        store::Statement failed(s.connection(), "SELECT p.point_key, r.error FROM runs r JOIN sweep_points p ON "
                                                "p.run_id = r.id WHERE r.status = 'failed'");
        QVERIFY(failed.step());
        QCOMPARE(failed.columnText(0), p.points[2].key);
        QCOMPARE(failed.columnText(1), summary.failures[0].error);
        QVERIFY(!failed.step());
    }

    void aFailingPointIsStoredFailedAndRetried()
    {
        // A job that needs an A100: on the V100 variant of the cluster it can run nowhere, which the prepared
        // workload refuses.
        const auto scenario = m_dir.filePath("pinned.json").toStdString();
        std::ofstream(scenario) << R"({"format":"orrery-scenario","version":1,"name":"pinned",
          "cluster":{"nodes":[{"name":"g","gpu":"a100-40gb-sxm","count":1,"gpus_per_node":8}]},
          "workload":{"jobs":[{"id":"a","arrival_s":0,"gpus":2,"gpu_type":"a100-40gb-sxm","duration_s":600}]},
          "policies":["fifo"]})";
        json sp = spec({{{"kind", "gpu_type"}, {"group", "g"}, {"values", {"a100-40gb-sxm", "v100"}}}});
        sp["scenario"] = scenario;
        const auto p = plan(sp);
        store::RunStore s(m_dir.filePath("fail.sqlite").toStdString());
        sweep::WorkloadCache cache;
        const auto summary = sweep::runSweep(p, s, {}, cache);
        QCOMPARE(summary.ran, std::size_t(1));
        QCOMPARE(summary.failed, std::size_t(1));
        QCOMPARE(summary.failures[0].index, std::size_t(1));
        QVERIFY(summary.failures[0].runId > 0);
        // Rows come in run-id order, which is the order the writer stored them in: the failed point (refused at
        // once) may be stored before the other one finishes simulating, so find it by its key.
        const auto failedRow = [&] {
            const auto rows = store::sweepPoints(s.connection(), "t");
            const auto it =
                std::find_if(rows.begin(), rows.end(), [&](const auto& r) { return r.pointKey == p.points[1].key; });
            return std::make_pair(rows.size(), it == rows.end() ? store::SweepPointRow{} : *it);
        };
        const auto [count, row] = failedRow();
        QCOMPARE(count, std::size_t(2));
        QCOMPARE(row.status, std::string("failed"));
        QCOMPARE(row.error, summary.failures[0].error);
        // A failed point is not done: the next run tries it again.
        const auto again = sweep::runSweep(p, s, {}, cache);
        QCOMPARE(again.alreadyStored, std::size_t(1));
        QCOMPARE(again.failed, std::size_t(1));
        QCOMPARE(failedRow().second.attempts, 2);
    }

    void estimateSamplesOnePointPerPolicyAndStoresThem()
    {
        const auto p = plan(quickSpec(4)); // 8 points, 2 policies
        sweep::WorkloadCache cache;
        std::vector<std::size_t> all;
        for (std::size_t i = 0; i < p.points.size(); ++i)
            all.push_back(i);
        auto est = sweep::estimateCpu(p, all, cache, 10.0, 8);
        QCOMPARE(est.samples.size(), std::size_t(2));
        QCOMPARE(est.baseJobs, std::size_t(60));
        QVERIFY(est.cpuS > 0);
        // Eight points cost about four times the two sampled ones (the same per-job cost, the same job count).
        double sampled = 0;
        for (const auto& s : est.samples)
            sampled += s.cpuS;
        QVERIFY2(est.cpuS >= 3.9 * sampled && est.cpuS < 4.1 * sampled + 0.05,
                 fmt::format("{} vs {}", est.cpuS, sampled).c_str());
        QVERIFY(est.method.find("2 sampled points (2 of 2 policies)") == 0);
        // The samples are stored as they are, and are the runs a simulation would have stored.
        store::RunStore s(m_dir.filePath("sampled.sqlite").toStdString());
        const auto samples = est.samples;
        const auto summary = sweep::runSweep(p, s, {}, cache, std::move(est.samples));
        QCOMPARE(summary.ran, std::size_t(8));
        for (const auto& sample : samples) {
            const auto rows = store::sweepPoints(s.connection(), "t");
            const auto row = std::find_if(rows.begin(), rows.end(),
                                          [&](auto& r) { return r.pointKey == p.points[sample.index].key; });
            QVERIFY(row != rows.end());
            const auto stored = s.loadRun(row->runId).result;
            QCOMPARE(stored.jobs.size(), sample.result.jobs.size());
            for (std::size_t j = 0; j < stored.jobs.size(); ++j)
                QCOMPARE(stored.jobs[j].endS, sample.result.jobs[j].endS);
        }
    }

    void slurmHelpers()
    {
        QCOMPARE(sweep::shellQuote("it's"), std::string("'it'\\''s'"));
        QCOMPARE(sweep::arraySpec({7, 0, 1, 2, 9, 10, 3}, 4), std::string("0-3,7,9-10%4"));
        QCOMPARE(sweep::arraySpec({5}, 0), std::string("5"));
        QCOMPARE(sweep::slurmJobName("a b/$(x)"), std::string("orrery-sweep-a_b___x_"));
        const auto q = sweep::parseSqueue("1234_0 R\n1234_7 PD\ngarbage\n1234 PD\n");
        QCOMPARE(q.size(), std::size_t(2));
        QCOMPARE(q[1].task, std::size_t(7));
        QCOMPARE(q[1].state, std::string("PD"));
        const auto a = sweep::parseSacct("55_3|FAILED|1:0\n55_4|CANCELLED by 0|0:15\n55.batch|COMPLETED|0:0\n");
        QCOMPARE(a.size(), std::size_t(2));
        QCOMPARE(a[0].state, std::string("FAILED"));
        QCOMPARE(a[0].exitCode, std::string("1:0"));
        QCOMPARE(a[1].state, std::string("CANCELLED"));
        sweep::SlurmBatch b;
        b.dir = "/tmp/x";
        b.cli = "/usr/bin/orrery-cli";
        b.tasks = 3;
        b.partition = "gpu;rm -rf /";
        QVERIFY(test::errorOf([&] { sweep::sbatchScript(b); }).find("--partition: expected a Slurm partition") == 0);
        b.partition = "gpu";
        b.time = "1:00\n#SBATCH --x";
        QVERIFY(test::errorOf([&] { sweep::sbatchScript(b); }).find("--time: expected") == 0);
        b.time = "1-12:00:00";
        b.umask = 0;
        const std::string script = sweep::sbatchScript(b);
        QVERIFY(script.find("#SBATCH --array=0-2\n") != std::string::npos);
        QVERIFY(script.find("#SBATCH --partition=gpu\n") != std::string::npos);
        QVERIFY(script.find("umask 0002\n") != std::string::npos); // never world-writable
    }

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestSweep)
#include "test_sweep.moc"
