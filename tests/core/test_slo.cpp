// SLOs (docs/simulator.md, "Deadlines and SLOs"): the scenario fields, the metrics over them, and edf, the
// policy that drops what cannot meet its deadline.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "io/scenario.h"
#include "metrics/metrics.h"
#include "sched/registry.h"
#include "sched/run_policies.h"
#include "sim/prepare_scenario.h"
#include "sim/simulator.h"

#include <nlohmann/json.hpp>

using namespace orrery;
using orrery::test::fixedJob;
using orrery::test::makeCluster;
using orrery::test::prepare;

namespace {

nlohmann::json scenarioWith(const nlohmann::json& job)
{
    nlohmann::json j = {{"gpus", 1}, {"duration_s", 100}, {"arrival_s", 10}};
    j.update(job);
    return {{"format", "orrery-scenario"},
            {"version", 1},
            {"cluster", {{"nodes", {{{"gpu", "v100"}, {"gpus_per_node", 1}}}}}},
            {"workload", {{"jobs", {j}}}}};
}

std::string parseError(const nlohmann::json& job)
{
    try {
        io::parseScenario(scenarioWith(job), "s.json");
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

workload::Job withDeadlines(workload::Job j, std::vector<workload::Deadline> d, std::string cls = "")
{
    j.deadlines = std::move(d);
    j.sloClass = std::move(cls);
    return j;
}

} // namespace

class TestSlo : public QObject
{
    Q_OBJECT
private slots:
    void scenarioFieldsRoundTrip()
    {
        const auto s = io::parseScenario(
            scenarioWith({{"slo_class", "latency"},
                          {"deadlines", {{{"at_s", 200}, {"reward", 3}}, {{"at_s", 400}, {"reward", 1}}}},
                          {"max_runtime_s", 150}}),
            "s.json");
        const auto& j = s.workload.jobs[0];
        QCOMPARE(j.sloClass, std::string("latency"));
        QCOMPARE(j.deadlines, (std::vector<workload::Deadline>{{200, 3}, {400, 1}}));
        QCOMPARE(*j.maxRuntimeS, 150.0);
        QCOMPARE(io::parseScenario(io::scenarioToJson(s), "s").workload.jobs[0], j);

        const auto one = io::parseScenario(scenarioWith({{"deadline_s", 300}, {"reward", 2.5}}), "s.json");
        QCOMPARE(one.workload.jobs[0].allDeadlines(), (std::vector<workload::Deadline>{{300, 2.5}}));
        QCOMPARE(io::parseScenario(io::scenarioToJson(one), "s").workload.jobs[0], one.workload.jobs[0]);
        // Without these fields a job writes what it wrote before.
        const auto plain = io::scenarioToJson(io::parseScenario(scenarioWith({{"deadline_s", 300}}), "s.json"));
        const auto& pj = plain["workload"]["jobs"][0];
        QVERIFY(!pj.contains("reward") && !pj.contains("deadlines") && !pj.contains("slo_class"));
        QCOMPARE(
            io::scenarioToJsonText(io::parseScenario(scenarioWith({{"slo_class", "x"}, {"deadline_s", 30}}), "s")),
            io::scenarioToJson(io::parseScenario(scenarioWith({{"slo_class", "x"}, {"deadline_s", 30}}), "s")).dump());
    }

    void badSloFieldsNameTheirPath()
    {
        QCOMPARE(parseError({{"deadline_s", 300}, {"deadlines", {{{"at_s", 400}}}}}),
                 std::string("s.json: workload.jobs[0].deadlines: a job has either \"deadline_s\" or \"deadlines\", "
                             "not both"));
        QCOMPARE(parseError({{"deadlines", {{{"at_s", 5}}}}}),
                 std::string("s.json: workload.jobs[0].deadlines[0].at_s: deadline 5 is not after the arrival 10"));
        QCOMPARE(parseError({{"deadlines", {{{"at_s", 50}}, {{"at_s", 40}}}}}),
                 std::string("s.json: workload.jobs[0].deadlines[1].at_s: deadlines must be listed in increasing "
                             "order (40 follows 50)"));
        QVERIFY(parseError({{"deadlines", {{{"at_s", 50}, {"reward", -1}}}}}).find("deadlines[0].reward") !=
                std::string::npos);
        QVERIFY(parseError({{"deadlines", nlohmann::json::array()}}).find("expected a non-empty array") !=
                std::string::npos);
        QVERIFY(parseError({{"reward", 2}}).find("workload.jobs[0].reward: a reward belongs to") != std::string::npos);
        QVERIFY(parseError({{"max_runtime_s", 0}}).find("workload.jobs[0].max_runtime_s") != std::string::npos);
        QVERIFY(parseError({{"deadlines", {{{"at_s", 50}, {"rewrd", 1}}}}}).find("rewrd") != std::string::npos);
    }

    void metricsCountDeadlinesRewardsAndClasses()
    {
        // One V100, FIFO: a 0-100, b 100-150, c 150-160 (queued behind).
        const auto w = prepare(makeCluster({{"v100", 1, 1}}),
                               {withDeadlines(fixedJob("a", 0, 1, 100), {{100, 2}, {200, 1}}, "gold"),
                                withDeadlines(fixedJob("b", 1, 1, 50), {{120, 5}, {160, 1}}, "gold"),
                                withDeadlines(fixedJob("c", 2, 1, 10), {{155, 4}}, "silver"), fixedJob("d", 3, 1, 1)});
        auto fifo = sched::makePolicy("fifo");
        const auto r = sim::simulate(w, *fifo, 1);
        QCOMPARE(r.jobs[0].deadlines.size(), std::size_t(2));
        const auto s = metrics::summarize(r);
        QCOMPARE(s.sloJobs, 3);
        QCOMPARE(s.sloJobsMet, 1); // a met its first; b and c missed theirs
        QCOMPARE(s.deadlines, 5);
        QCOMPARE(s.deadlinesMet, 3); // a both, b its second (150 <= 160)
        QCOMPARE(s.reward, 2.0 + 1.0 + 1.0);
        QCOMPARE(s.sloAttainment(), 1.0 / 3);
        QCOMPARE(s.deadlineMetRatio(), 3.0 / 5);
        const auto byClass = metrics::sloAttainmentByClass(r);
        QCOMPARE(byClass.size(), std::size_t(2));
        QCOMPARE(byClass[0].sloClass, std::string("gold"));
        QCOMPARE(byClass[0].jobs, 2);
        QCOMPARE(byClass[0].jobsMet, 1);
        QCOMPARE(byClass[0].reward, 4.0);
        QCOMPARE(byClass[1].jobsMet, 0);
    }

    void edfDropsWhatCannotMeetItsDeadline()
    {
        // One V100. a (0, 100 s, deadline 500) runs. b (10, 100 s, deadline 150) must start by 50; still waiting
        // then, it is dropped at 50 (a wake-up edf asked for). c (20, 50 s, deadline 160) starts at 100 and meets
        // it. d (30, 100 s, deadline 240) must start by 140 and waits behind c: dropped at 140. e (no deadline)
        // runs after those with one.
        const auto w = prepare(makeCluster({{"v100", 1, 1}}),
                               {withDeadlines(fixedJob("a", 0, 1, 100), {{500, 1}}),
                                withDeadlines(fixedJob("b", 10, 1, 100), {{150, 1}}),
                                withDeadlines(fixedJob("c", 20, 1, 50), {{160, 1}}),
                                withDeadlines(fixedJob("d", 30, 1, 100), {{240, 1}}), fixedJob("e", 40, 1, 10)});
        auto edf = sched::makePolicy("edf");
        const auto r = sim::simulate(w, *edf, 1);
        QCOMPARE(r.jobs[1].droppedS, 50.0);
        QCOMPARE(r.jobs[1].dropReason, std::string("cannot meet its deadline"));
        QCOMPARE(r.jobs[2].startS, 100.0);
        QCOMPARE(r.jobs[2].endS, 150.0);
        QCOMPARE(r.jobs[3].droppedS, 140.0);
        QCOMPARE(r.jobs[4].startS, 150.0); // no deadline: after those with one
        const auto s = metrics::summarize(r);
        QCOMPARE(s.jobsDropped, 2);
        QCOMPARE(s.jobsCompleted, 3);
        QCOMPARE(s.sloJobsMet, 2);
        QCOMPARE(s.sloJobs, 4);

        // Without dropping, b and d wait and run late.
        auto keep = sched::makePolicy("edf:drop_late=false");
        const auto all = metrics::summarize(sim::simulate(w, *keep, 1));
        QCOMPARE(all.jobsDropped, 0);
        QCOMPARE(all.jobsCompleted, 5);
    }

    void defaultScenarioHasNoSloFigures()
    {
        // No deadline anywhere: every policy finishes every job and the SLO figures stay empty.
        const auto scenario = io::defaultScenario();
        const auto w = sim::prepareScenario(scenario);
        for (const auto& r : sched::runPolicies(w, {"fifo", "edf"}, 1)) {
            const auto s = metrics::summarize(r);
            QCOMPARE(s.jobsDropped, 0);
            QCOMPARE(s.sloJobs, 0);
            QCOMPARE(s.jobsCompleted, s.jobs);
        }
    }
};

QTEST_GUILESS_MAIN(TestSlo)
#include "test_slo.moc"
