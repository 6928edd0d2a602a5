// Sweeps (docs/sweeps.md): the spec, its resolution to points and keys, the scenario and workload edits, shards and
// the Slurm helpers. The runner is test_sweep_runner.cpp.
#include "store_fixtures.h"
#include "sweep_fixtures.h"
#include "test_support.h"

#include "io/error.h"
#include "io/workload_loader.h"
#include "sweep/shard.h"
#include "sweep/slurm_script.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"
#include "sweep/workload_cache.h"
#include "util/hash.h"
#include "util/text.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

using namespace orrery;
using nlohmann::json;

namespace {

using test::sweepPlan;
using test::sweepSpec;

std::string planError(const json& s)
{
    return test::errorOf([&] { sweepPlan(s); });
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
            const auto p = sweepPlan(sweepSpec(axes));
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
        const auto p = sweepPlan(sweepSpec(
            {{{"kind", "seed"}, {"values", {5, 6}}}, {{"kind", "policy"}, {"values", {"fifo", "sjf", "edf"}}}}));
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
        const auto a = sweepPlan(sweepSpec(
            {{{"kind", "policy"}, {"values", {"tiresias", "fifo"}}}, {{"kind", "seed"}, {"values", {1, 2}}}}));
        const auto b = sweepPlan(sweepSpec({{{"kind", "seed"}, {"values", {2, 1}}},
                                            {{"kind", "policy"}, {"values", {"fifo", json{{"name", "tiresias"}}}}}}));
        std::set<std::string> ka, kb;
        for (const auto& p : a.points)
            ka.insert(p.key);
        for (const auto& p : b.points)
            kb.insert(p.key);
        QVERIFY(ka == kb);
        // A parameter, a seed or an edit changes the key.
        const auto c = sweepPlan(sweepSpec(
            {{{"kind", "policy"}, {"values", {"tiresias:backfill_limit=0"}}}, {{"kind", "seed"}, {"values", {1}}}}));
        QVERIFY(!ka.count(c.points[0].key));
        const auto d = sweepPlan(sweepSpec({{{"kind", "policy"}, {"values", {"fifo"}}},
                                            {{"kind", "seed"}, {"values", {1}}},
                                            {{"kind", "arrival_rate_scale"}, {"values", {1}}}}));
        QVERIFY(!ka.count(d.points[0].key));
    }

