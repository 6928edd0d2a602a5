// Policy parameters: spec syntax, checking, canonical labels, presets, scenario entries, and that each
// parameter changes a run the way its documentation says (hand-worked cases in the comments).
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "io/scenario.h"
#include "sched/registry.h"
#include "sim/simulator.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace orrery;
using orrery::test::errorOf;
using orrery::test::fixedJob;
using orrery::test::makeCluster;
using orrery::test::prepare;

namespace {

sim::RunResult run(const sim::PreparedWorkload& w, const std::string& spec)
{
    auto p = sched::makePolicy(spec);
    return sim::simulate(w, *p, 0);
}

const sim::JobRecord& job(const sim::RunResult& r, const std::string& id)
{
    for (const auto& j : r.jobs)
        if (j.id == id)
            return j;
    throw std::logic_error("no job " + id);
}

io::ScenarioOptions noPenalty()
{
    io::ScenarioOptions o;
    o.restartPenaltyS = 0;
    return o;
}

/**
 * Two GPUs on one node. L (1 GPU, t=0) runs; X (2 GPUs, t=50) cannot start (L arrived first, same queue);
 * Y (1 GPU, t=100) backfills. At t=3,600 L crosses the first threshold and drops to queue 1: X may take L's GPU,
 * and Y's only if a waiting job may preempt a later arrival of its own queue. Otherwise X waits until Y drops
 * too, at 100 + 3,600 = 3,700.
 */
sim::PreparedWorkload sameQueueCase()
{
    return prepare(makeCluster({{"v100-16gb", 1, 2}}),
                   {fixedJob("L", 0, 1, 20000), fixedJob("X", 50, 2, 1000), fixedJob("Y", 100, 1, 20000)}, noPenalty());
}

nlohmann::json defaultScenarioJson()
{
    std::ifstream in(test::sourcePath("data/scenarios/default.json"));
    return nlohmann::json::parse(in);
}

} // namespace

class TestPolicyParams : public QObject
{
    Q_OBJECT

private slots:
    void labelsAreCanonical()
    {
        QCOMPARE(sched::resolvePolicy("tiresias").label, std::string("tiresias"));
        // A value equal to its default is not part of the label: equal configurations, equal labels.
        QCOMPARE(sched::resolvePolicy("tiresias:backfill_limit=64").label, std::string("tiresias"));
        QCOMPARE(sched::resolvePolicy("tiresias:preempt_same_queue=0:queue_thresholds_s=3.6e3,7200").label,
                 std::string("tiresias:queue_thresholds_s=3600,7200:preempt_same_queue=false"));
        QCOMPARE(sched::resolvePolicy("fifo:restart_penalty_s=10").label, std::string("fifo:restart_penalty_s=10"));
        // A label resolves to itself.
        const std::string label = sched::resolvePolicy("tiresias:preset=pollux:backfill_limit=3").label;
        QCOMPARE(label, std::string("tiresias:backfill_limit=3:preset=pollux"));
        QCOMPARE(sched::resolvePolicy(label).label, label);
    }

    void presetsApplyUnderGivenValues()
    {
        const auto t = sched::resolvePolicy("tiresias:preset=tiresias");
        QCOMPARE(t.params.numbers("queue_thresholds_s"), (std::vector<double>{3250, 7200}));
        QCOMPARE(t.params.boolean("preempt_same_queue"), false);
        QCOMPARE(t.params.integer("consolidate_max_gpus"), 0LL);
        QCOMPARE(t.params.integer("backfill_limit"), 1000000000LL);
        const auto p = sched::resolvePolicy("tiresias:preset=pollux:queue_thresholds_s=100");
        QCOMPARE(p.params.numbers("queue_thresholds_s"), (std::vector<double>{100}));
        QCOMPARE(p.params.boolean("preempt_same_queue"), true);
        // Optional parameters hold nothing unless given: the scenario's option applies.
        QVERIFY(!t.params.has("round_s"));
        QVERIFY(sched::resolvePolicy("fifo:round_s=60").params.has("round_s"));
    }

