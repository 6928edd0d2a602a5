// Why a job waits (docs/simulator.md, "Why a job waits"): Decision::explain recorded as `reason` job events,
// the queue policies' reasons, and metrics::WaitReasons answering "why does job j wait at time t".
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "io/scenario.h"
#include "metrics/wait_reasons.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "sim/simulator.h"

#include <algorithm>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

using namespace orrery;
using orrery::test::fixedJob;
using orrery::test::makeCluster;
using orrery::test::prepare;

namespace {

using Reason = std::tuple<double, int, std::string>; // time, job, text

std::vector<Reason> reasonsOf(const sim::RunResult& r)
{
    std::vector<Reason> out;
    for (const auto& e : r.jobEvents)
        if (e.kind == sim::JobEventKind::Reason)
            out.emplace_back(e.timeS, e.job, e.detail);
    return out;
}

sim::RunResult run(const sim::PreparedWorkload& w, const std::string& policy)
{
    auto p = sched::makePolicy(policy);
    return sim::simulate(w, *p, 0);
}

io::ScenarioOptions noPenalty()
{
    io::ScenarioOptions o;
    o.restartPenaltyS = 0;
    return o;
}

/** Places queued jobs in index order after a hook, which may say "no placing this time" by returning false. */
class Scripted : public sim::Policy
{
public:
    using Hook = std::function<bool(sim::Decision&)>;
    explicit Scripted(Hook hook) : m_hook(std::move(hook)) {}
    std::string name() const override { return "scripted"; }
    void schedule(sim::Decision& d) override
    {
        if (!m_hook(d))
            return;
        std::vector<int> queued = d.view().queued();
        std::sort(queued.begin(), queued.end());
        for (int j : queued)
            if (d.view().gpusOf(j).empty() && !d.place(j))
                break;
    }

private:
    Hook m_hook;
};

const std::string kV100 = "v100-16gb";

} // namespace

class TestWaitReasons : public QObject
{
    Q_OBJECT
private slots:
    void fifoExplainsItsHeadAndTheJobsBehindIt()
    {
        // a holds all 4 GPUs over [0, 100); b (4 GPUs) then c (2 GPUs) wait in FIFO order. At 100 b starts and c
        // becomes the head; it starts at 200.
        const auto w = prepare(makeCluster({{"v100", 1, 4}}),
                               {fixedJob("a", 0, 4, 100), fixedJob("b", 10, 4, 100), fixedJob("c", 20, 2, 100)});
        const auto r = run(w, "fifo");
        const std::string head = "first in FIFO order; waits for room: needs ";
        const std::string behind = "behind an earlier job in FIFO order (the head blocks the queue)";
        const std::vector<Reason> want = {
            {10, 1, head + "4 x " + kV100}, {20, 2, behind}, {100, 2, head + "2 x " + kV100}};
        QCOMPARE(reasonsOf(r), want);

        const metrics::WaitReasons reasons(r);
        QVERIFY(reasons.any());
        QCOMPARE(std::string(reasons.at(1, 50)), std::get<2>(want[0]));
        QVERIFY(reasons.at(1, 150).empty()); // b runs from 100
        QVERIFY(reasons.at(2, 15).empty());  // c has not arrived
        QCOMPARE(std::string(reasons.at(2, 20)), behind);
        QCOMPARE(std::string(reasons.at(2, 99.9)), behind);
        QCOMPARE(std::string(reasons.at(2, 150)), std::get<2>(want[2]));
        QVERIFY(reasons.at(2, 250).empty()); // c runs from 200
        QVERIFY(reasons.at(0, 50).empty());  // a never waited
        QVERIFY(reasons.at(7, 50).empty());  // no such job
        QCOMPARE(reasons.of(2).size(), std::size_t(2));
        QCOMPARE(reasons.of(2)[1].first, 100.0);
    }

    void sjfTellsAJobWhenAShorterOneOvertakesIt()
    {
        // b (long) waits as SJF's head from 10; c (short) arrives at 20 and becomes the head: b is now behind it.
        // At 100 c starts and b is the head again.
        const auto w = prepare(makeCluster({{"v100", 1, 4}}),
                               {fixedJob("a", 0, 4, 100), fixedJob("b", 10, 4, 1000), fixedJob("c", 20, 4, 10)});
        const auto r = run(w, "sjf");
        const std::string head = "first in SJF order; waits for room: needs 4 x " + kV100;
        const std::string behind = "behind a shorter job in SJF order (the shortest waiting job blocks the others)";
        const std::vector<Reason> want = {{10, 1, head}, {20, 1, behind}, {20, 2, head}, {100, 1, head}};
        QCOMPARE(reasonsOf(r), want);
    }

