#include "test_support.h"

#include "metrics/metrics.h"

#include <algorithm>

using namespace orrery;

namespace {

sim::JobRecord job(double arrival, double start, double end, double ideal, int demand)
{
    sim::JobRecord r;
    r.arrivalS = arrival;
    r.startS = start;
    r.endS = end;
    r.idealS = ideal;
    r.demand = demand;
    r.gpus = demand;
    return r;
}

// throughputOverTime as it was before it sorted through keys (it sorted the 40-byte steps themselves): the
// reference its output must equal bit for bit, since ties in time are summed in the order the sort leaves them.
std::vector<metrics::ThroughputPoint> throughputOverTimeReference(const sim::RunResult& run)
{
    const auto& segs = run.rateSegments;
    std::vector<double> workDone(run.jobs.size(), 0.0);
    for (const auto& s : segs)
        if (s.job >= 0 && static_cast<std::size_t>(s.job) < workDone.size())
            workDone[static_cast<std::size_t>(s.job)] += s.rate * (s.endS - s.startS);
    struct Step
    {
        double t;
        double samples, work, jobs;
        int open;
    };
    std::vector<Step> steps;
    for (const auto& s : segs) {
        const double w = s.job >= 0 && static_cast<std::size_t>(s.job) < workDone.size()
                             ? workDone[static_cast<std::size_t>(s.job)]
                             : 0.0;
        const double jobs = w > 0 ? s.rate / w : 0.0;
        steps.push_back({s.startS, s.samplesPerS, s.rate, jobs, 1});
        steps.push_back({s.endS, -s.samplesPerS, -s.rate, -jobs, -1});
    }
    std::sort(steps.begin(), steps.end(),
              [](const Step& a, const Step& b) { return a.t != b.t ? a.t < b.t : a.open < b.open; });
    std::vector<metrics::ThroughputPoint> out;
    double samples = 0, work = 0, jobs = 0;
    int open = 0;
    for (std::size_t k = 0; k < steps.size();) {
        const double t = steps[k].t;
        for (; k < steps.size() && steps[k].t == t; ++k) {
            samples += steps[k].samples;
            work += steps[k].work;
            jobs += steps[k].jobs;
            open += steps[k].open;
            if (open == 0)
                samples = work = jobs = 0;
        }
        if (!out.empty() && out.back().samplesPerS == samples && out.back().workPerS == work &&
            out.back().jobsPerS == jobs)
            continue;
        out.push_back({t, samples, work, jobs});
    }
    return out;
}

} // namespace

class TestMetrics : public QObject
{
    Q_OBJECT
private slots:
    void percentilesInterpolate()
    {
        QCOMPARE(metrics::percentile({}, 50), 0.0);
        QCOMPARE(metrics::percentile({4, 1, 3, 2}, 50), 2.5);
        QCOMPARE(metrics::percentile({1, 2, 3, 4, 5}, 100), 5.0);
        QCOMPARE(metrics::percentile({10, 20}, 95), 19.5);
    }

    void jainAndCdf()
    {
        QCOMPARE(metrics::jainIndex({1, 1, 1, 1}), 1.0);
        QCOMPARE(metrics::jainIndex({1, 0, 0, 0}), 0.25);
        const auto c = metrics::cdf({3, 1, 2, 2});
        QCOMPARE(c.size(), std::size_t(3));
        QCOMPARE(c[1].first, 2.0);
        QCOMPARE(c[1].second, 0.75);
    }

    void summaryOfAHandRun()
    {
        // 2 GPUs (one type at $3.6/h). Job a: arrives 0, runs 0-100 on 2 GPUs. Job b: arrives 50, runs 100-300
        // on 1 GPU. JCT 100 and 250; queueing 0 and 50; makespan 300; busy 200 + 200 = 400 GPU-s of 600.
        sim::RunResult r;
        r.totalGpus = 2;
        r.gpuTypes = {"x"};
        r.gpusByType = {2};
        r.priceUsdPerHourByType = {3.6};
        r.gpuType = {0, 0};
        r.jobs = {job(0, 0, 100, 100, 2), job(50, 100, 300, 200, 1)};
        r.jobs[0].gpuSeconds = 200;
        r.jobs[0].costUsd = 0.2;
        r.jobs[1].gpuSeconds = 200;
        r.jobs[1].costUsd = 0.2;
        r.intervals = {{0, 0, 0, 100}, {0, 1, 0, 100}, {1, 0, 100, 300}};
        r.makespanS = 300;
        const auto s = metrics::summarize(r);
        QCOMPARE(s.jobsCompleted, 2);
        QCOMPARE(s.avgJctS, 175.0);
        QCOMPARE(s.avgQueueS, 25.0);
        QCOMPARE(s.utilization, 400.0 / 600.0);
        QCOMPARE(s.gpuHours, 400.0 / 3600);
        const auto byType = metrics::usageByType(r);
        QCOMPARE(byType[0].costUsd, 400.0 / 3600 * 3.6);

        // Finish-time fairness. Active jobs: 1 on [0,50), 2 on [50,100), 1 on [100,300].
        // a: N = (50*1 + 50*2)/100 = 1.5; a share of 2/1.5 = 1.33 GPUs of its 2 -> T_id = 100 * 1.5 = 150, rho = 2/3.
        // b: N = (50*2 + 200*1)/250 = 1.2; share 2/1.2 >= 1 -> T_id = 200, rho = 250/200 = 1.25.
        const auto rho = metrics::finishTimeFairness(r);
        QCOMPARE(rho.size(), std::size_t(2));
        QVERIFY(std::abs(rho[0] - 2.0 / 3) < 1e-12);
        QVERIFY(std::abs(rho[1] - 1.25) < 1e-12);
    }

    void throughputOverTimeMatchesTheStepSort()
    {
        ORRERY_CHECK_PROPERTY("the key sort sums the steps in the order the step sort did", [] {
            sim::RunResult r;
            const int jobs = *rc::gen::inRange(1, 40);
            r.jobs.resize(static_cast<std::size_t>(jobs));
            // Times on a coarse grid, so that many steps tie (the case the order decides); rates of any size.
            const int n = *rc::gen::inRange(0, 400);
            for (int i = 0; i < n; ++i) {
                const double start = *rc::gen::inRange(0, 60) * 30.0;
                const double end = start + *rc::gen::inRange(1, 20) * 30.0;
                const double rate = *rc::gen::inRange(1, 1000000) / 997.0;
                r.rateSegments.push_back({*rc::gen::inRange(0, jobs), start, end, rate, rate * 3.1});
            }
            const auto got = metrics::throughputOverTime(r);
            const auto want = throughputOverTimeReference(r);
            RC_ASSERT(got.size() == want.size());
            for (std::size_t k = 0; k < got.size(); ++k) {
                RC_ASSERT(got[k].timeS == want[k].timeS);
                RC_ASSERT(got[k].samplesPerS == want[k].samplesPerS);
                RC_ASSERT(got[k].workPerS == want[k].workPerS);
                RC_ASSERT(got[k].jobsPerS == want[k].jobsPerS);
            }
        });
    }

    void excludedJobsLeaveTheAverage()
    {
        sim::RunResult r;
        r.totalGpus = 1;
        r.jobs = {job(0, 0, 100, 100, 1), job(0, 100, 400, 300, 1)};
        r.jobs[1].excludedFromAverage = true;
        QCOMPARE(metrics::summarize(r).avgJctS, 100.0);
        QCOMPARE(metrics::summarize(r).jobsCompleted, 2);
    }
};

QTEST_GUILESS_MAIN(TestMetrics)
#include "test_metrics.moc"
