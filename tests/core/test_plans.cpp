// Plans and progress-dependent rates: Decision::assign with a plan, View::planOf and rateOn under a plan,
// plan changes charged as switches, rates refreshed at decisions without restarts, the rate segments a run
// records (conservation of work) and the throughput-over-time metric built on them.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "metrics/metrics.h"
#include "sched/registry.h"
#include "sim/policy.h"
#include "sim/simulator.h"

#include <fmt/format.h>

#include <functional>

using namespace orrery;
using orrery::test::errorOf;
using orrery::test::fixedJob;
using orrery::test::makeCluster;

namespace {

/**
 * Reference-duration rates, changed by a plan's batch and by progress: x (batch / 64) under a plan with a
 * batch, and for jobs whose id starts with "pd" a step in progress: x `lateFactor` from `stepAt` on.
 * A sample is a work unit times the batch (64 by default).
 */
class SteppedSource : public sim::ReferenceScaling
{
public:
    SteppedSource(double stepAt, double lateFactor)
        : ReferenceScaling(hardware::GpuCatalog::builtin(), io::ScenarioOptions{}.referenceGpu), m_stepAt(stepAt),
          m_late(lateFactor)
    {}
    double planRate(const workload::Job& job, const sim::Composition& c, const sim::Plan& plan,
                    double progress) const override
    {
        ++calls;
        double r = c.packedRate;
        if (plan.globalBatch > 0)
            r *= plan.globalBatch / 64.0;
        if (progressDependent(job) && progress >= m_stepAt)
            r *= m_late;
        return r;
    }
    bool progressDependent(const workload::Job& job) const override { return job.id.rfind("pd", 0) == 0; }
    double samplesPerUnit(const workload::Job& /*job*/, const sim::Plan& plan) const override
    {
        return plan.globalBatch > 0 ? plan.globalBatch : 64;
    }
    mutable int calls = 0;

private:
    double m_stepAt, m_late;
};

/** Progress-dependent rates drawn per job: a step function of progress with random thresholds and levels. */
class RandomSteps : public sim::ReferenceScaling
{
public:
    struct Profile
    {
        std::vector<double> at;     ///< increasing thresholds in (0, 1)
        std::vector<double> factor; ///< one more than `at`
    };
    explicit RandomSteps(std::vector<Profile> profiles)
        : ReferenceScaling(hardware::GpuCatalog::builtin(), io::ScenarioOptions{}.referenceGpu),
          m_profiles(std::move(profiles))
    {}
    double planRate(const workload::Job& job, const sim::Composition& c, const sim::Plan& /*plan*/,
                    double progress) const override
    {
        const Profile& p = m_profiles[static_cast<std::size_t>(std::stoi(job.id.substr(2)))];
        std::size_t k = 0;
        while (k < p.at.size() && progress >= p.at[k])
            ++k;
        return c.packedRate * p.factor[k];
    }
    bool progressDependent(const workload::Job& job) const override
    {
        return !m_profiles[static_cast<std::size_t>(std::stoi(job.id.substr(2)))].at.empty();
    }

private:
    std::vector<Profile> m_profiles;
};

sim::PreparedWorkload prepareWith(std::shared_ptr<const sim::ThroughputSource> source, std::vector<workload::Job> jobs,
                                  io::ScenarioOptions options = {},
                                  const hardware::Cluster& cluster = makeCluster({{"v100-16gb", 1, 4}}))
{
    return sim::PreparedWorkload(cluster, std::move(jobs), std::move(source), std::move(options));
}

class Scripted : public sim::Policy
{
public:
    Scripted(std::function<void(sim::Decision&, int)> script, std::vector<double> wakes = {})
        : m_script(std::move(script)), m_wakes(std::move(wakes))
    {}
    std::string name() const override { return "scripted"; }
    void schedule(sim::Decision& d) override
    {
        if (m_calls == 0)
            for (double t : m_wakes)
                d.wakeAt(t);
        m_script(d, m_calls++);
    }

private:
    std::function<void(sim::Decision&, int)> m_script;
    std::vector<double> m_wakes;
    int m_calls = 0;
};

sim::Plan batch(int b)
{
    sim::Plan p;
    p.globalBatch = b;
    return p;
}

std::vector<sim::RateSegment> segmentsOf(const sim::RunResult& r, int job)
{
    std::vector<sim::RateSegment> out;
    for (const auto& s : r.rateSegments)
        if (s.job == job)
            out.push_back(s);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.startS < b.startS; });
    return out;
}