    void engineRecordsChangesAndForgetsAReasonWhenTheJobStarts()
    {
        // a starts at 0, is preempted at 50 and restarts at 60; b arrives at 1000, after a finished.
        const auto w =
            prepare(makeCluster({{"v100", 1, 4}}), {fixedJob("a", 0, 4, 100), fixedJob("b", 1000, 4, 10)}, noPenalty());
        Scripted p([](sim::Decision& d) {
            const double now = d.view().nowS();
            if (now == 0)
                d.wakeAt(50), d.wakeAt(60);
            if (now == 50)
                d.release(0);
            for (int j = 0; j < 2; ++j)
                if (d.view().status(j) == sim::JobStatus::Queued || (now == 50 && j == 0)) {
                    d.explain(j, "waiting");
                    d.explain(j, "waiting"); // the same words twice: one event
                }
            if (now == 1000)
                d.explain(0, "finished jobs have nothing to explain");
            return now != 50; // a waits over [50, 60)
        });
        const auto r = sim::simulate(w, p, 0);
        // At 0 and again at 50 (its start at 0 ended the first wait); not at 60 (the same wait); b at 1000.
        const std::vector<Reason> want = {{0, 0, "waiting"}, {50, 0, "waiting"}, {1000, 1, "waiting"}};
        QCOMPARE(reasonsOf(r), want);
        const metrics::WaitReasons reasons(r);
        QCOMPARE(std::string(reasons.at(0, 55)), std::string("waiting"));
        QVERIFY(reasons.at(0, 30).empty()); // running: the reason at 0 ended with its start at 0
        QVERIFY(reasons.at(0, 70).empty());

        Scripted bad([](sim::Decision& d) {
            d.explain(5, "x");
            return true;
        });
        QVERIFY_THROWS_EXCEPTION(Error, sim::simulate(w, bad, 0));
    }

    void tiresiasNamesTheQueueAJobWaitsIn()
    {
        // a holds all 4 GPUs; b (same queue, later) cannot preempt it and waits in queue 1.
        const auto w = prepare(makeCluster({{"v100", 1, 4}}), {fixedJob("a", 0, 4, 100), fixedJob("b", 10, 4, 100)});
        const auto r = run(w, "tiresias");
        const auto got = reasonsOf(r);
        QCOMPARE(got.size(), std::size_t(1));
        QCOMPARE(std::get<0>(got[0]), 10.0);
        QCOMPARE(std::get<1>(got[0]), 1);
        QVERIFY2(std::get<2>(got[0]).rfind("queue 1 of ", 0) == 0, std::get<2>(got[0]).c_str());
    }

    void frenzyExplainsJobsNothingFits()
    {
        const auto w = prepare(makeCluster({{"v100", 1, 4}}), {fixedJob("a", 0, 4, 100), fixedJob("b", 10, 2, 100)});
        const auto r = run(w, "frenzy");
        const std::vector<Reason> want = {
            {10, 1, "none of its plans fits the idle GPUs (HAS best-fit over MARP's plans)"}};
        QCOMPARE(reasonsOf(r), want);
    }

    /**
     * On the default scenario (contended: SJF keeps 21 jobs waiting at 2 h 47 m), every wait longer than two
     * rounds, before a job's first start or between its allocations, is explained by its policy at least once
     * while it lasts: no policy leaves a planner without a reason. Shorter waits may end before a round-based
     * policy next decides.
     */
    void everyPolicyExplainsEveryLongWait()
    {
        const auto scenario = io::defaultScenario();
        const auto w = sim::prepareScenario(scenario);
        const double longWaitS = 2 * std::max(w.options().roundS, 60.0) + 1;
        for (const auto& info : sched::registeredPolicies()) {
            // Pollux's search at a tenth of its size: the same reasons, in a tenth of the time.
            const auto r = run(w, info.name == "pollux" ? "pollux:population=24:generations=12" : info.name);
            std::vector<std::vector<std::pair<double, double>>> held(r.jobs.size());
            for (const auto& iv : r.intervals)
                held[static_cast<std::size_t>(iv.job)].emplace_back(iv.startS, iv.endS);
            std::vector<std::vector<double>> told(r.jobs.size());
            for (const auto& e : r.jobEvents)
                if (e.kind == sim::JobEventKind::Reason)
                    told[static_cast<std::size_t>(e.job)].push_back(e.timeS);
            int longWaits = 0;
            for (std::size_t j = 0; j < r.jobs.size(); ++j) {
                auto& spans = held[j];
                std::sort(spans.begin(), spans.end());
                // The waits: from arrival to the first GPU, and every stretch with no GPU between allocations.
                std::vector<std::pair<double, double>> waits;
                double from = r.jobs[j].arrivalS;
                for (const auto& [start, end] : spans) {
                    if (start > from)
                        waits.emplace_back(from, start);
                    from = std::max(from, end);
                }
                if (r.jobs[j].dropped())
                    waits.emplace_back(from, r.jobs[j].droppedS);
                for (const auto& w : waits) {
                    const double a = w.first, b = w.second; // a lambda below reads them (clang 14: no binding)
                    if (b - a <= longWaitS)
                        continue;
                    ++longWaits;
                    const bool explained =
                        std::any_of(told[j].begin(), told[j].end(), [&](double t) { return a <= t && t <= b; });
                    QVERIFY2(explained, qPrintable(QString("%1: job %2 waits %3 s from t=%4 without a reason")
                                                       .arg(QString::fromStdString(info.name))
                                                       .arg(QString::fromStdString(r.jobs[j].id))
                                                       .arg(b - a)
                                                       .arg(a)));
                }
            }
            qInfo("%s: %d long waits, each explained", info.name.c_str(), longWaits);
        }
    }

    void reasonsSurviveTheRecordsRoundTrip()
    {
        QCOMPARE(std::string(sim::toString(sim::JobEventKind::Reason)), std::string("reason"));
        QVERIFY(sim::jobEventKindFromString("reason") == sim::JobEventKind::Reason);
    }
};

QTEST_GUILESS_MAIN(TestWaitReasons)
#include "test_wait_reasons.moc"