    void badSpecsNameThePolicyTheParameterAndWhatIsAllowed()
    {
        const auto err = [](const std::string& spec) {
            return errorOf([&] { sched::resolvePolicy(spec, "--policy"); });
        };
        QCOMPARE(err("tiresias:queue_thresholds_s=3600,-1"),
                 std::string("--policy: policy tiresias parameter queue_thresholds_s: expected 1 to 16 comma-separated "
                             "number(s) in [0, 1000000000000], strictly increasing, got \"3600,-1\""));
        QCOMPARE(err("tiresias:queue_thresholds_s=7200,3600"),
                 std::string("--policy: policy tiresias parameter queue_thresholds_s: expected 1 to 16 comma-separated "
                             "number(s) in [0, 1000000000000], strictly increasing, got \"7200,3600\""));
        QCOMPARE(err("tiresias:backfill_limit=1.5"),
                 std::string("--policy: policy tiresias parameter backfill_limit: expected an integer in [0, "
                             "1000000000], got \"1.5\""));
        QCOMPARE(err("tiresias:preset=yarn"),
                 std::string("--policy: policy tiresias parameter preset: expected one of default, tiresias, pollux, "
                             "got \"yarn\""));
        QCOMPARE(err("tiresias:queue_thresold_s=1"),
                 std::string("--policy: policy tiresias has no parameter \"queue_thresold_s\" (did you mean "
                             "\"queue_thresholds_s\"?); it takes: queue_thresholds_s, backfill_limit, "
                             "preempt_same_queue, consolidate_max_gpus, preset, round_s, restart_penalty_s, "
                             "restart_model, load_time_s"));
        QCOMPARE(err("fifo:round_s=nan"),
                 std::string("--policy: policy fifo parameter round_s: expected a number in [0.001, 1000000000], got "
                             "\"nan\""));
        QCOMPARE(err("fifo:round_s"),
                 std::string("--policy: policy fifo: expected parameters as name=value separated by ':', got "
                             "\"round_s\""));
        QCOMPARE(err("fifo:round_s=1:round_s=2"), std::string("--policy: policy fifo: parameter round_s given twice"));
        QCOMPARE(err("tiresas"), std::string("--policy: unknown policy \"tiresas\" (did you mean \"tiresias\"?)"));
    }

    void thresholdsMoveDemotion()
    {
        // With one threshold at 1,000 GPU-s, L drops at t=1,000 and X starts then instead of at 3,600.
        const auto w = sameQueueCase();
        QCOMPARE(job(run(w, "tiresias"), "X").startS, 3600.0);
        QCOMPARE(job(run(w, "tiresias:queue_thresholds_s=1000"), "X").startS, 1000.0);
    }

    void sameQueuePreemptionIsAParameter()
    {
        const auto w = sameQueueCase();
        const auto orrery = run(w, "tiresias");
        QCOMPARE(job(orrery, "X").startS, 3600.0);
        QCOMPARE(job(orrery, "Y").restarts, 1);
        const auto peer = run(w, "tiresias:preempt_same_queue=false");
        QCOMPARE(job(peer, "X").startS, 3700.0);
        QCOMPARE(peer.policy, std::string("tiresias:preempt_same_queue=false"));
    }

    void consolidationKeepsSmallJobsInOneNode()
    {
        // Two nodes of two GPUs. A and B fill node 0 (tightest fit), C and D node 1; B and D end at 101 and 103,
        // leaving one free GPU per node. E (2 GPUs, t=200) spreads over both nodes unless it must stay in one,
        // where it waits for A (and C) to end at 10,000.
        const auto w = prepare(makeCluster({{"v100-16gb", 2, 2}}),
                               {fixedJob("A", 0, 1, 10000), fixedJob("B", 1, 1, 100), fixedJob("C", 2, 1, 10000),
                                fixedJob("D", 3, 1, 100), fixedJob("E", 200, 2, 100)},
                               noPenalty());
        const auto spread = run(w, "tiresias");
        QCOMPARE(job(spread, "E").startS, 200.0);
        QCOMPARE(job(spread, "E").nodes, 2);
        const auto packed = run(w, "tiresias:consolidate_max_gpus=2");
        QCOMPARE(job(packed, "E").nodes, 1);
        QCOMPARE(job(packed, "E").startS, 10000.0);
        // Above the limit nothing changes.
        QCOMPARE(job(run(w, "tiresias:consolidate_max_gpus=1"), "E").startS, 200.0);
    }

    void backfillLimitZeroStopsBackfill()
    {
        // Y backfills beside the blocked X by default; with no backfill it waits behind X.
        const auto w = sameQueueCase();
        QCOMPARE(job(run(w, "tiresias"), "Y").startS, 100.0);
        QVERIFY(job(run(w, "tiresias:backfill_limit=0"), "Y").startS > 100.0);
    }

    void commonParamsEqualTheScenarioOption()
    {
        // restart_penalty_s=30 as a parameter is the same run as restart_penalty_s=30 in the scenario's options.
        io::ScenarioOptions penalised = noPenalty();
        penalised.restartPenaltyS = 30;
        const auto viaOptions = run(
            prepare(makeCluster({{"v100-16gb", 1, 2}}),
                    {fixedJob("L", 0, 1, 20000), fixedJob("X", 50, 2, 1000), fixedJob("Y", 100, 1, 20000)}, penalised),
            "tiresias");
        const auto viaParam = run(sameQueueCase(), "tiresias:restart_penalty_s=30");
        QCOMPARE(viaParam.jobs.size(), viaOptions.jobs.size());
        for (std::size_t i = 0; i < viaParam.jobs.size(); ++i)
            QCOMPARE(viaParam.jobs[i].endS, viaOptions.jobs[i].endS);
        // and it did cost something: L and Y were preempted once each and paid 30 s to resume.
        QCOMPARE(job(viaParam, "L").endS - job(run(sameQueueCase(), "tiresias"), "L").endS, 30.0);

        // round_s: a round-based policy with round_s=120 runs as under options.round_s = 120.
        io::ScenarioOptions shortRounds = noPenalty();
        shortRounds.roundS = 120;
        const std::vector<workload::Job> jobs = {fixedJob("a", 0, 1, 500), fixedJob("b", 10, 1, 700),
                                                 fixedJob("c", 20, 1, 300)};
        const auto cluster = makeCluster({{"v100-16gb", 1, 2}});
        const auto a = run(prepare(cluster, jobs, shortRounds), "max_min_fairness");
        const auto b = run(prepare(cluster, jobs, noPenalty()), "max_min_fairness:round_s=120");
        const auto c = run(prepare(cluster, jobs, noPenalty()), "max_min_fairness");
        bool differs = false;
        for (std::size_t i = 0; i < a.jobs.size(); ++i) {
            QCOMPARE(a.jobs[i].endS, b.jobs[i].endS);
            differs = differs || a.jobs[i].endS != c.jobs[i].endS;
        }
        QVERIFY(differs);
    }