double workOf(const std::vector<sim::RateSegment>& segs)
{
    double w = 0;
    for (const auto& s : segs)
        w += s.rate * (s.endS - s.startS);
    return w;
}

} // namespace

class TestPlans : public QObject
{
    Q_OBJECT

private slots:
    void progressRefreshAtAWakeUpFinishesOnTime()
    {
        // 1,000 reference seconds on one V100 at rate 1; the rate doubles from 50% progress. A wake-up at
        // 500 s (progress 0.5) refreshes it: 500 units left at rate 2 end at 750 s, with no restart.
        auto source = std::make_shared<SteppedSource>(0.5, 2.0);
        const auto w = prepareWith(source, {fixedJob("pd0", 0, 1, 1000)});
        QVERIFY(w.job(0).progressDependent);
        QVERIFY(w.anyProgressDependent());
        Scripted p(
            [](sim::Decision& d, int call) {
                if (call == 0)
                    d.assign(0, {0});
            },
            {400, 500});
        const auto r = sim::simulate(w, p, 0);
        QCOMPARE(r.jobs[0].endS, 750.0);
        QCOMPARE(r.jobs[0].restarts, 0);
        QCOMPARE(r.jobs[0].pausedGpuSeconds, 0.0);
        QCOMPARE(r.intervals.size(), std::size_t(1));
        // The wake-up at 400 s (progress 0.4) left the rate as it was: one segment up to 500 s.
        const auto segs = segmentsOf(r, 0);
        QCOMPARE(segs.size(), std::size_t(2));
        QCOMPARE(segs[0].startS, 0.0);
        QCOMPARE(segs[0].endS, 500.0);
        QCOMPARE(segs[0].rate, 1.0);
        QCOMPARE(segs[0].samplesPerS, 64.0);
        QCOMPARE(segs[1].startS, 500.0);
        QCOMPARE(segs[1].endS, 750.0);
        QCOMPARE(segs[1].rate, 2.0);
        QCOMPARE(workOf(segs), 1000.0);

        // Without the wake-up at 500 s nothing refreshes it: it runs at rate 1 to the end.
        Scripted noWake([](sim::Decision& d, int call) {
            if (call == 0)
                d.assign(0, {0});
        });
        QCOMPARE(sim::simulate(w, noWake, 0).jobs[0].endS, 1000.0);
    }

    void aRefreshDuringASwitchPauseStartsAfterIt()
    {
        // Restarted at 450 s (moved to GPU 1, 30 s pause: resumes at 480 with 550 left); the wake-up at 500 s
        // (progress 0.47) keeps the rate; at 580 s (0.55) it doubles: 450 left at rate 2 end at 805 s.
        auto source = std::make_shared<SteppedSource>(0.5, 2.0);
        const auto w = prepareWith(source, {fixedJob("pd0", 0, 1, 1000)});
        Scripted p(
            [](sim::Decision& d, int call) {
                if (call == 0)
                    d.assign(0, {0});
                if (call == 1) {
                    d.release(0);
                    d.assign(0, {1});
                }
            },
            {450, 500, 580});
        const auto r = sim::simulate(w, p, 0);
        QCOMPARE(r.jobs[0].restarts, 1);
        QCOMPARE(r.jobs[0].endS, 805.0);
        const auto segs = segmentsOf(r, 0);
        QCOMPARE(segs.size(), std::size_t(3));
        QCOMPARE(segs[1].startS, 480.0);
        QCOMPARE(segs[1].endS, 580.0);
        QCOMPARE(workOf(segs), 1000.0);
    }

