// metrics::queueLengthOverTime: jobs waiting over time, read from a run's jobs and intervals.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "metrics/queue_length.h"
#include "sched/registry.h"
#include "sim/simulator.h"

#include <rapidcheck.h>

using namespace orrery;

namespace {

/** The definition, job by job: arrived, not ended, holding no GPU at t. */
int queuedAt(const sim::RunResult& r, double t)
{
    int n = 0;
    for (std::size_t j = 0; j < r.jobs.size(); ++j) {
        const auto& rec = r.jobs[j];
        const double end = rec.finished() ? rec.endS : rec.dropped() ? rec.droppedS : r.makespanS;
        if (!(rec.arrivalS <= t && t < end))
            continue;
        bool holding = false;
        for (const auto& iv : r.intervals)
            holding = holding || (iv.job == static_cast<int>(j) && iv.startS <= t && t < iv.endS);
        n += !holding;
    }
    return n;
}

int seriesAt(const std::vector<metrics::QueuePoint>& s, double t)
{
    int q = 0;
    for (const auto& p : s)
        if (p.timeS <= t)
            q = p.queued;
    return q;
}

} // namespace

class TestQueueLength : public QObject
{
    Q_OBJECT
private slots:
    void handWorkedRun()
    {
        // a holds 2 GPUs over [0, 100); b arrives at 10, runs [50, 80) and, preempted, again [120, 200); c arrives at
        // 50 (as b starts) and runs [100, 150); d is dropped at 300 without running.
        sim::RunResult r;
        r.jobs.resize(4);
        const auto job = [](double arrival, double end) {
            sim::JobRecord j;
            j.arrivalS = arrival;
            j.endS = end;
            return j;
        };
        r.jobs[0] = job(0, 100);
        r.jobs[1] = job(10, 200);
        r.jobs[2] = job(50, 150);
        r.jobs[3] = job(60, -1);
        r.jobs[3].droppedS = 300;
        r.intervals = {{0, 0, 0, 100}, {0, 1, 0, 100}, {1, 2, 50, 80}, {2, 0, 100, 150}, {1, 1, 120, 200}};
        r.makespanS = 300;
        const auto s = metrics::queueLengthOverTime(r);
        // 10: b waits; 50: b starts as c arrives (1); 60: d (2); 80: b preempted (3); 100: c starts (2);
        // 120: b resumes (1); 300: d dropped (0).
        const std::vector<std::pair<double, int>> want = {{0, 0},   {10, 1},  {60, 2}, {80, 3},
                                                          {100, 2}, {120, 1}, {300, 0}};
        QCOMPARE(s.size(), want.size());
        for (std::size_t i = 0; i < want.size(); ++i) {
            QCOMPARE(s[i].timeS, want[i].first);
            QCOMPARE(s[i].queued, want[i].second);
        }
        QVERIFY(metrics::queueLengthOverTime(sim::RunResult{}).empty());
    }

    void agreesWithTheDefinitionOnSimulatedRuns()
    {
        ORRERY_CHECK_PROPERTY("queue length at any t = jobs arrived, not ended, holding no GPU", [] {
            const int jobs = *rc::gen::inRange(1, 30);
            std::vector<workload::Job> js;
            for (int i = 0; i < jobs; ++i)
                js.push_back(test::fixedJob("j" + std::to_string(i), *rc::gen::inRange(0, 500),
                                            *rc::gen::element(1, 2, 4), *rc::gen::inRange(10, 400)));
            const auto w = test::prepare(test::makeCluster({{"v100", 1, 4}, {"k80", 1, 4}}), js);
            const auto policy = *rc::gen::element(std::string("fifo"), std::string("tiresias"), std::string("sjf"),
                                                  std::string("max_min_fairness"));
            auto p = sched::makePolicy(policy);
            const auto r = sim::simulate(w, *p, 0);
            const auto s = metrics::queueLengthOverTime(r);
            for (std::size_t i = 1; i < s.size(); ++i) {
                RC_ASSERT(s[i].timeS > s[i - 1].timeS);
                RC_ASSERT(s[i].queued != s[i - 1].queued);
            }
            // At every step and just before it.
            for (const auto& pt : s) {
                RC_ASSERT(seriesAt(s, pt.timeS) == queuedAt(r, pt.timeS));
                RC_ASSERT(seriesAt(s, pt.timeS - 1e-6) == queuedAt(r, pt.timeS - 1e-6));
            }
        });
    }
};

QTEST_GUILESS_MAIN(TestQueueLength)
#include "test_queue_length.moc"
