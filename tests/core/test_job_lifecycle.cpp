// Job lifecycle seams of the engine (docs/simulator.md, "Job lifecycle"): Decision::drop, Decision::profile,
// suspensions, GPU-hours billed versus used, policy records (annotations and series).
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "io/run_csv.h"
#include "metrics/metrics.h"
#include "sched/registry.h"
#include "sim/simulator.h"

#include <functional>
#include <sstream>

using namespace orrery;
using orrery::test::fixedJob;
using orrery::test::makeCluster;
using orrery::test::prepare;

namespace {

io::ScenarioOptions noPenalty()
{
    io::ScenarioOptions o;
    o.restartPenaltyS = 0;
    return o;
}

/** FIFO on whatever is free, with a hook run first at every decision (the test's own lifecycle moves). */
class Scripted : public sim::Policy
{
public:
    using Hook = std::function<void(sim::Decision&)>;
    explicit Scripted(Hook hook) : m_hook(std::move(hook)) {}
    std::string name() const override { return "scripted"; }
    void onProfileEnd(const sim::View& /*view*/, int j) override { profileEnds.push_back(j); }
    void schedule(sim::Decision& d) override
    {
        m_hook(d);
        std::vector<int> queued = d.view().queued();
        std::sort(queued.begin(), queued.end());
        for (int j : queued)
            if (d.view().status(j) == sim::JobStatus::Queued && d.view().gpusOf(j).empty() && !d.place(j))
                break;
    }
    std::vector<int> profileEnds;

private:
    Hook m_hook;
};

sim::RunResult runScripted(const sim::PreparedWorkload& w, Scripted::Hook hook, std::vector<int>* profileEnds = nullptr)
{
    Scripted p(std::move(hook));
    auto r = sim::simulate(w, p, 1);
    if (profileEnds)
        *profileEnds = p.profileEnds;
    return r;
}

template <typename F> std::string errorOf(F&& f)
{
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "no error";
}

} // namespace

class TestJobLifecycle : public QObject
{
    Q_OBJECT
private slots:
    void droppedJobsFreeTheirGpusAndNeverFinish()
    {
        // One V100. a (0, 100 s) runs; b (0, 50 s) waits; c (10, 30 s) waits. At t=10 the policy drops the running
        // a and the waiting b: c starts at 10 on a's GPU and ends at 40.
        const auto w =
            prepare(makeCluster({{"v100", 1, 1}}),
                    {fixedJob("a", 0, 1, 100), fixedJob("b", 0, 1, 50), fixedJob("c", 10, 1, 30)}, noPenalty());
        const auto r = runScripted(w, [](sim::Decision& d) {
            if (d.view().nowS() == 10) {
                d.drop(0, "deadline unreachable");
                d.drop(1, "cannot fit");
            }
        });
        QVERIFY(!r.jobs[0].finished() && r.jobs[0].dropped());
        QCOMPARE(r.jobs[0].endS, -1.0);
        QCOMPARE(r.jobs[0].droppedS, 10.0);
        QCOMPARE(r.jobs[0].dropReason, std::string("deadline unreachable"));
        QCOMPARE(r.jobs[0].gpuSeconds, 10.0); // held 0-10, then freed
        QVERIFY(r.jobs[1].dropped() && !r.jobs[1].finished());
        QCOMPARE(r.jobs[1].startS, -1.0);
        QCOMPARE(r.jobs[2].startS, 10.0);
        QCOMPARE(r.jobs[2].endS, 40.0);
        QCOMPARE(r.makespanS, 40.0);
        for (const auto& iv : r.intervals)
            if (iv.job == 0)
                QCOMPARE(iv.endS, 10.0);

        const auto s = metrics::summarize(r);
        QCOMPARE(s.jobsCompleted, 1);
        QCOMPARE(s.jobsDropped, 2);
        QCOMPARE(s.avgJctS, 30.0); // over the finished job only
        QCOMPARE(metrics::perJob(r, metrics::JobMetric::Jct).size(), std::size_t(1));

        int drops = 0;
        for (const auto& e : r.jobEvents)
            if (e.kind == sim::JobEventKind::Drop) {
                ++drops;
                QCOMPARE(e.timeS, 10.0);
            }
        QCOMPARE(drops, 2);

        // The CSV shows the drop and no end.
        std::ostringstream csv;
        io::writeJobsCsv(csv, r);
        QVERIFY2(csv.str().find(",100,10,deadline unreachable,0") != std::string::npos, csv.str().c_str());
    }