    void scenarioEntriesTakeObjectsAndRoundTrip()
    {
        auto doc = defaultScenarioJson();
        doc["policies"] = nlohmann::json::parse(R"([
            "fifo",
            {"name": "tiresias", "params": {"queue_thresholds_s": [3250, 7200], "backfill_limit": 64}},
            "tiresias:preempt_same_queue=false",
            {"name": "max_min_fairness"}
        ])");
        const auto s = io::parseScenario(doc, "p.json");
        QCOMPARE(s.policies, (std::vector<std::string>{"fifo", "tiresias:queue_thresholds_s=3250,7200",
                                                       "tiresias:preempt_same_queue=false", "max_min_fairness"}));
        const auto out = io::scenarioToJson(s);
        QCOMPARE(out["policies"][0], nlohmann::json("fifo"));
        QCOMPARE(out["policies"][1],
                 nlohmann::json::parse(R"({"name": "tiresias", "params": {"queue_thresholds_s": [3250.0, 7200.0]}})"));
        QCOMPARE(out["policies"][2],
                 nlohmann::json::parse(R"({"name": "tiresias", "params": {"preempt_same_queue": false}})"));
        QCOMPARE(io::parseScenario(out, "again.json").policies, s.policies);
    }

    void scenarioEntryErrorsCarryTheJsonPath()
    {
        const auto err = [](const nlohmann::json& policies) {
            auto doc = defaultScenarioJson();
            doc["policies"] = policies;
            return errorOf([&] { io::parseScenario(doc, "p.json"); });
        };
        QCOMPARE(err(nlohmann::json::parse(R"(["fifo", {"name": "tiresias", "params": {"backfill_limit": -1}}])")),
                 std::string("p.json: policies[1].params.backfill_limit: policy tiresias parameter backfill_limit: "
                             "expected an integer in [0, 1000000000], got \"-1\""));
        QCOMPARE(err(nlohmann::json::parse(R"([{"name": "tiresas"}])")),
                 std::string("p.json: policies[0].name: unknown policy \"tiresas\" (did you mean \"tiresias\"?)"));
        QCOMPARE(err(nlohmann::json::parse(R"([{"name": "fifo", "parms": {}}])")),
                 std::string("p.json: policies[0].parms: unknown field (did you mean \"params\"?)"));
        QCOMPARE(err(nlohmann::json::parse(R"([{"name": "tiresias", "params": {"queue_thresholds_s": ["a"]}}])")),
                 std::string("p.json: policies[0].params.queue_thresholds_s[0]: expected a number, got \"a\""));
        QCOMPARE(err(nlohmann::json::parse(R"(["fifo_pref"])")),
                 std::string("p.json: policies[0]: unknown policy \"fifo_pref\" (did you mean \"fifo_perf\"?)"));
        QCOMPARE(err(nlohmann::json::parse(R"([3])")),
                 std::string("p.json: policies[0]: expected a policy name such as \"fifo\" or {\"name\", \"params\"}, "
                             "got 3"));
    }

    void everyPolicyListsItsParametersWithValidDefaults()
    {
        for (const auto& info : sched::registeredPolicies()) {
            std::vector<std::string> names;
            for (const auto& p : info.allParams()) {
                QVERIFY2(!p.help.empty(), (info.name + "." + p.name).c_str());
                QVERIFY2(std::find(names.begin(), names.end(), p.name) == names.end(), p.name.c_str());
                names.push_back(p.name);
                if (!p.defaultValue.empty())
                    sched::parseParamValue(p, p.defaultValue, info.name, "default"); // throws when out of range
            }
            for (const auto& preset : info.presets)
                QCOMPARE(sched::resolvePolicy(info.name + ":preset=" + preset.name).info, &info);
            QCOMPARE(sched::makePolicy(info.name)->label(), info.name);
        }
    }
};

QTEST_GUILESS_MAIN(TestPolicyParams)
#include "test_policy_params.moc"
