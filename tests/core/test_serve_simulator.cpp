// The request simulator's invariants (RapidCheck): every request is served or rejected, never both; a served
// request meets its SLO; no stage of a group runs two requests at once; stages run in FCFS order; and, with
// no SLO, its latencies equal a brute-force event simulation (explicit stage queues, completion events).
#include "test_support.h"

#include "io/error.h"
#include "serve/request_simulator.h"

#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <tuple>

using namespace orrery;
using namespace orrery::serve;
using orrery::test::errorOf;

namespace {

struct Case
{
    std::vector<SimGroup> groups;
    Workload workload;
    std::vector<double> slo;
};

Case genCase()
{
    Case c;
    const int models = *rc::gen::inRange(1, 4);
    const int groups = *rc::gen::inRange(1, 4);
    for (int g = 0; g < groups; ++g) {
        SimGroup group;
        group.stages = *rc::gen::inRange(1, 4);
        // One transfer time per boundary for all of a group's models: with per-model transfers a later request
        // could reach a stage first, where the runtime keeps FCFS and the brute force would not.
        std::vector<double> comm;
        for (int s = 0; s + 1 < group.stages; ++s)
            comm.push_back(0.01 * *rc::gen::inRange(0, 5));
        for (int m = 0; m < models; ++m) {
            if (!*rc::gen::arbitrary<bool>())
                continue;
            StageTimes t;
            t.model = m;
            for (int s = 0; s < group.stages; ++s)
                t.stageS.push_back(0.05 * *rc::gen::inRange(1, 20));
            t.commS = comm;
            group.models.push_back(std::move(t));
        }
        c.groups.push_back(std::move(group));
    }
    c.workload.models = models;
    const int n = *rc::gen::inRange(0, 60);
    double t = 0;
    for (int i = 0; i < n; ++i) {
        t += 0.02 * *rc::gen::inRange(0, 30); // includes simultaneous arrivals
        c.workload.requests.push_back({t, *rc::gen::inRange(0, models)});
    }
    c.workload.durationS = t;
    for (int m = 0; m < models; ++m)
        c.slo.push_back(0.1 * *rc::gen::inRange(1, 40));
    return c;
}

/**
 * An independent event simulation (no SLO): arrivals and stage completions from one heap; each stage of each
 * group has a FIFO queue; the controller counts a group's requests not yet out of its last stage.
 */
std::vector<double> bruteForce(const std::vector<SimGroup>& groups, const Workload& w)
{
    struct Event
    {
        double t;
        int kind; // 0: completion (handled first at equal times), 1: arrival
        long long seq;
        int request, group, stage;
        bool operator>(const Event& o) const { return std::tie(t, kind, seq) > std::tie(o.t, o.kind, o.seq); }
    };
    std::priority_queue<Event, std::vector<Event>, std::greater<>> heap;
    long long seq = 0;
    for (std::size_t i = 0; i < w.requests.size(); ++i)
        heap.push({w.requests[i].arrivalS, 1, seq++, static_cast<int>(i), -1, -1});
    std::vector<int> inGroup(groups.size(), 0);
    std::vector<std::vector<std::deque<int>>> queue(groups.size());
    std::vector<std::vector<bool>> busy(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) {
        queue[g].resize(static_cast<std::size_t>(groups[g].stages));
        busy[g].assign(static_cast<std::size_t>(groups[g].stages), false);
    }
    std::vector<int> groupOf(w.requests.size(), -1);
    std::vector<double> latency(w.requests.size(), std::numeric_limits<double>::quiet_NaN());
    const auto times = [&](int r, int g) -> const StageTimes& {
        for (const auto& t : groups[static_cast<std::size_t>(g)].models)
            if (t.model == w.requests[static_cast<std::size_t>(r)].model)
                return t;
        throw std::logic_error("model not hosted");
    };
    // Stage readiness events (after a transfer) reuse kind 0 with stage = -(s + 1).
    const auto tryStart = [&](int g, int s, double now) {
        auto& q = queue[static_cast<std::size_t>(g)][static_cast<std::size_t>(s)];
        if (busy[static_cast<std::size_t>(g)][static_cast<std::size_t>(s)] || q.empty())
            return;
        const int r = q.front();
        q.pop_front();
        busy[static_cast<std::size_t>(g)][static_cast<std::size_t>(s)] = true;
        heap.push({now + times(r, g).stageS[static_cast<std::size_t>(s)], 0, seq++, r, g, s});
    };
    while (!heap.empty()) {
        const Event e = heap.top();
        heap.pop();
        if (e.kind == 1) {
            int best = -1;
            for (std::size_t g = 0; g < groups.size(); ++g)
                for (const auto& t : groups[g].models)
                    if (t.model == w.requests[static_cast<std::size_t>(e.request)].model &&
                        (best < 0 || inGroup[g] < inGroup[static_cast<std::size_t>(best)]))
                        best = static_cast<int>(g);
            if (best < 0)
                continue;
            groupOf[static_cast<std::size_t>(e.request)] = best;
            ++inGroup[static_cast<std::size_t>(best)];
            queue[static_cast<std::size_t>(best)][0].push_back(e.request);
            tryStart(best, 0, e.t);
        } else if (e.stage < 0) { // a transfer delivered the request to stage -(stage + 1)
            const int s = -(e.stage + 1);
            queue[static_cast<std::size_t>(e.group)][static_cast<std::size_t>(s)].push_back(e.request);
            tryStart(e.group, s, e.t);
        } else {
            busy[static_cast<std::size_t>(e.group)][static_cast<std::size_t>(e.stage)] = false;
            const int stages = groups[static_cast<std::size_t>(e.group)].stages;
            if (e.stage + 1 == stages) {
                latency[static_cast<std::size_t>(e.request)] =
                    e.t - w.requests[static_cast<std::size_t>(e.request)].arrivalS;
                --inGroup[static_cast<std::size_t>(e.group)];
            } else {
                const double comm = times(e.request, e.group).commS[static_cast<std::size_t>(e.stage)];
                heap.push({e.t + comm, 0, seq++, e.request, e.group, -(e.stage + 2)});
            }
            tryStart(e.group, e.stage, e.t);
        }
    }
    return latency;
}

} // namespace