    void aDroppedJobCannotBeScheduledAgain()
    {
        const auto w = prepare(makeCluster({{"v100", 1, 1}}), {fixedJob("a", 0, 1, 100), fixedJob("b", 5, 1, 10)});
        const std::string assign = errorOf([&] {
            runScripted(w, [](sim::Decision& d) {
                if (d.view().nowS() == 5) {
                    d.drop(0, "x");
                    d.assign(0, {0});
                }
            });
        });
        QVERIFY2(assign.find("job \"a\" is not waiting or running (it has been dropped)") != std::string::npos,
                 assign.c_str());
        const std::string twice = errorOf([&] {
            runScripted(w, [](sim::Decision& d) {
                if (d.view().nowS() == 5) {
                    d.drop(0, "x");
                    d.drop(0, "y");
                }
            });
        });
        QVERIFY2(twice.find("been dropped") != std::string::npos, twice.c_str());
        const auto later =
            prepare(makeCluster({{"v100", 1, 1}}), {fixedJob("a", 0, 1, 100), fixedJob("b", 200, 1, 10)});
        const std::string finished = errorOf([&] {
            runScripted(later, [](sim::Decision& d) {
                if (d.view().nowS() > 100)
                    d.drop(0, "late");
            });
        });
        QVERIFY2(finished.find("(it has finished)") != std::string::npos, finished.c_str());
    }

    void aRunMayEndWithEveryJobDropped()
    {
        const auto w = prepare(makeCluster({{"v100", 1, 2}}), {fixedJob("a", 0, 1, 100), fixedJob("b", 3, 2, 100)});
        const auto r = runScripted(w, [](sim::Decision& d) {
            const std::vector<int> queued = d.view().queued();
            for (int j : queued)
                d.drop(j, "admission refused");
        });
        QVERIFY(r.jobs[0].dropped() && r.jobs[1].dropped());
        QVERIFY(r.intervals.empty());
        QCOMPARE(r.makespanS, 3.0);
        QCOMPARE(metrics::summarize(r).jobsCompleted, 0);
    }

    void profilingHoldsGpusWithoutProgress()
    {
        // Two V100s. a (0, 100 s on 1 GPU) is profiled on both GPUs for 50 s, then given GPU 0 again: one
        // interval 0-150 there.
        const auto w = prepare(makeCluster({{"v100", 1, 2}}), {fixedJob("a", 0, 1, 100)}, noPenalty());
        std::vector<int> ends;
        bool profiled = false;
        const auto r = runScripted(
            w,
            [&](sim::Decision& d) {
                if (!profiled) {
                    profiled = true;
                    d.profile(0, {0, 1}, 50);
                    QVERIFY(d.view().status(0) == sim::JobStatus::Queued); // until committed
                } else if (d.view().nowS() == 50) {
                    QVERIFY(d.view().status(0) == sim::JobStatus::Queued); // back in the queue
                    QCOMPARE(d.view().queued(), std::vector<int>{0});
                    d.assign(0, {0});
                }
            },
            &ends);
        QCOMPARE(ends, std::vector<int>{0});
        const auto& a = r.jobs[0];
        QCOMPARE(a.startS, 50.0); // its first start with progress
        QCOMPARE(a.endS, 150.0);
        QCOMPARE(a.restarts, 0);
        QCOMPARE(a.gpuSeconds, 200.0);       // billed: 2 GPUs x 50 s profiling + 1 x 100 s
        QCOMPARE(a.pausedGpuSeconds, 100.0); // of which held without progress
        QCOMPARE(a.usedGpuSeconds(), 100.0);
        QCOMPARE(r.intervals.size(), std::size_t(2));
        QCOMPARE(r.intervals[0].gpu, 0);
        QCOMPARE(r.intervals[0].startS, 0.0); // kept across the profile's end: one interval
        QCOMPARE(r.intervals[0].endS, 150.0);
        QCOMPARE(r.intervals[1].gpu, 1);
        QCOMPARE(r.intervals[1].endS, 50.0);
        const auto s = metrics::summarize(r);
        QCOMPARE(s.gpuHoursBilled * 3600, 200.0);
        QCOMPARE(s.gpuHoursUsed * 3600, 100.0);
        QCOMPARE(s.gpuHours, s.gpuHoursBilled);
        QCOMPARE(r.jobEvents.size(), std::size_t(1));
        QVERIFY(r.jobEvents[0].kind == sim::JobEventKind::Profile);
        QCOMPARE(r.jobEvents[0].detail, std::string("50"));
    }

    void profilingInARoundBasedRunEndsAtItsTime()
    {
        // Under a round-based policy the end of profiling still asks for a decision at once.
        const auto w = prepare(makeCluster({{"v100", 1, 1}}), {fixedJob("a", 0, 1, 100)}, noPenalty());
        class Rounds : public Scripted
        {
        public:
            using Scripted::Scripted;
            double roundS(const sim::PolicyOptions&) const override { return 1000; }
        };
        bool profiled = false;
        Rounds p([&](sim::Decision& d) {
            if (!profiled) {
                profiled = true;
                d.profile(0, {0}, 7);
            }
        });
        const auto r = sim::simulate(w, p, 1);
        QCOMPARE(r.jobs[0].startS, 7.0);
        QCOMPARE(r.jobs[0].endS, 107.0);
    }

