#include "test_support.h"

#include "io/scenario.h"
#include "sched/registry.h"
#include "sched/sia_ilp.h"
#include "sim/prepare_scenario.h"
#include "sim/simulator.h"
#include "sim_test_helpers.h"
#include "workload/pollux_workload.h"

#include <cmath>
#include <filesystem>

using namespace orrery;
using namespace orrery::sched;

namespace {

// A scenario of the first `jobs` rows of a Sia/Pollux workload on a cluster spec, with the shared profiles.
io::Scenario goodputScenario(const std::string& workload, int jobs, const std::string& clusterJson)
{
    return io::parseScenario(test::goodputScenarioJson(workload, jobs, nlohmann::json::parse(clusterJson),
                                                       {{"restart_model", "sia"}}, 16,
                                                       test::sharedDataPath("sia/profiles")),
                             "t.json");
}

// Random rounds of Sia's ILP: up to `maxJobs` jobs with configurations on `types` types (powers of two within a
// random range), random current configurations and restart factors.
struct RandomRound
{
    std::vector<int> capacity;
    std::vector<SiaJob> jobs;
    std::vector<std::pair<int, int>> range; ///< per job: the GPU counts its configurations were drawn within
};

RandomRound randomRound(int maxTypes, int maxJobs)
{
    RandomRound r;
    const int types = *rc::gen::inRange(1, maxTypes + 1);
    for (int t = 0; t < types; ++t)
        r.capacity.push_back(*rc::gen::inRange(1, 33));
    r.jobs.resize(static_cast<std::size_t>(*rc::gen::inRange(0, maxJobs + 1)));
    for (auto& j : r.jobs) {
        const int lo = *rc::gen::inRange(1, 9);
        const int hi = lo + *rc::gen::inRange(0, 24);
        r.range.emplace_back(lo, hi);
        for (int t = 0; t < types; ++t)
            for (int g = 1; g <= 64; g *= 2)
                if (g >= lo && g <= hi && *rc::gen::inRange(0, 4) > 0)
                    j.configs.push_back({t, g, 1.0 + *rc::gen::inRange(0, 1000) / 37.0});
        j.current = j.configs.empty() ? -1 : *rc::gen::inRange(-1, static_cast<int>(j.configs.size()));
        j.restartFactor = *rc::gen::inRange(0, 101) / 100.0;
    }
    return r;
}

// The objective of an assignment as solveSiaIlp reports it: lambda_n x jobs + sum of (A - lambda_n) over the chosen.
double objectiveOf(const RandomRound& r, const std::vector<int>& chosen, const SiaIlpOptions& o)
{
    double v = o.lambdaN * static_cast<double>(r.jobs.size());
    for (std::size_t j = 0; j < r.jobs.size(); ++j)
        if (chosen[j] >= 0)
            v += siaWeight(r.jobs[j], chosen[j], o) - o.lambdaN;
    return v;
}

bool fitsCapacity(const RandomRound& r, const std::vector<int>& chosen)
{
    std::vector<int> used(r.capacity.size(), 0);
    for (std::size_t j = 0; j < r.jobs.size(); ++j)
        if (chosen[j] >= 0) {
            const SiaConfig& c = r.jobs[j].configs[static_cast<std::size_t>(chosen[j])];
            used[static_cast<std::size_t>(c.type)] += c.gpus;
        }
    for (std::size_t t = 0; t < used.size(); ++t)
        if (used[t] > r.capacity[t])
            return false;
    return true;
}

const char* kSiaCluster = R"({"nodes": [{"name": "t4", "gpu": "t4", "count": 2, "gpus_per_node": 4},
                                       {"name": "rtx", "gpu": "rtx2080ti", "count": 1, "gpus_per_node": 8},
                                       {"name": "a100", "gpu": "a100", "count": 1, "gpus_per_node": 8}]})";

} // namespace

class TestSia : public QObject
{
    Q_OBJECT

private slots:
    void ilpRespectsCapacityAndRanges()
    {
        ORRERY_CHECK_PROPERTY("sia's ILP: capacity per type, one configuration per job, within each job's range", [] {
            const RandomRound round = randomRound(3, 24);
            const auto& [capacity, jobs, range] = round;
            const int types = static_cast<int>(capacity.size());
            SiaIlpOptions o;
            o.p = *rc::gen::element(-0.5, -1.0, 0.5);
            o.lambdaN = o.p < 0 ? 1.1 : -1.1;
            const SiaIlpResult r = solveSiaIlp(jobs, capacity, o);
            RC_ASSERT(r.solved);
            RC_ASSERT(r.chosen.size() == jobs.size());
            std::vector<int> used(static_cast<std::size_t>(types), 0);
            for (std::size_t j = 0; j < jobs.size(); ++j) {
                const int c = r.chosen[j];
                RC_ASSERT(c >= -1 && c < static_cast<int>(jobs[j].configs.size()));
                if (c < 0)
                    continue;
                const SiaConfig& cfg = jobs[j].configs[static_cast<std::size_t>(c)];
                RC_ASSERT(cfg.gpus >= range[j].first && cfg.gpus <= range[j].second);
                used[static_cast<std::size_t>(cfg.type)] += cfg.gpus;
            }
            for (int t = 0; t < types; ++t)
                RC_ASSERT(used[static_cast<std::size_t>(t)] <= capacity[static_cast<std::size_t>(t)]);
        });
    }

