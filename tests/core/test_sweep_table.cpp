// What the GUI's Sweeps tab reads from a store (core/sweep/sweep_table): the sweeps with their points done and
// planned, and each point with core's metrics of its run, on a real sweep run into a temporary store.
#include "test_support.h"

#include "io/error.h"
#include "io/scenario.h"
#include "metrics/metrics.h"
#include "store/run_store.h"
#include "store/sqlite.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"
#include "sweep/sweep_table.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <stop_token>

using namespace orrery;
using nlohmann::json;

namespace {

json gridSpec()
{
    return {{"format", "orrery-sweep"},
            {"version", 1},
            {"name", "grid"},
            {"axes",
             {{{"kind", "node_count"}, {"group", "rtx"}, {"values", {1, 2}}},
              {{"kind", "policy"}, {"values", {"fifo", "sjf"}}},
              {{"kind", "seed"}, {"values", {0, 1, 2}}}}}};
}

} // namespace

class TestSweepTable : public QObject
{
    Q_OBJECT
private slots:
    void plannedPointCounts()
    {
        QCOMPARE(sweep::plannedPointCount(gridSpec(), "t"), std::optional<std::size_t>(12));
        // Without a policy axis: every policy of the base scenario (the embedded default here).
        json noPolicy = gridSpec();
        noPolicy["axes"].erase(1);
        QCOMPARE(sweep::plannedPointCount(noPolicy, "t"),
                 std::optional<std::size_t>(6 * io::defaultScenario().policies.size()));
        // Listed points with a policy axis: one each.
        json points = {
            {"format", "orrery-sweep"},
            {"version", 1},
            {"name", "p"},
            {"axes", {{{"kind", "job_limit"}}, {{"kind", "policy"}}}},
            {"points",
             {{{"job_limit", 10}, {"policy", "fifo"}}, {{"job_limit", 20}, {"policy", "sjf"}}, {{"policy", "sjf"}}}}};
        QCOMPARE(sweep::plannedPointCount(points, "t"), std::optional<std::size_t>(3));
        // A base scenario that cannot be read here: unknown, not a guess.
        json missing = noPolicy;
        missing["scenario"] = "no/such/scenario.json";
        QCOMPARE(sweep::plannedPointCount(missing, "t"), std::optional<std::size_t>());
        QCOMPARE(sweep::plannedPointCount(json{{"format", "orrery-sweep"}}, "t"), std::optional<std::size_t>());
    }

    void listsAndLoadsAStoredSweep()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const std::string path = dir.filePath(QStringLiteral("s.sqlite")).toStdString();
        store::RunStore db(path);
        const auto plan = sweep::resolveSweep(sweep::parseSweepSpec(gridSpec(), "grid.json"));
        sweep::WorkloadCache cache;
        sweep::SweepRunOptions options;
        options.jobs = 2;
        // Stopped after the first 5 points stored (the one waiting for the store and the one simulating are
        // stored too): listed as those of 12.
        std::stop_source stop;
        options.jobs = 1;
        options.maxWaitingPoints = 1;
        options.stop = stop.get_token();
        options.onProgress = [&](const sweep::SweepProgress& p) {
            if (p.done >= 5)
                stop.request_stop();
        };
        const auto stopped = sweep::runSweep(plan, db, options, cache);
        QVERIFY2(stopped.ran >= 5 && stopped.ran <= 7, std::to_string(stopped.ran).c_str());
        auto listed = sweep::listSweeps(db);
        QCOMPARE(listed.size(), std::size_t{1});
        QCOMPARE(listed[0].name, std::string("grid"));
        QCOMPARE(listed[0].axes, (std::vector<std::string>{"node_count:rtx", "policy", "seed"}));
        QCOMPARE(listed[0].completed, stopped.ran);
        QCOMPARE(listed[0].total, std::optional<std::size_t>(12));

        options.stop = {};
        options.onProgress = {};
        sweep::runSweep(plan, db, options, cache);
        listed = sweep::listSweeps(db);
        QCOMPARE(listed[0].completed, std::size_t{12});

        std::size_t progressCalls = 0;
        const auto table = sweep::loadSweepTable(db, "grid", {}, [&](std::size_t done, std::size_t total) {
            QCOMPARE(total, std::size_t{12});
            QCOMPARE(done, ++progressCalls);
        });
        QCOMPARE(table.points.size(), std::size_t{12});
        QCOMPARE(table.axes, listed[0].axes);
        for (const auto& p : table.points) {
            QVERIFY(p.summary);
            const auto run = db.loadRun(p.row.runId);
            const auto s = metrics::summarize(run.result);
            // The table reads only what summarize needs (RunParts::ForSummary); the figures are the whole run's.
            QCOMPARE(p.summary->avgJctS, s.avgJctS);
            QCOMPARE(p.summary->p95JctS, s.p95JctS);
            QCOMPARE(p.summary->avgQueueS, s.avgQueueS);
            QCOMPARE(p.summary->utilization, s.utilization);
            QCOMPARE(p.summary->maxFtfRho, s.maxFtfRho);
            QCOMPARE(p.summary->jainFtf, s.jainFtf);
            QCOMPARE(p.summary->costUsd, s.costUsd);
            QCOMPARE(p.summary->gpuHours, s.gpuHours);
            QCOMPARE(p.summary->decisions, s.decisions);
            QVERIFY(s.decisions > 0);
            QVERIFY(!run.result.jobEvents.empty());
            QVERIFY(db.loadRun(p.row.runId, store::RunStore::RunParts::ForSummary).result.jobEvents.empty());
            QCOMPARE(p.summary->avgJctS, *p.row.avgJctS); // what the store wrote when the run ended
            QCOMPARE(p.axes["policy"].get<std::string>(), p.row.policy);
            // The edited cluster is the one priced: 1 or 2 RTX nodes.
            const auto cluster = io::parseScenarioText(db.scenarioJson(run.record.scenarioId), "t").cluster;
            QCOMPARE(*p.provisionedCostUsd, cluster.priceUsdPerHour() * s.makespanS / 3600.0);
        }
        // The two cluster sizes cost differently per hour.
        const auto& a = table.points.front();
        const auto& b = table.points.back();
        QVERIFY(a.axes["node_count:rtx"] != b.axes["node_count:rtx"]);
        QVERIFY(*a.provisionedCostUsd / a.summary->makespanS != *b.provisionedCostUsd / b.summary->makespanS);

        // A stop request ends the loading early.
        std::stop_source early;
        early.request_stop();
        QCOMPARE(sweep::loadSweepTable(db, "grid", early.get_token()).points.size(), std::size_t{0});
        const std::string error = test::errorOf([&] { sweep::loadSweepTable(db, "nope"); });
        QVERIFY2(error.find("s.sqlite") != std::string::npos && error.find("nope") != std::string::npos, error.c_str());
    }
};

QTEST_GUILESS_MAIN(TestSweepTable)
#include "test_sweep_table.moc"