    void aPlanChangeIsOneSwitch()
    {
        // Batch 64 (rate 1) from 0; at 100 s the same GPU under batch 128 (rate 2): one restart, one 30 s
        // pause, so 900 left from 130 s at rate 2 end at 580 s. At 200 s the same plan again changes nothing.
        auto source = std::make_shared<SteppedSource>(2.0, 1.0);
        const auto w = prepareWith(source, {fixedJob("j", 0, 1, 1000)});
        sim::Plan seen;
        double rateOn = -1, current = -2;
        Scripted p(
            [&](sim::Decision& d, int call) {
                if (call == 0)
                    d.assign(0, {0}, batch(64));
                if (call == 1) {
                    QVERIFY(d.view().planOf(0) == batch(64));
                    d.release(0);
                    QVERIFY(d.view().planOf(0).empty());
                    d.assign(0, {0}, batch(128));
                }
                if (call == 2) {
                    seen = d.view().planOf(0);
                    rateOn = d.view().rateOn(0, {0}, batch(128));
                    current = d.view().currentRate(0);
                    QCOMPARE(d.view().rateOn(0, {0}), 1.0); // the default plan: the source's own rate
                    d.release(0);
                    d.assign(0, {0}, batch(128));
                }
            },
            {100, 200});
        const auto r = sim::simulate(w, p, 0);
        QVERIFY(seen == batch(128));
        QCOMPARE(rateOn, 2.0);
        QCOMPARE(current, 2.0);
        QCOMPARE(r.jobs[0].restarts, 1);
        QCOMPARE(r.jobs[0].pausedGpuSeconds, 30.0);
        QCOMPARE(r.jobs[0].endS, 580.0);
        QCOMPARE(r.intervals.size(), std::size_t(1)); // its GPU never changed hands
        // The plans it ran under are job events.
        std::vector<std::string> plans;
        for (const auto& e : r.jobEvents)
            if (e.kind == sim::JobEventKind::Plan)
                plans.push_back(fmt::format("{}@{}", e.detail, e.timeS));
        QCOMPARE(plans, (std::vector<std::string>{"batch=64@0", "batch=128@100"}));
        const auto segs = segmentsOf(r, 0);
        QCOMPARE(segs.size(), std::size_t(2));
        QCOMPARE(segs[0].samplesPerS, 64.0);
        QCOMPARE(segs[1].startS, 130.0);
        QCOMPARE(segs[1].samplesPerS, 256.0);
        QCOMPARE(workOf(segs), 1000.0);
    }

    void theDefaultPlanKeepsTodaysRates()
    {
        // A source that reads plans is not asked for a job with the default plan whose rate does not depend on
        // progress: the run is that of the plain source, bit for bit.
        std::vector<workload::Job> jobs;
        for (int k = 0; k < 6; ++k)
            jobs.push_back(fixedJob("j" + std::to_string(k), 10.0 * k, 1 + k % 3, 500 + 100.0 * k));
        auto stepped = std::make_shared<SteppedSource>(0.5, 3.0);
        const auto w = prepareWith(stepped, jobs, {}, makeCluster({{"v100-16gb", 1, 4}, {"k80", 1, 4}}));
        const auto plain = orrery::test::prepare(makeCluster({{"v100-16gb", 1, 4}, {"k80", 1, 4}}), jobs);
        QVERIFY(!w.anyProgressDependent());
        for (const char* name : {"fifo", "tiresias", "max_min_fairness_perf"}) {
            auto a = sched::makePolicy(name);
            auto b = sched::makePolicy(name);
            const auto ra = sim::simulate(w, *a, 1);
            const auto rb = sim::simulate(plain, *b, 1);
            for (std::size_t j = 0; j < jobs.size(); ++j)
                QCOMPARE(ra.jobs[j].endS, rb.jobs[j].endS);
            // Every job's segments add up to its work.
            for (std::size_t j = 0; j < jobs.size(); ++j)
                QVERIFY(std::abs(workOf(segmentsOf(ra, static_cast<int>(j))) - w.job(static_cast<int>(j)).work) <
                        1e-9 * w.job(static_cast<int>(j)).work);
        }
        QCOMPARE(stepped->calls, 0);
    }

