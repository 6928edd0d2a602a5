// The simulator under gavel_compat against Gavel's own figures, and the throughput-table reader.
#include "test_support.h"

#include "io/error.h"
#include "io/scenario.h"
#include "metrics/metrics.h"
#include "sched/run_policies.h"
#include "sim/gavel_throughputs.h"
#include "sim/prepare_scenario.h"
#include "util/text.h"
#include "workload/gavel_throughput_table.h"

#include <nlohmann/json.hpp>

using namespace orrery;

namespace {

io::Scenario gavelScenario(const std::string& trace, bool compat)
{
    const std::string throughputs = test::sharedDataPath("gavel/simulation_throughputs.json");
    nlohmann::json doc = {{"format", "orrery-scenario"},
                          {"version", 1},
                          {"name", "gavel"},
                          {"cluster",
                           {{"nodes",
                             {{{"name", "v"}, {"gpu", "v100"}, {"count", 36}, {"gpus_per_node", 1}},
                              {{"name", "p"}, {"gpu", "p100"}, {"count", 36}, {"gpus_per_node", 1}},
                              {{"name", "k"}, {"gpu", "k80"}, {"count", 36}, {"gpus_per_node", 1}}}},
                            {"network", {{"kind", "ethernet"}, {"bandwidth_gbit_s", 25}}}}},
                          {"workload", {{"trace", {{"format", "gavel"}, {"path", trace}}}}},
                          {"policies", {"fifo"}},
                          {"options", {{"seed", 0}, {"gavel_compat", compat}, {"throughputs", throughputs}}}};
    return io::parseScenario(doc, "gavel.json");
}

} // namespace

class TestGavelValidation : public QObject
{
    Q_OBJECT
private slots:
    void jobKeys()
    {
        std::string type;
        int sf = 0;
        QVERIFY(workload::parseGavelJobKey("('ResNet-18 (batch size 16)', 1)", type, sf));
        QCOMPARE(type, std::string("ResNet-18 (batch size 16)"));
        QCOMPARE(sf, 1);
        QVERIFY(workload::parseGavelJobKey("('A3C', 8)", type, sf));
        QCOMPARE(sf, 8);
        QVERIFY(!workload::parseGavelJobKey("ResNet-18", type, sf));
        QVERIFY(!workload::parseGavelJobKey("('A3C', x)", type, sf));
    }