class TestServeSimulator : public QObject
{
    Q_OBJECT

private slots:
    void servedOrRejectedNeverBoth()
    {
        ORRERY_CHECK_PROPERTY("each request is served within its SLO or rejected; stages never overlap", [] {
            const Case c = genCase();
            SimOptions o;
            o.sloS = c.slo;
            o.recordLatencies = true;
            o.recordStages = true;
            const SimResult r = simulateRequests(c.groups, c.workload, o);
            RC_ASSERT(r.served + r.rejected == r.requests);
            long long served = 0;
            std::map<int, int> intervalsOf;
            for (const auto& iv : r.stageIntervals)
                ++intervalsOf[iv.request];
            for (std::size_t i = 0; i < c.workload.requests.size(); ++i) {
                const bool isServed = !std::isnan(r.latencyS[i]);
                RC_ASSERT(isServed == (r.groupOf[i] >= 0));
                if (isServed) {
                    ++served;
                    const int model = c.workload.requests[i].model;
                    RC_ASSERT(r.latencyS[i] <= c.slo[static_cast<std::size_t>(model)] * (1 + 1e-9));
                    RC_ASSERT(intervalsOf[static_cast<int>(i)] ==
                              c.groups[static_cast<std::size_t>(r.groupOf[i])].stages);
                } else {
                    RC_ASSERT(intervalsOf.count(static_cast<int>(i)) == 0u);
                }
            }
            RC_ASSERT(served == r.served);
            // Per (group, stage): intervals in request (= arrival) order, each after the previous one ends.
            std::map<std::pair<int, int>, std::vector<StageInterval>> byStage;
            for (const auto& iv : r.stageIntervals) {
                RC_ASSERT(iv.startS >= c.workload.requests[static_cast<std::size_t>(iv.request)].arrivalS);
                byStage[{iv.group, iv.stage}].push_back(iv);
            }
            for (const auto& [key, list] : byStage)
                for (std::size_t k = 1; k < list.size(); ++k) {
                    RC_ASSERT(list[k].request > list[k - 1].request);
                    RC_ASSERT(list[k].startS >= list[k - 1].endS - 1e-12);
                }
        });
    }

    void matchesBruteForceWithoutSlo()
    {
        ORRERY_CHECK_PROPERTY("with no SLO, latencies equal an explicit event simulation", [] {
            Case c = genCase();
            SimOptions o;
            o.sloS.assign(c.slo.size(), std::numeric_limits<double>::infinity());
            o.recordLatencies = true;
            const SimResult r = simulateRequests(c.groups, c.workload, o);
            const std::vector<double> expected = bruteForce(c.groups, c.workload);
            for (std::size_t i = 0; i < expected.size(); ++i) {
                if (std::isnan(expected[i])) {
                    RC_ASSERT(std::isnan(r.latencyS[i]));
                } else {
                    RC_ASSERT(std::abs(r.latencyS[i] - expected[i]) < 1e-9);
                }
            }
        });
    }

    void rejectsWhatCannotMeetItsSlo()
    {
        // One group, service 1 s, SLO 1.5 s, three requests at t = 0: the first is served, the second would
        // finish at 2 s and is rejected up front, so the third (same finish) is rejected too.
        Workload w;
        w.models = 1;
        w.requests = {{0, 0}, {0, 0}, {0, 0}, {1.2, 0}};
        SimOptions o;
        o.sloS = {1.5};
        o.recordLatencies = true;
        SimGroup g;
        g.models = {{0, {1.0}, {}}};
        const SimResult r = simulateRequests({g}, w, o);
        QCOMPARE(r.served, 2LL);
        QCOMPARE(r.rejected, 2LL);
        QCOMPARE(r.latencyS[0], 1.0);
        QVERIFY(std::isnan(r.latencyS[1]) && std::isnan(r.latencyS[2]));
        QVERIFY(std::abs(r.latencyS[3] - 1.0) < 1e-12);
        QCOMPARE(r.attainment(), 0.5);
    }

    void unhostedModelsAreRejected()
    {
        Workload w;
        w.models = 2;
        w.requests = {{0, 1}};
        SimOptions o;
        o.sloS = {1, 1};
        SimGroup g;
        g.models = {{0, {0.1}, {}}};
        const SimResult r = simulateRequests({g}, w, o);
        QCOMPARE(r.unplaced, 1LL);
        QCOMPARE(r.served, 0LL);
    }

    void badGroupsAreRefused()
    {
        Workload w;
        w.models = 1;
        SimOptions o;
        o.sloS = {1};
        SimGroup g;
        g.stages = 2;
        g.models = {{0, {0.1}, {}}};
        QCOMPARE(QString::fromStdString(errorOf([&] { simulateRequests({g}, w, o); })),
                 QString("groups[0].models[0]: expected 2 stage times and 1 transfers"));
        o.sloS = {};
        QVERIFY(errorOf([&] { simulateRequests({}, w, o); }).find("slo") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestServeSimulator)
#include "test_serve_simulator.moc"