    void clusterEditsReachTheScenario()
    {
        const auto p =
            sweepPlan(sweepSpec({{{"kind", "node_count"}, {"group", "rtx"}, {"values", {5}}},
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
        const auto p = sweepPlan(sweepSpec(
            {{{"kind", "estimate_error"}, {"values", {"none", json{{"model", "uniform"}, {"scale", 0.3}}}}}}));
        QCOMPARE(p.points[0].scenario->scenario.options.estimateError, std::string("none"));
        QCOMPARE(p.points[2].scenario->scenario.options.estimateError, std::string("uniform"));
        QCOMPARE(p.points[2].scenario->scenario.options.estimateErrorScale, 0.3);
        // The default scenario has no generator: a mix axis is refused, naming the axis and value.
        const std::string err =
            planError(sweepSpec({{{"kind", "model_mix"}, {"values", {json::array({json{{"gpus", {1}}}})}}}}));
        QVERIFY2(err.find("t.json: axes[0].values[0]: axis \"model_mix\"") == 0, err.c_str());
        QVERIFY2(err.find("no workload.generator") != std::string::npos, err.c_str());
        // A generator's mix is replaced.
        const auto scenario = m_dir.filePath("gen.json").toStdString();
        test::writeGeneratorScenario(scenario, "gen", 50);
        json s = sweepSpec({{{"kind", "model_mix"}, {"values", {json::array({json{{"gpus", {8}}}})}}}});
        s["scenario"] = scenario;
        const auto g = sweepPlan(s);
        const auto& mix = g.points[0].scenario->scenario.workload.generator->mix;
        QCOMPARE(mix.size(), std::size_t(1));
        QCOMPARE(mix[0].gpus, std::vector<int>{8});
        for (const auto& j : io::loadJobs(g.points[0].scenario->scenario))
            QCOMPARE(j.gpus, 8);
    }

    // Axes that change only the options re-read only the options against the base (io::withOptions). The same axes
    // beside a node-count axis that keeps the base's count take the whole document's path: every point must resolve
    // to the same scenario text, workload key and point key, on the default scenario (explicit jobs) and on
    // generated workloads with and without a seed of their own.
    void optionsOnlyAxesResolveAsTheWholeDocumentWould()
    {
        const json optionAxes = {
            {{"kind", "seed"}, {"values", {0, 7}}},
            {{"kind", "estimate_error"}, {"values", {"none", json{{"model", "lognormal"}, {"scale", 0.25}}}}},
            {{"kind", "job_limit"}, {"values", {5, 1000}}},
            {{"kind", "policy"}, {"values", {"fifo", "sjf"}}}};
        const auto compare = [](const json& spec, const json& sameAsBase, sweep::SweepPlan& fast) {
            json whole = spec;
            whole["axes"].push_back(sameAsBase);
            fast = sweepPlan(spec);
            const auto slow = sweepPlan(whole);
            QCOMPARE(fast.points.size(), std::size_t(16));
            QCOMPARE(slow.points.size(), fast.points.size());
            for (std::size_t i = 0; i < fast.points.size(); ++i) {
                QCOMPARE(fast.points[i].scenario->text, slow.points[i].scenario->text);
                QCOMPARE(fast.points[i].scenario->workloadKey, slow.points[i].scenario->workloadKey);
                QCOMPARE(fast.points[i].key, slow.points[i].key);
                QCOMPARE(fast.points[i].seed, slow.points[i].seed);
            }
            QCOMPARE(fast.workloadCount, slow.workloadCount);
        };
        sweep::SweepPlan plan;
        compare(sweepSpec(optionAxes), {{"kind", "node_count"}, {"group", "a100"}, {"values", {2}}}, plan);
        QCOMPARE(plan.points[0].scenario->scenario.options.seed, std::uint64_t(0));
        QCOMPARE(plan.points[8].scenario->scenario.options.seed, std::uint64_t(7));
        // The key is FNV-1a 64 of the whole run's text (docs/sweeps.md), its scenario part hashed once per scenario.
        for (const auto& p : plan.points)
            QCOMPARE(p.key, util::fnv1a64Hex("orrery-sweep-point 1\n" + p.scenario->text + "\n" +
                                             p.scenario->edits.toJson().dump() + "\n" + p.policy + "\n" +
                                             std::to_string(p.seed)));
        // The seed does not draw the default scenario's jobs: a workload per (estimate error, job limit).
        QCOMPARE(plan.workloadCount, std::size_t(4));
        for (const bool seeded : {false, true}) {
            const auto scenario = m_dir.filePath(seeded ? "seeded.json" : "unseeded.json").toStdString();
            test::writeGeneratorScenario(scenario, "gen", 20);
            json doc = json::parse(util::readFile(scenario));
            if (seeded)
                doc["workload"]["generator"]["seed"] = 3;
            else
                doc["workload"]["generator"].erase("seed"); // the scenario's seed draws the jobs
            std::ofstream(scenario) << doc.dump();
            json spec = sweepSpec(optionAxes);
            spec["scenario"] = scenario;
            const std::string group = sweepPlan(spec).points[0].scenario->scenario.cluster.groups()[0].name;
            sweep::SweepPlan gen;
            compare(spec, {{"kind", "scale_nodes"}, {"group", group}, {"values", {1}}}, gen);
            QCOMPARE(gen.workloadCount, std::size_t(seeded ? 4 : 8));
        }
        // An option the base scenario cannot take is refused by the options path as by the whole one.
        const std::string err = planError(sweepSpec({{{"kind", "seed"}, {"values", {-1}}}}));
        QVERIFY2(err.find("axes[0].values[0]") != std::string::npos, err.c_str());
    }

    void workloadEditsScaleArrivalsAndLimitJobs()
    {
        const auto p = sweepPlan(sweepSpec({{{"kind", "arrival_rate_scale"}, {"values", {1, 2}}},
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
        json s = sweepSpec({{{"kind", "gpu_type"}, {"group", "a100"}}, {{"kind", "policy"}}, {{"kind", "job_limit"}}});
        s["points"] = {{{"gpu_type:a100", "v100"}, {"policy", "fifo"}}, {{"policy", "sjf"}, {"job_limit", 5}}};
        const auto p = sweepPlan(s);
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
        json t = sweepSpec({{{"kind", "seed"}}});
        t["points"] = {{{"seed", 3}}};
        QCOMPARE(sweepPlan(t).points.size(), std::size_t(2));
    }

    void errorsNameTheAxisAndTheValue()
    {
        const std::vector<std::pair<json, std::string>> cases = {
            {sweepSpec({{{"kind", "gpu_type"}, {"group", "rtx"}, {"values", {"v100", "h200x"}}}}),
             "t.json: axes[0].values[1]: axis \"gpu_type:rtx\" = \"h200x\": "},
            {sweepSpec({{{"kind", "node_count"}, {"group", "rtxx"}, {"values", {2}}}}),
             "no node group \"rtxx\" (did you mean \"rtx\"?)"},
            {sweepSpec({{{"kind", "policy"}, {"values", {"fifo", "fifoo"}}}}),
             "t.json: axes[0].values[1]: axis \"policy\" = \"fifoo\""},
            {sweepSpec({{{"kind", "policy"}, {"values", {"tiresias:backfill_limit=-5"}}}}),
             "t.json: axes[0].values[0]"},
            {sweepSpec({{{"kind", "seed"}, {"values", {-1}}}}),
             "t.json: axes[0].values[0]: axis \"seed\": expected a seed, "
             "an integer from 0 to 9223372036854775807, got -1"},
            {sweepSpec({{{"kind", "node_count"}, {"group", "rtx"}, {"values", {2, 2}}}}),
             "t.json: axes[0].values[1]: axis \"node_count:rtx\": value 2 is listed twice (also at axes[0].values[0])"},
            {sweepSpec({{{"kind", "scale_nodes"}, {"group", "rtx"}, {"values", {0}}}}),
             "axes[0].values[0]: axis \"scale_nodes:rtx\": expected a positive factor"},
            {sweepSpec(
                 {{{"kind", "seed"}, {"values", {1}}}, {{"kind", "job_limit"}, {"name", "seed"}, {"values", {3}}}}),
             "t.json: axes[1].name: two axes are named \"seed\""},
            {sweepSpec({{{"kind", "sed"}, {"values", {1}}}}), "t.json: axes[0].kind: expected one of policy, seed"},
            {sweepSpec({{{"kind", "seed"}, {"values", {1}}, {"valeus", 2}}}), "valeus"},
            {sweepSpec({{{"kind", "seed"}}}), "t.json: axes[0].values: missing required field"},
            {sweepSpec({{{"kind", "node_count"}, {"group", "rtx"}, {"values", {2}}},
                        {{"kind", "gpu_type"}, {"group", "rtx"}, {"values", {"v100"}}}}),
             "t.json: axes[1].group: node group \"rtx\" is already edited by axis \"node_count:rtx\""},
            {sweepSpec({{{"kind", "add_nodes"}, {"gpu", "nope"}, {"values", {1}}}}),
             "t.json: axes[0].values[0]: axis \"add_nodes:nope\" = 1"},
            {sweepSpec({{{"kind", "add_nodes"}, {"gpu", "v100"}, {"group", "rtx"}, {"values", {1}}}}),
             "already has a node group \"rtx\""},
        };
        for (const auto& [s, want] : cases) {
            const std::string got = planError(s);
            QVERIFY2(got.find(want) != std::string::npos, (got + "\n  expected: " + want).c_str());
        }
        json points = sweepSpec({{{"kind", "policy"}}, {{"kind", "seed"}}});
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
        json missing = sweepSpec(json::array());
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