    void pruningAndIncumbentKeepTheOptimum()
    {
        // Dominance pruning and the rounded root LP as CBC's start change the model and the search, never the
        // optimum: on rounds small enough to prove, the objective equals the exact ILP's (every configuration,
        // no start), and the chosen configurations fit.
        ORRERY_CHECK_PROPERTY("sia's pruned, warm-started ILP reaches the exact ILP's objective", [] {
            const RandomRound r = randomRound(3, 20);
            SiaIlpOptions exact;
            exact.p = *rc::gen::element(-0.5, -1.0, 0.5);
            exact.lambdaN = exact.p < 0 ? 1.1 : -1.1;
            exact.gap = 0;
            exact.prune = false;
            exact.incumbent = false;
            SiaIlpOptions fast = exact;
            fast.prune = true;
            fast.incumbent = true;
            fast.strongBranching = *rc::gen::element(0, 5);
            const SiaIlpResult a = solveSiaIlp(r.jobs, r.capacity, exact);
            const SiaIlpResult b = solveSiaIlp(r.jobs, r.capacity, fast);
            RC_ASSERT(a.status == opt::Status::Optimal);
            RC_ASSERT(b.status == opt::Status::Optimal);
            RC_ASSERT(fitsCapacity(r, b.chosen));
            RC_ASSERT(std::abs(b.objective - objectiveOf(r, b.chosen, fast)) < 1e-6);
            // The 0.01 grid: the absolute gap of 0.005 makes "optimal" exact on it.
            RC_ASSERT(std::abs(a.objective - b.objective) < 0.005);
        });
    }

    void nodeLimitEndsAtTheIncumbentOrBetter()
    {
        // Cut off after one node, the warm-started ILP still returns a fitting assignment, no worse than every job
        // keeping its current configuration (when that fits, as it does in a run) and never better than the
        // exact optimum (which would mean a wrong objective).
        ORRERY_CHECK_PROPERTY("sia's ILP at a node limit returns a fitting assignment at least as good as staying", [] {
            const RandomRound r = randomRound(3, 25);
            SiaIlpOptions o; // p < 0: minimises
            o.maxNodes = 1;
            const SiaIlpResult got = solveSiaIlp(r.jobs, r.capacity, o);
            RC_ASSERT(got.solved);
            RC_ASSERT(fitsCapacity(r, got.chosen));
            RC_ASSERT(std::abs(got.objective - objectiveOf(r, got.chosen, o)) < 1e-6);
            std::vector<int> stay;
            for (const auto& j : r.jobs)
                stay.push_back(j.current);
            if (fitsCapacity(r, stay))
                RC_ASSERT(got.objective <= objectiveOf(r, stay, o) + 1e-9);
            SiaIlpOptions exact = o;
            exact.maxNodes = 1'000'000;
            exact.gap = 0;
            exact.prune = false;
            exact.incumbent = false;
            const SiaIlpResult best = solveSiaIlp(r.jobs, r.capacity, exact);
            RC_ASSERT(best.status == opt::Status::Optimal);
            RC_ASSERT(got.objective >= best.objective - 1e-9);
        });
    }