    void badPlansAreErrors()
    {
        auto source = std::make_shared<SteppedSource>(2.0, 1.0);
        const auto w = prepareWith(source, {fixedJob("j", 0, 4, 1000)}, {}, makeCluster({{"v100-16gb", 1, 4}}));
        const auto run = [&](sim::Plan plan) {
            return errorOf([&] {
                Scripted p([&](sim::Decision& d, int) { d.assign(0, {0, 1, 2, 3}, plan); });
                sim::simulate(w, p, 0);
            });
        };
        sim::Plan negative;
        negative.dp = -1;
        QCOMPARE(QString::fromStdString(run(negative)),
                 QString("policy \"scripted\" at t=0.0s: plan \"dp=-1\" for job \"j\" on 4 GPUs: batch sizes and "
                         "degrees must be >= 0 (0: unspecified)"));
        sim::Plan big;
        big.dp = 2, big.tp = 2, big.pp = 2;
        QCOMPARE(QString::fromStdString(run(big)),
                 QString("policy \"scripted\" at t=0.0s: plan \"dp=2 tp=2 pp=2\" for job \"j\" on 4 GPUs: dp x tp x "
                         "pp exceeds the GPUs given"));
        sim::Plan stages;
        stages.pp = 3;
        stages.stages = {{0, 2, 12}, {0, 2, 12}};
        QCOMPARE(QString::fromStdString(run(stages)),
                 QString("policy \"scripted\" at t=0.0s: plan \"pp=3 stages=[0x2:12,0x2:12]\" for job \"j\" on 4 "
                         "GPUs: pp = 3 but 2 stages"));
        stages.pp = 2;
        stages.stages = {{0, 2, 12}, {0, 3, 12}};
        QCOMPARE(QString::fromStdString(run(stages)),
                 QString("policy \"scripted\" at t=0.0s: plan \"pp=2 stages=[0x2:12,0x3:12]\" for job \"j\" on 4 "
                         "GPUs: its stages hold 5 GPUs"));
        stages.stages = {{0, 2, 12}, {7, 2, 12}};
        QVERIFY(run(stages).find("stage 1 needs gpus > 0, layers >= 0 and a GPU type in [-1, 1)") != std::string::npos);
        stages.stages = {{0, 2, 12, 2, 2}, {0, 2, 12}};
        QCOMPARE(QString::fromStdString(run(stages)),
                 QString("policy \"scripted\" at t=0.0s: plan \"pp=2 stages=[0x2:12/2x2,0x2:12]\" for job \"j\" on 4 "
                         "GPUs: stage 0: its dp x tp must be >= 0 and fit its 2 GPUs"));
        // A valid per-stage layout runs.
        stages.stages = {{0, 2, 12, 1, 2}, {0, 2, 12, 2, 1}};
        QCOMPARE(run(stages), std::string("(no error)"));
    }

