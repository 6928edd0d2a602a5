// The local sweep runner (docs/sweeps.md, "Running locally"): resume, stop, batching against runs stored one by one,
// points the store cannot keep, failing points, and the CPU estimate's samples, over a temporary run store.
#include "store_fixtures.h"
#include "sweep_fixtures.h"
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
#include "sweep/finished_points.h"
#include "sweep/sweep_estimate.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runner.h"
#include "sweep/workload_cache.h"

#include <QTemporaryDir>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <atomic>
#include <deque>
#include <limits>

using namespace orrery;
using nlohmann::json;
using test::quickSweepSpec;
using test::sweepPlan;
using test::sweepSpec;

namespace {

std::int64_t count(store::RunStore& s, const std::string& sql)
{
    return s.connection().queryInt(sql);
}

/** Every point of `p` simulated beforehand, as the CPU estimate's samples: two stores given them get the very same
 *  results (a simulation again would differ in its wall-clock times). */
std::vector<sweep::SampledPoint> simulated(const sweep::SweepPlan& p)
{
    std::vector<sweep::SampledPoint> samples;
    for (const auto& point : p.points) {
        const auto workload = sweep::prepareResolved(*point.scenario);
        auto policy = sched::makePolicy(point.policy);
        samples.push_back({point.index, sim::simulate(workload, *policy, point.seed), 0.0});
    }
    return samples;
}

} // namespace

class TestSweepRunner : public QObject
{
    Q_OBJECT
private slots:
    void finishedPointsQueueOldestFirstWithinItsBoundsProperty()
    {
        ORRERY_CHECK_PROPERTY("the queue hands points out oldest first, each once, within its bounds", [] {
            const auto maxPoints = *rc::gen::inRange<std::size_t>(1, 8);
            const auto maxRecords = *rc::gen::inRange<std::size_t>(1, 50);
            sweep::FinishedPoints queue(maxPoints, maxRecords);
            std::deque<std::pair<std::size_t, std::size_t>> model; // index, records
            std::size_t next = 0, records = 0;
            const auto steps = *rc::gen::inRange(1, 60);
            for (int step = 0; step < steps; ++step) {
                if (*rc::gen::inRange(0, 3) > 0) {
                    sweep::FinishedPoint point;
                    point.index = next;
                    point.run.records = *rc::gen::inRange<std::size_t>(0, 30);
                    point.run.info.policy = fmt::format("policy of point {}", next); // held on the heap
                    const bool fits =
                        model.empty() || (model.size() < maxPoints && records + point.run.records <= maxRecords);
                    const std::size_t r = point.run.records;
                    RC_ASSERT(queue.tryPush(point) == fits);
                    if (fits) {
                        model.emplace_back(next, r);
                        records += r;
                        ++next;
                    } else {
                        RC_ASSERT(point.index == next); // untouched
                        RC_ASSERT(point.run.info.policy == fmt::format("policy of point {}", next));
                    }
                } else {
                    const auto most = *rc::gen::inRange<std::size_t>(0, 5);
                    const auto taken = queue.take(most);
                    RC_ASSERT(taken.size() == std::min(most, model.size()));
                    for (const auto& point : taken) {
                        RC_ASSERT(point.index == model.front().first);
                        RC_ASSERT(point.run.info.policy == fmt::format("policy of point {}", point.index));
                        records -= model.front().second;
                        model.pop_front();
                    }
                }
                RC_ASSERT(queue.size() == model.size());
            }
        });
    }

    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void resumeRunsNothingTwice()
    {
        // One resolved plan; the store is new per case.
        const auto p = sweepPlan(quickSweepSpec(3)); // 2 policies x 3 seeds
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
        const auto p = sweepPlan(quickSweepSpec(1));
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
        // The sweep wrote with a small page cache and gave the store's own back (the GUI keeps using the connection).
        QCOMPARE(s.connection().queryInt("PRAGMA cache_size"), std::int64_t(-32768));
    }

    void stopKeepsFinishedPointsAndResumes()
    {
        const auto p = sweepPlan(quickSweepSpec(6)); // 12 points
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
        const auto p = sweepPlan(quickSweepSpec(6)); // 12 points
        std::vector<sweep::SampledPoint> samples = simulated(p);
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
        // turn at the store only binds and steps. The store it leaves must be, row for row and blob for blob, the store
        // the same points make stored one by one through RunStore by a run writer (beginRun, then finish), as every run
        // was stored before points were prepared. The estimate's samples give both the very same results.
        const auto p = sweepPlan(quickSweepSpec(3)); // 6 points
        std::vector<sweep::SampledPoint> samples = simulated(p);
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
        const auto p = sweepPlan(quickSweepSpec(2)); // 4 points
        std::vector<sweep::SampledPoint> samples = simulated(p);
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
        json sp = sweepSpec({{{"kind", "gpu_type"}, {"group", "g"}, {"values", {"a100-40gb-sxm", "v100"}}}});
        sp["scenario"] = scenario;
        const auto p = sweepPlan(sp);
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
        const auto p = sweepPlan(quickSweepSpec(4)); // 8 points, 2 policies
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

private:
    QTemporaryDir m_dir;
};

QTEST_GUILESS_MAIN(TestSweepRunner)
#include "test_sweep_runner.moc"