    void tableSemantics()
    {
        const auto table = sim::GavelThroughputs::fromJsonText(
            R"J({"v100": {"('A3C', 1)": {"null": 2.5, "('A3C', 1)": [1.0, 1.0]}, "('A3C', 4)": {"null": 8.0}},
                "k80_unconsolidated": {"('A3C', 1)": {"null": 9.0}}})J",
            "t.json");
        workload::Job job;
        job.jobType = "A3C";
        const auto& v100 = hardware::GpuCatalog::builtin().at("v100");
        QCOMPARE(table.rate(job, v100, 1), 2.5);
        QCOMPARE(table.rate(job, v100, 4), 8.0);
        // 16 GPUs: the largest profiled scale factor (4) scaled linearly.
        QCOMPARE(table.rate(job, v100, 16), 32.0);
        QCOMPARE(table.rate(job, hardware::GpuCatalog::builtin().at("k80"), 1), 0.0);
        QCOMPARE(table.table().workerTypes(), std::vector<std::string>{"v100-16gb"});
    }

    void malformedTableNamesThePath()
    {
        try {
            sim::GavelThroughputs::fromJsonText(R"J({"v100": {"('A3C', 1)": {"null": "fast"}}})J", "t.json");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QCOMPARE(std::string(e.what()),
                     std::string(
                         "t.json: v100.('A3C', 1).null: expected a non-negative throughput in steps/s, got \"fast\""));
        }
        try {
            sim::GavelThroughputs::fromJsonText(R"({"tpu": {}})", "t.json");
            QFAIL("expected an error");
        } catch (const Error& e) {
            QVERIFY(std::string(e.what()).find("unknown worker type \"tpu\"") != std::string::npos);
        }
    }

    // The table is read straight from simdjson's DOM where the strict reader would accept the text; a text it could
    // judge or read differently goes to the strict reader. A non-object "unconsolidated" row (skipped by the strict
    // reader, refused by the fast one) sends Gavel's real file down the strict path: both tables must be equal.
    void fastAndStrictReadersAgreeOnGavelsTable()
    {
        const std::string path = test::sharedDataPath("gavel/simulation_throughputs.json");
        if (path.empty())
            QSKIP("../shared/data/gavel is not present");
        const auto fast = workload::GavelThroughputTable::fromFile(path);
        std::string text = util::readFile(path);
        const auto brace = text.find('{');
        QVERIFY(brace != std::string::npos);
        text.insert(brace + 1, R"("zz_unconsolidated": 1, )");
        const auto strict = workload::GavelThroughputTable::fromJsonText(text, "t.json");
        QCOMPARE(fast.workerTypes(), strict.workerTypes());
        QCOMPARE(fast.workerTypes().size(), std::size_t{3});
        std::size_t entries = 0;
        for (const auto& type : fast.workerTypes()) {
            QVERIFY(*fast.row(type) == *strict.row(type));
            entries += fast.row(type)->size();
        }
        QCOMPARE(entries, std::size_t{3 * 83});
        QCOMPARE(fast.lookup("k80", "ResNet-18 (batch size 16)", 1), 4.795294551566172);
    }

    void fastReaderLeavesTheStrictReadersCasesToIt()
    {
        // Two keys naming one (job type, scale factor): the strict reader takes them in key order, the last one wins.
        const auto table = workload::GavelThroughputTable::fromJsonText(
            R"J({"v100": {"('A3C', 1)": {"null": 2.5}, "('A3C', 01)": {"null": 7.0}}})J", "t.json");
        QCOMPARE(table.lookup("v100-16gb", "A3C", 1), 2.5);
        // A repeated key inside a co-location entry that nothing reads is still an error.
        QVERIFY_THROWS_EXCEPTION(Error,
                                 workload::GavelThroughputTable::fromJsonText(
                                     R"J({"v100": {"('A3C', 1)": {"null": 2.5, "x": {"a": 1, "a": 2}}}})J", "t.json"));
        QVERIFY_THROWS_EXCEPTION(
            Error, workload::GavelThroughputTable::fromJsonText(
                       R"J({"v100": {"('A3C', 1)": {"null": 2.5}, "('A3C', 1)": {"null": 3}}})J", "t.json"));
        // Integers are throughputs too, as nlohmann's numbers were.
        QCOMPARE(workload::GavelThroughputTable::fromJsonText(R"J({"k80": {"('A3C', 2)": {"null": 3}}})J", "t.json")
                     .lookup("k80", "A3C", 2),
                 3.0);
        QVERIFY_THROWS_EXCEPTION(
            Error, workload::GavelThroughputTable::fromJsonText(R"J({"k80": {"('A3C', 2)": {"n": 3}}})J", "t.json"));
        QVERIFY_THROWS_EXCEPTION(Error, workload::GavelThroughputTable::fromJsonText(
                                            R"J({"k80": {"('A3C', 2)": {"null": -1}}})J", "t.json"));
    }

    void poissonTraceMatchesGavel()
    {
        const std::string trace = test::sharedDataPath("gavel/traces/poisson1000_1gpu_lam150_seed0.trace");
        if (trace.empty() || test::sharedDataPath("gavel/simulation_throughputs.json").empty())
            QSKIP("shared Gavel data not present");
        const auto w = sim::prepareScenario(gavelScenario(trace, true));
        QCOMPARE(w.jobCount(), 1000);
        const std::vector<std::pair<std::string, double>> reference = {
            {"fifo", 12247}, {"fifo_perf", 9488}, {"max_min_fairness", 13320}, {"max_min_fairness_perf", 9410}};
        std::vector<std::string> names;
        for (const auto& [name, ref] : reference)
            names.push_back(name);
        const auto runs = sched::runPolicies(w, names, 0, 2);
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const auto s = metrics::summarize(runs[i]);
            QCOMPARE(s.jobsCompleted, 1000);
            // The targets: 2% for FIFO, 5% for max-min. With Gavel's whole steps per round modelled, FIFO and
            // the agnostic max-min policy reproduce Gavel to the figure it printed (docs/validation.md).
            QVERIFY2(i == 3 || std::abs(s.avgJctS / reference[i].second - 1) <= 1e-3,
                     qPrintable(QString::fromStdString(reference[i].first)));
            const double tolerance = i < 2 ? 0.02 : 0.05;
            const double error = std::abs(s.avgJctS / reference[i].second - 1);
            QVERIFY2(error <= tolerance, qPrintable(QString("%1: %2 s vs Gavel %3 s")
                                                        .arg(QString::fromStdString(reference[i].first))
                                                        .arg(s.avgJctS)
                                                        .arg(reference[i].second)));
        }
        // Orrery's own semantics on the same trace: every job still finishes, heterogeneity-aware FIFO beats
        // the agnostic one.
        const auto own = sim::prepareScenario(gavelScenario(trace, false));
        const auto ownRuns = sched::runPolicies(own, {"fifo", "fifo_perf"}, 0);
        QCOMPARE(metrics::summarize(ownRuns[0]).jobsCompleted, 1000);
        QVERIFY(metrics::summarize(ownRuns[1]).avgJctS < metrics::summarize(ownRuns[0]).avgJctS);
    }

    void policyLibraryMatchesGavel()
    {
        // Gavel's own simulator on the same trace and cluster, measured with scripts/validation, its LP policies
        // through ECOS itself (the solver Gavel's cvxpy calls) behind the cvxpy stand-in (docs/validation.md).
        // min_total_duration(_perf) and max_sum_throughput_perf take ECOS' point of their LP (opt::solveHomogeneous)
        // and agree to the second; finish-time fairness finds the optimum of ECOS' SOCP by a search over LPs and
        // takes a point of its optimal set (its analytic centre for _perf: 0.03% off, asserted at 0.5%; ECOS' point
        // for the agnostic variant: within 1%, asserted at 2%). Isolated and AlloX solve no LP.
        const std::string trace = test::sharedDataPath("gavel/traces/poisson1000_1gpu_lam150_seed0.trace");
        if (trace.empty() || test::sharedDataPath("gavel/simulation_throughputs.json").empty())
            QSKIP("shared Gavel data not present");
        const auto w = sim::prepareScenario(gavelScenario(trace, true));
        struct Reference
        {
            std::string policy;
            double gavelAvgJctS;
            double tolerance;
        };
        const std::vector<Reference> reference = {
            {"isolated", 13321.066, 1e-4},
            {"allox", 9385.302, 1e-3},
            {"max_sum_throughput_perf", 9336.279, 1e-3},
            {"min_total_duration_perf", 10244.313, 1e-3},
            {"min_total_duration", 13295.738, 1e-3},
            {"finish_time_fairness_perf", 9730.735, 0.005},
            {"finish_time_fairness", 13301.179, 0.02},
        };
        std::vector<std::string> names;
        for (const auto& r : reference)
            names.push_back(r.policy);
        const auto runs = sched::runPolicies(w, names, 0, 2);
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const auto s = metrics::summarize(runs[i]);
            QCOMPARE(s.jobsCompleted, 1000);
            const double error = std::abs(s.avgJctS / reference[i].gavelAvgJctS - 1);
            QVERIFY2(error <= reference[i].tolerance, qPrintable(QString("%1: %2 s vs Gavel %3 s")
                                                                     .arg(QString::fromStdString(reference[i].policy))
                                                                     .arg(s.avgJctS)
                                                                     .arg(reference[i].gavelAvgJctS)));
        }
    }
};

QTEST_GUILESS_MAIN(TestGavelValidation)
#include "test_gavel_validation.moc"