    void throughputOverTimeSumsTheSegments()
    {
        // Two jobs: A (1 GPU, 1,000 s, rate 1, 64 samples per unit) from 0 and B from 200 s on another GPU
        // under batch 128 (rate 2, 256 samples/s, 400 s of work: ends at 400 s).
        auto source = std::make_shared<SteppedSource>(2.0, 1.0);
        const auto w = prepareWith(source, {fixedJob("A", 0, 1, 1000), fixedJob("B", 200, 1, 400)});
        Scripted p([](sim::Decision& d, int call) {
            if (call == 0)
                d.assign(0, {0});
            if (call == 1)
                d.assign(1, {1}, batch(128));
        });
        const auto r = sim::simulate(w, p, 0);
        const auto series = metrics::throughputOverTime(r);
        QCOMPARE(series.size(), std::size_t(4));
        const auto check = [&](std::size_t k, double t, double samples, double work, double jobs) {
            QCOMPARE(series[k].timeS, t);
            QCOMPARE(series[k].samplesPerS, samples);
            QCOMPARE(series[k].workPerS, work);
            QVERIFY(std::abs(series[k].jobsPerS - jobs) < 1e-12);
        };
        check(0, 0, 64, 1, 0.001);
        check(1, 200, 64 + 256, 3, 0.001 + 2.0 / 400);
        check(2, 400, 64, 1, 0.001);
        check(3, 1000, 0, 0, 0);
        QVERIFY(metrics::throughputOverTime(sim::RunResult{}).empty());
    }

    void segmentsConserveWork()
    {
        // For random progress-dependent sources, policies and switch costs: each finished job's segments add up
        // to its work, never overlap, lie inside its run and have positive rates.
        QVERIFY(orrery::test::checkProperty("rate segments conserve work", [] {
            const int n = *rc::gen::inRange(1, 7);
            std::vector<RandomSteps::Profile> profiles;
            std::vector<workload::Job> jobs;
            for (int k = 0; k < n; ++k) {
                RandomSteps::Profile prof;
                const int steps = *rc::gen::inRange(0, 4);
                double at = 0;
                for (int s = 0; s < steps; ++s) {
                    at += *rc::gen::inRange(1, 30) / 100.0;
                    prof.at.push_back(std::min(at, 0.99));
                }
                for (int s = 0; s <= steps; ++s)
                    prof.factor.push_back(*rc::gen::inRange(1, 40) / 10.0);
                profiles.push_back(prof);
                jobs.push_back(fixedJob("pd" + std::to_string(k), *rc::gen::inRange(0, 2000),
                                        *rc::gen::elementOf(std::vector<int>{1, 2, 4}), *rc::gen::inRange(50, 5000)));
            }
            io::ScenarioOptions o;
            o.restartPenaltyS = *rc::gen::elementOf(std::vector<double>{0, 30});
            o.roundS = *rc::gen::elementOf(std::vector<double>{60, 360});
            o.gavelCompat = *rc::gen::inRange(0, 4) == 0;
            const auto w = prepareWith(std::make_shared<RandomSteps>(profiles), jobs, o,
                                       makeCluster({{"v100-16gb", 1, 4}, {"k80", 1, 4}}));
            const auto name = *rc::gen::elementOf(
                std::vector<std::string>{"fifo", "tiresias", "max_min_fairness", "max_min_fairness_perf", "isolated"});
            auto policy = sched::makePolicy(name);
            const auto r = sim::simulate(w, *policy, 1);
            for (int j = 0; j < n; ++j) {
                const auto& rec = r.jobs[static_cast<std::size_t>(j)];
                RC_ASSERT(rec.finished());
                const auto segs = segmentsOf(r, j);
                RC_ASSERT(!segs.empty());
                for (std::size_t k = 0; k < segs.size(); ++k) {
                    RC_ASSERT(segs[k].rate > 0);
                    RC_ASSERT(segs[k].endS > segs[k].startS);
                    RC_ASSERT(segs[k].startS >= rec.startS);
                    RC_ASSERT(segs[k].endS <= rec.endS);
                    if (k > 0)
                        RC_ASSERT(segs[k].startS >= segs[k - 1].endS);
                }
                const double work = w.job(j).work;
                RC_ASSERT(std::abs(workOf(segs) - work) <= 1e-6 * work);
            }
        }));
    }
};

QTEST_GUILESS_MAIN(TestPlans)
#include "test_plans.moc"
