// Switch costs: each form's pause, charged once per change by the engine, and read from scenarios.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "io/scenario.h"
#include "sched/registry.h"
#include "sim/simulator.h"
#include "sim/switch_cost.h"

#include <nlohmann/json.hpp>

#include <fstream>

using namespace orrery;
using orrery::test::errorOf;
using orrery::test::fixedJob;
using orrery::test::makeCluster;
using orrery::test::prepare;

namespace {

const sim::JobRecord& job(const sim::RunResult& r, const std::string& id)
{
    for (const auto& j : r.jobs)
        if (j.id == id)
            return j;
    throw std::logic_error("no job " + id);
}

/**
 * One node of 4 GPUs. Long (4 GPUs, 10,000 s) starts at 0; Short (4 GPUs, 100 s, t=10) waits in the same queue.
 * Tiresias demotes Long at 3,600 GPU-s = t 900; Short preempts it, runs 900-1,000, and Long resumes at 1,000 on
 * 4 GPUs with 9,100 s of work left after its pause.
 */
sim::RunResult preemptOnce(const std::string& policy, io::ScenarioOptions options = {})
{
    const auto w = prepare(makeCluster({{"v100-16gb", 1, 4}}),
                           {fixedJob("Long", 0, 4, 10000), fixedJob("Short", 10, 4, 100)}, options);
    auto p = sched::makePolicy(policy);
    return sim::simulate(w, *p, 0);
}

} // namespace

class TestSwitchCost : public QObject
{
    Q_OBJECT

private slots:
    void formsGiveThePapersPauses()
    {
        io::ScenarioOptions o;
        o.restartPenaltyS = 45;
        const auto pause = [&](int gpus, bool first = false, std::string_view model = "gpt2") {
            return sim::SwitchCost(o).pauseS({first, gpus, gpus, false, model, ""});
        };
        QCOMPARE(pause(8), 45.0);   // constant
        o.restartModel = "chronus"; // 30 (1 + log2 g)
        QCOMPARE(pause(1), 30.0);
        QCOMPARE(pause(4), 90.0);
        QCOMPARE(pause(8), 120.0);
        o.restartModel = "unisched"; // 16 + 1.5 log2 g
        QCOMPARE(pause(1), 16.0);
        QCOMPARE(pause(16), 22.0);
        o.restartModel = "by_model";
        o.restartSByModel = {{"gpt2", 250}};
        QCOMPARE(pause(2, false, "gpt2"), 250.0);
        QCOMPARE(pause(2, false, "bert-large"), 45.0); // not listed: the constant
        // A first start pays the load time, whatever the form.
        QCOMPARE(pause(2, true), 0.0);
        o.loadTimeS = 12;
        QCOMPARE(pause(2, true), 12.0);
        // sia: a goodput job's application's checkpoint-restore time at every placement, the first included.
        o.restartModel = "sia";
        const auto app = [&](std::string_view application, bool first) {
            return sim::SwitchCost(o).pauseS({first, 4, 4, false, "", application});
        };
        QCOMPARE(app("imagenet", false), 250.0);
        QCOMPARE(app("imagenet", true), 250.0);
        QCOMPARE(app("cifar10", false), 50.0);
        QCOMPARE(app("ncf", true), 15.0);
        QCOMPARE(app("gpt_pmp", false), 45.0); // an application Sia does not name: the constant
        QCOMPARE(app("", false), 45.0);        // not a goodput job
        QCOMPARE(app("", true), 12.0);         // its first start: the load time
    }

    void theEngineChargesOncePerChange()
    {
        io::ScenarioOptions free;
        free.restartPenaltyS = 0;
        const auto base = preemptOnce("tiresias", free);
        QCOMPARE(job(base, "Short").startS, 900.0);
        QCOMPARE(job(base, "Long").restarts, 1);
        QCOMPARE(job(base, "Long").endS, 10100.0);
        QCOMPARE(job(base, "Short").endS, 1000.0);
        // Chronus on 4 GPUs: 30 x (1 + 2) = 90 s, once.
        QCOMPARE(job(preemptOnce("tiresias:restart_model=chronus", free), "Long").endS, 10190.0);
        QCOMPARE(job(preemptOnce("tiresias:restart_model=unisched", free), "Long").endS, 10119.0);
        io::ScenarioOptions byModel = free;
        byModel.restartModel = "by_model";
        byModel.restartSByModel = {{"", 7}}; // fixed jobs carry no model name
        QCOMPARE(job(preemptOnce("tiresias", byModel), "Long").endS, 10107.0);
        QCOMPARE(job(preemptOnce("tiresias:restart_penalty_s=45", free), "Long").endS, 10145.0);
        // A load time delays each job's first progress, and Short's start too; Short is never preempted.
        const auto loaded = preemptOnce("tiresias:load_time_s=5", free);
        QCOMPARE(job(loaded, "Short").endS, 1005.0);
        QCOMPARE(job(loaded, "Long").endS, 10110.0);
    }

    void scenarioOptionsReadWriteAndRefuse()
    {
        std::ifstream in(test::sourcePath("data/scenarios/default.json"));
        auto doc = nlohmann::json::parse(in);
        const std::string before = io::scenarioToJsonText(io::parseScenario(doc, "d.json"));
        QVERIFY(before.find("restart_model") == std::string::npos); // unset options are not written
        doc["options"]["restart_model"] = "by_model";
        doc["options"]["restart_s_by_model"] = {{"GPT2-1.5B", 120}};
        doc["options"]["load_time_s"] = 20;
        const auto s = io::parseScenario(doc, "d.json");
        QCOMPARE(s.options.restartModel, std::string("by_model"));
        QCOMPARE(s.options.restartSByModel.at("gpt2-1.5b"), 120.0); // the library's own spelling
        QCOMPARE(s.options.loadTimeS, 20.0);
        QCOMPARE(io::parseScenario(io::scenarioToJson(s), "again.json").options, s.options);

        auto bad = doc;
        bad["options"]["restart_model"] = "chronos";
        QCOMPARE(errorOf([&] { io::parseScenario(bad, "b.json"); }),
                 std::string(
                     "b.json: options.restart_model: expected one of constant, chronus, unisched, by_model, sia, got "
                     "\"chronos\" (did you mean \"chronus\"?)"));
        bad = doc;
        bad["options"]["restart_s_by_model"] = {{"gpt2-1.6b", 1}};
        QVERIFY(errorOf([&] {
                    io::parseScenario(bad, "b.json");
                }).starts_with("b.json: options.restart_s_by_model.gpt2-1.6b: unknown model"));
        bad = doc;
        bad["options"]["restart_s_by_model"] = {{"gpt2-1.5b", -1}};
        QVERIFY(errorOf([&] {
                    io::parseScenario(bad, "b.json");
                }).starts_with("b.json: options.restart_s_by_model.gpt2-1.5b: expected"));
        bad = doc;
        bad["options"]["load_time_s"] = -3;
        QVERIFY(
            errorOf([&] { io::parseScenario(bad, "b.json"); }).starts_with("b.json: options.load_time_s: expected"));
    }
};

QTEST_GUILESS_MAIN(TestSwitchCost)
#include "test_switch_cost.moc"