    void singleTypeRigidIsAKnapsack()
    {
        // One type, rigid jobs (one configuration each, worth its GPU count): the documented 0/1 knapsack,
        // maximise sum x (lambda_n - round2(g^p)) within the GPUs. Checked against brute force.
        ORRERY_CHECK_PROPERTY("sia on one type with rigid jobs solves the knapsack", [] {
            const int cap = *rc::gen::inRange(1, 40);
            const int n = *rc::gen::inRange(1, 13);
            std::vector<SiaJob> jobs(static_cast<std::size_t>(n));
            std::vector<int> g(static_cast<std::size_t>(n));
            for (int j = 0; j < n; ++j) {
                g[static_cast<std::size_t>(j)] = *rc::gen::element(1, 2, 3, 4, 8, 16);
                jobs[static_cast<std::size_t>(j)].configs = {
                    {0, g[static_cast<std::size_t>(j)], static_cast<double>(g[static_cast<std::size_t>(j)])}};
            }
            SiaIlpOptions o;
            o.gap = 0; // prove optimality: compared with brute force
            const SiaIlpResult r = solveSiaIlp(jobs, {cap}, o);
            double best = -1;
            for (int mask = 0; mask < (1 << n); ++mask) {
                int gpus = 0;
                double value = 0;
                for (int j = 0; j < n; ++j)
                    if (mask & (1 << j)) {
                        const int gj = g[static_cast<std::size_t>(j)];
                        gpus += gj;
                        value += o.lambdaN - std::round(std::pow(gj, o.p) * 100) / 100;
                    }
                if (gpus <= cap)
                    best = std::max(best, value);
            }
            double got = 0;
            for (int j = 0; j < n; ++j)
                if (r.chosen[static_cast<std::size_t>(j)] == 0)
                    got += o.lambdaN - std::round(std::pow(g[static_cast<std::size_t>(j)], o.p) * 100) / 100;
            RC_ASSERT(std::abs(got - best) < 1e-6);
            // The objective is the documented one: lambda_n x jobs minus the knapsack's value.
            RC_ASSERT(std::abs(r.objective - (o.lambdaN * n - got)) < 1e-6);
        });
    }

    void restartFactorKeepsCurrent()
    {
        // Two jobs, one GPU type of 4: job 0 runs on 2 GPUs; moving it to 4 is worth a bit more, but its restart
        // factor of 0.1 makes staying better.
        SiaJob a;
        a.configs = {{0, 2, 2.0}, {0, 4, 2.2}};
        a.current = 0;
        a.restartFactor = 0.1;
        SiaJob b;
        b.configs = {{0, 2, 1.0}};
        SiaIlpOptions o;
        SiaIlpResult r = solveSiaIlp({a, b}, {4}, o);
        QCOMPARE(r.chosen, (std::vector<int>{0, 0}));
        a.restartFactor = 1.0;
        r = solveSiaIlp({a}, {4}, o);
        QCOMPARE(r.chosen, (std::vector<int>{1}));
    }

    void goodputJobsRoundTrip()
    {
        // A goodput job's fields and the profiles option survive writing and reading the scenario.
        const std::string w = test::sharedDataPath("sia/workloads/saturn/workload-1.csv");
        if (w.empty())
            QSKIP("shared data not present");
        const io::Scenario s = goodputScenario(w, 5, kSiaCluster);
        QCOMPARE(s.workload.jobs.at(0).application, std::string("cifar10"));
        QCOMPARE(s.workload.jobs.at(0).batchSize, 4096);
        const io::Scenario back = io::parseScenario(io::scenarioToJson(s), "back.json");
        QCOMPARE(back.workload.jobs, s.workload.jobs);
        QCOMPARE(back.options.goodputProfiles, s.options.goodputProfiles);
        QCOMPARE(io::scenarioToJsonText(back, 2), io::scenarioToJson(back).dump(2));
        // iterations and duration_s are not a goodput job's.
        nlohmann::json bad = io::scenarioToJson(s);
        bad["workload"]["jobs"][0]["iterations"] = 5;
        QCOMPARE(test::errorOf([&] { io::parseScenario(bad, "b.json"); }),
                 std::string("b.json: workload.jobs[0].iterations: a goodput job's work comes from its profiles: it "
                             "takes no \"iterations\""));
    }

    void policyRunsSiaWorkload()
    {
        const std::string w = test::sharedDataPath("sia/workloads/saturn/workload-1.csv");
        if (w.empty())
            QSKIP("shared data not present");
        const io::Scenario s = goodputScenario(w, 24, kSiaCluster);
        const auto prepared = sim::prepareScenario(s);
        for (const std::string spec : {"sia", "sia:batch_tuning=false", "optimus"}) {
            auto policy = makePolicy(spec);
            const sim::RunResult r = sim::simulate(prepared, *policy, 1);
            for (const auto& rec : r.jobs)
                QVERIFY2(rec.endS > 0, qPrintable(QString::fromStdString(spec + " " + rec.id)));
            // Decisions fall on the 60 s grid: every allocation starts on a multiple of 60 s.
            for (const auto& iv : r.intervals)
                QVERIFY2(std::abs(iv.startS - 60 * std::round(iv.startS / 60)) < 1e-6, spec.c_str());
        }
        // Sia tunes batches: some job runs a batch other than its own, recorded as a plan event and an extra.
        auto sia = makePolicy("sia");
        const sim::RunResult r = sim::simulate(prepared, *sia, 1);
        bool retuned = false;
        for (const auto& e : r.jobEvents)
            retuned = retuned || e.kind == sim::JobEventKind::Plan;
        QVERIFY(retuned);
        QVERIFY(!r.series.empty());
    }
};

QTEST_GUILESS_MAIN(TestSia)
#include "test_sia.moc"