    void badProfileRequestsAreErrors()
    {
        const auto w = prepare(makeCluster({{"v100", 1, 1}}), {fixedJob("a", 0, 1, 100)});
        const std::string zero = errorOf([&] { runScripted(w, [](sim::Decision& d) { d.profile(0, {0}, 0); }); });
        QVERIFY2(zero.find("expected a positive, finite time") != std::string::npos, zero.c_str());
        const std::string busy = errorOf([&] {
            runScripted(w, [](sim::Decision& d) {
                d.place(0);
                d.profile(0, {0}, 5);
            });
        });
        QVERIFY2(busy.find("already holds GPUs") != std::string::npos, busy.c_str());
    }

    void suspensionsCountPreemptions()
    {
        // Tiresias with a 100 GPU-s first queue on one GPU: a long job is preempted by each newcomer.
        const auto w = prepare(makeCluster({{"v100", 1, 1}}),
                               {fixedJob("long", 0, 1, 1000), fixedJob("s1", 200, 1, 50), fixedJob("s2", 400, 1, 50)},
                               noPenalty());
        auto policy = sched::makePolicy("tiresias:queue_thresholds_s=100");
        const auto r = sim::simulate(w, *policy, 1);
        QCOMPARE(r.jobs[0].suspensions, 2);
        QCOMPARE(r.jobs[0].restarts, 2);
        int suspends = 0, resumes = 0;
        for (const auto& e : r.jobEvents) {
            QCOMPARE(e.job, 0);
            suspends += e.kind == sim::JobEventKind::Suspend;
            resumes += e.kind == sim::JobEventKind::Resume;
        }
        QCOMPARE(suspends, 2);
        QCOMPARE(resumes, 2);
        QCOMPARE(metrics::summarize(r).suspensions, 2);
    }

    void restartPausesAreBilledNotUsed()
    {
        // As above with a 30 s restart penalty: each resume holds the GPU 30 s without progress.
        io::ScenarioOptions o;
        o.restartPenaltyS = 30;
        const auto w =
            prepare(makeCluster({{"v100", 1, 1}}), {fixedJob("long", 0, 1, 1000), fixedJob("s1", 200, 1, 50)}, o);
        auto policy = sched::makePolicy("tiresias:queue_thresholds_s=100");
        const auto r = sim::simulate(w, *policy, 1);
        QCOMPARE(r.jobs[0].pausedGpuSeconds, 30.0);
        QCOMPARE(r.jobs[0].usedGpuSeconds(), 1000.0);
        QCOMPARE(r.jobs[0].gpuSeconds, 1030.0);
        const auto s = metrics::summarize(r);
        QCOMPARE(s.gpuHoursBilled * 3600, 1080.0);
        QCOMPARE(s.gpuHoursUsed * 3600, 1050.0);
    }

    void policiesAnnotateJobsAndRecordSeries()
    {
        const auto w = prepare(makeCluster({{"v100", 1, 1}}), {fixedJob("a", 0, 1, 10), fixedJob("b", 1, 1, 10)});
        const auto r = runScripted(w, [](sim::Decision& d) {
            d.record("queued", static_cast<double>(d.view().queued().size()));
            for (int j : d.view().queued())
                d.annotate(j, "seen_at_s", d.view().nowS());
            d.annotate(0, "plan", "dp=1");
        });
        QCOMPARE(r.series.size(), std::size_t(1));
        QCOMPARE(r.series[0].name, std::string("queued"));
        QCOMPARE(r.series[0].timeS, (std::vector<double>{0, 1, 10}));
        QCOMPARE(r.series[0].value, (std::vector<double>{1, 1, 1}));
        // A later annotation of the same name replaces the earlier one (b waited at 1 and at 10).
        QCOMPARE(r.jobs[1].extras, (std::vector<std::pair<std::string, std::string>>{{"seen_at_s", "10.0"}}));
        QCOMPARE(r.jobs[0].extras,
                 (std::vector<std::pair<std::string, std::string>>{{"seen_at_s", "0.0"}, {"plan", "\"dp=1\""}}));
        const std::string reserved =
            errorOf([&] { runScripted(w, [](sim::Decision& d) { d.annotate(0, "dropped_s", 1.0); }); });
        QVERIFY2(reserved.find("reserved") != std::string::npos, reserved.c_str());
    }
};

QTEST_GUILESS_MAIN(TestJobLifecycle)
#include "test_job_lifecycle.moc"
