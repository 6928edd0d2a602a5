// Topology and locality: racks in cluster descriptions, and the uniform, by_span and measured locality models
// applied to the rates the engine commits.
#include "test_support.h"

#include "sim_test_helpers.h"

#include "io/error.h"
#include "io/scenario.h"
#include "sim/locality.h"
#include "sim/policy.h"
#include "sim/prepare_scenario.h"
#include "sim/simulator.h"

#include <nlohmann/json.hpp>

using namespace orrery;
using orrery::test::errorOf;
using orrery::test::fixedJob;

namespace {

/** Four nodes of 4 V100s: nodes 0 and 1 in rack r0, node 2 in r1, node 3 in r2. */
hardware::Cluster rackedCluster()
{
    std::vector<hardware::NodeGroup> groups;
    groups.push_back({"a", "v100-16gb", 2, 4, std::nullopt, {"r0"}});
    groups.push_back({"b", "v100-16gb", 2, 4, std::nullopt, {"r1", "r2"}});
    return hardware::Cluster(groups, hardware::Link{hardware::LinkKind::Ethernet, 3.125, 10},
                             hardware::GpuCatalog::builtin());
}

/** GPUs `first..first+n-1` of each listed node (4 GPUs per node). */
std::vector<int> spread(const std::vector<int>& nodes, int perNode)
{
    std::vector<int> out;
    for (int n : nodes)
        for (int k = 0; k < perNode; ++k)
            out.push_back(n * 4 + k);
    return out;
}

workload::Job archJob(std::string id, int gpus, std::string arch)
{
    auto j = fixedJob(std::move(id), 0, gpus, 1000);
    j.arch = std::move(arch);
    return j;
}

/** A policy that assigns fixed GPU sets once. */
class Place : public sim::Policy
{
public:
    explicit Place(std::vector<std::pair<int, std::vector<int>>> plan) : m_plan(std::move(plan)) {}
    std::string name() const override { return "place"; }
    void schedule(sim::Decision& d) override
    {
        for (const auto& step : m_plan)
            if (d.view().status(step.first) == sim::JobStatus::Queued)
                d.assign(step.first, step.second);
    }

private:
    std::vector<std::pair<int, std::vector<int>>> m_plan;
};

io::Scenario scenarioText(const std::string& cluster, const std::string& options = "{}")
{
    return io::parseScenarioText(R"({"format": "orrery-scenario", "version": 1, "cluster": )" + cluster +
                                     R"(, "workload": {"jobs": [{"gpus": 8, "duration_s": 100, "arch": "vgg16"}]},
                                     "options": )" +
                                     options + "}",
                                 "l.json");
}

const std::string kRackedCluster = R"({"nodes": [{"name": "a", "gpu": "v100", "count": 2, "gpus_per_node": 4,
    "rack": "r0"}, {"name": "b", "gpu": "v100", "count": 2, "gpus_per_node": 4, "rack": ["r1", "r2"]}]})";

} // namespace

class TestLocality : public QObject
{
    Q_OBJECT

private slots:
    void racksAreParsedAndWrittenBack()
    {
        const auto s = scenarioText(kRackedCluster);
        QCOMPARE(s.cluster.racks(), (std::vector<std::string>{"r0", "r1", "r2"}));
        QCOMPARE(s.cluster.rackOfNode(0), 0);
        QCOMPARE(s.cluster.rackOfNode(1), 0);
        QCOMPARE(s.cluster.rackOfNode(2), 1);
        QCOMPARE(s.cluster.rackOfNode(3), 2);
        const auto again = io::parseScenario(io::scenarioToJson(s), "again.json");
        QCOMPARE(again.cluster.groups(), s.cluster.groups());
        // Without racks, nodes belong to none.
        const auto plain = scenarioText(R"({"nodes": [{"gpu": "v100", "count": 2, "gpus_per_node": 4}]})");
        QVERIFY(plain.cluster.racks().empty());
        QCOMPARE(plain.cluster.rackOfNode(1), -1);
    }

    void badRacksAreRejected_data()
    {
        QTest::addColumn<QString>("cluster");
        QTest::addColumn<QString>("error");
        QTest::newRow("too few") << R"({"nodes": [{"gpu": "v100", "count": 2, "gpus_per_node": 4, "rack": ["r1"]}]})"
                                 << "l.json: cluster.nodes[0].rack: expected one rack name per node (2), got 1";
        QTest::newRow("empty name")
            << R"({"nodes": [{"gpu": "v100", "count": 2, "gpus_per_node": 4, "rack": ["r1", " "]}]})"
            << "l.json: cluster.nodes[0].rack[1]: expected a non-empty rack name";
        QTest::newRow("number") << R"({"nodes": [{"gpu": "v100", "gpus_per_node": 4, "rack": 3}]})"
                                << "l.json: cluster.nodes[0].rack: expected a rack name or an array of one name per "
                                   "node, got 3";
        QTest::newRow("not strings")
            << R"({"nodes": [{"gpu": "v100", "count": 2, "gpus_per_node": 4, "rack": ["r1", 2]}]})"
            << "l.json: cluster.nodes[0].rack[1]: expected a string, got 2";
    }
    void badRacksAreRejected()
    {
        QFETCH(QString, cluster);
        QFETCH(QString, error);
        QCOMPARE(QString::fromStdString(errorOf([&] { scenarioText(cluster.toStdString()); })), error);
        // The cluster itself refuses the same, for clusters built in code.
        std::vector<hardware::NodeGroup> groups{{"a", "v100-16gb", 2, 4, std::nullopt, {"r0", "r1", "r2"}}};
        QCOMPARE(QString::fromStdString(
                     errorOf([&] { hardware::Cluster(groups, hardware::Link{}, hardware::GpuCatalog::builtin()); })),
                 QString("cluster.nodes[0].rack: expected one rack name for the group or one per node (2), got 3"));
    }

    void uniformIsTheDefaultAndIgnoresRacks()
    {
        const auto w = test::prepare(rackedCluster(), {archJob("v", 8, "vgg16")});
        QCOMPARE(w.allocationRate(0, spread({0, 1}, 4)).rate, 0.9);
        QCOMPARE(w.allocationRate(0, spread({1, 2}, 4)).rate, 0.9);
        QCOMPARE(w.allocationRate(0, spread({0, 1}, 4)).span, sim::Span::Rack);
        QCOMPARE(w.allocationRate(0, spread({1, 2}, 4)).span, sim::Span::Cluster);
        QCOMPARE(w.allocationRate(0, spread({2}, 4)).span, sim::Span::Node);
        QCOMPARE(w.spanOf({5}), sim::Span::Gpu);
    }

    void bySpanAppliesThemisClasses()
    {
        io::ScenarioOptions o;
        o.locality.model = "by_span";
        const auto w = test::prepare(rackedCluster(),
                                     {archJob("net", 8, "VGG16"), archJob("cmp", 8, "ResNet-50"),
                                      archJob("unknown", 8, ""), archJob("small", 4, "vgg16")},
                                     o);
        const auto rack = spread({0, 1}, 4);
        const auto wide = spread({1, 2}, 4);
        auto near = [](double a, double b) { return std::abs(a - b) < 1e-12; };
        QVERIFY(near(w.allocationRate(0, rack).rate, 1.1 / 1.3));
        QVERIFY(near(w.allocationRate(0, wide).rate, 1.1 / 1.6));
        QVERIFY(near(w.allocationRate(1, rack).rate, 1.0 / 1.02));
        QVERIFY(near(w.allocationRate(1, wide).rate, 1.0 / 1.05));
        QVERIFY(near(w.allocationRate(2, rack).rate, 1.0 / 1.1));
        QVERIFY(near(w.allocationRate(2, wide).rate, 1.0 / 1.3));
        // Within one node nothing is lost; a rigid 8-GPU job cannot run on 4 at all.
        QVERIFY(near(w.allocationRate(3, spread({3}, 4)).rate, 1.0));
        QCOMPARE(w.allocationRate(0, spread({3}, 4)).rate, 0.0);
        // Its ideal: packed into the fewest nodes of a rack.
        QVERIFY(near(w.job(0).idealS, 1000 / (1.1 / 1.3)));

        // The engine commits the same rate: VGG16 spread over two racks runs at 1.1 / 1.6.
        Place place({{0, wide}});
        const auto only = test::prepare(rackedCluster(), {archJob("net", 8, "vgg16")}, o);
        const auto r = sim::simulate(only, place, 0);
        QVERIFY(near(r.jobs[0].endS, 1000 / (1.1 / 1.6)));
        QCOMPARE(sim::localityKey("Transformer (batch size 32)"), std::string("transformer"));
        QCOMPARE(sim::localityKey("inception_v3"), std::string("inceptionv3"));
    }

    void bySpanClassesComeFromTheScenario()
    {
        const auto s = scenarioText(kRackedCluster, R"({"locality": {"model": "by_span",
            "classes": {"net2": {"node": 1, "rack": 2, "cluster": 4}}, "model_classes": {"VGG16": "net2"}}})");
        const auto w = sim::prepareScenario(s);
        QCOMPARE(w.allocationRate(0, spread({0, 1}, 4)).rate, 0.5);
        QCOMPARE(w.allocationRate(0, spread({0, 3}, 4)).rate, 0.25);
        const auto again = io::parseScenario(io::scenarioToJson(s), "again.json");
        QCOMPARE(again.options, s.options);
    }

    void badLocalityOptionsAreRejected_data()
    {
        QTest::addColumn<QString>("options");
        QTest::addColumn<QString>("error");
        QTest::newRow("unknown model") << R"({"locality": "nearby"})"
                                       << "l.json: options.locality: expected uniform, by_span or measured (or an "
                                          "object with \"model\"), got \"nearby\"";
        QTest::newRow("unknown class")
            << R"({"locality": {"model": "by_span", "model_classes": {"vgg16": "chatty"}}})"
            << "l.json: options.locality.model_classes.vgg16: unknown locality class \"chatty\"";
        QTest::newRow("falling slowdown")
            << R"({"locality": {"model": "by_span", "classes": {"x": {"node": 1.5, "rack": 1.2, "cluster": 2}}}})"
            << "l.json: options.locality.classes.x: slowdowns must not fall as the span widens (node <= rack <= "
               "cluster)";
        QTest::newRow("speed-up") << R"({"locality": {"model": "by_span", "classes": {"x": {"node": 0.5, "rack": 1,
            "cluster": 2}}}})"
                                  << "l.json: options.locality.classes.x.node: expected a slowdown S >= 1 (iteration "
                                     "time over that in one node's worth of ideal scaling), got 0.5";
        QTest::newRow("no table") << R"({"locality": {"model": "measured"}})"
                                  << "l.json: options.locality.table: the measured model needs a table (a Chronus "
                                     "model_info.json, relative to the scenario)";
        QTest::newRow("table for by_span") << R"({"locality": {"model": "by_span", "table": "t.json"}})"
                                           << "l.json: options.locality.table: only the measured model takes a table";
    }
    void badLocalityOptionsAreRejected()
    {
        QFETCH(QString, options);
        QFETCH(QString, error);
        QCOMPARE(QString::fromStdString(errorOf([&] { scenarioText(kRackedCluster, options.toStdString()); })), error);
    }

    void measuredReadsChronusTable()
    {
        const std::string table = test::sharedDataPath("chronus/model_info.json");
        if (table.empty())
            QSKIP("../shared/data is absent");
        io::ScenarioOptions o;
        o.locality.model = "measured";
        o.locality.table = table;
        const auto cluster = test::makeCluster({{"v100-16gb", 4, 4}});
        const auto w =
            test::prepare(cluster,
                          {archJob("a4", 4, "alexnet"), archJob("a8", 8, "alexnet"), archJob("i2", 2, "inception_v3"),
                           archJob("b", 4, "bert"), archJob("a16", 16, "alexnet")},
                          o);
        auto near = [](double a, double b) { return std::abs(a - b) < 1e-12; };
        // alexnet on 4 GPUs: 1 node 1.0, 2 nodes 0.397, 4 nodes 0.325 (model_info.json).
        QVERIFY(near(w.allocationRate(0, spread({0}, 4)).rate, 1.0));
        QVERIFY(near(w.allocationRate(0, spread({0, 1}, 2)).rate, 0.3972922047776267));
        QVERIFY(near(w.allocationRate(0, spread({0, 1, 2, 3}, 1)).rate, 0.325340860506144));
        // 8 GPUs over 3 nodes: the fewest profiled nodes at or above 3 (4).
        std::vector<int> three = spread({0}, 4);
        for (int g : spread({1, 2}, 2))
            three.push_back(g);
        QVERIFY(near(w.allocationRate(1, three).rate, 0.26836765904968457));
        // 16 GPUs (unprofiled) over 4 nodes: the largest profiled count below, 8, at 4 nodes.
        QVERIFY(near(w.allocationRate(4, spread({0, 1, 2, 3}, 4)).rate, 0.26836765904968457));
        // Never faster spread than packed: inception_v3's 1.0025 is read as 1.
        QVERIFY(near(w.allocationRate(2, spread({0, 1}, 1)).rate, 1.0));
        // A model the table lacks keeps the uniform factor.
        QVERIFY(near(w.allocationRate(3, spread({0, 1}, 2)).rate, 0.9));
    }

    void badMeasuredTablesAreRejected()
    {
        QCOMPARE(QString::fromStdString(errorOf(
                     [] { sim::MeasuredLocality::fromJsonText(R"({"alexnet": {"4": {"2": -1}}})", "t.json"); })),
                 QString("t.json: alexnet.4.2: expected a positive relative speed, got -1"));
        QCOMPARE(QString::fromStdString(errorOf(
                     [] { sim::MeasuredLocality::fromJsonText(R"({"alexnet": {"four": {"2": 1}}})", "t.json"); })),
                 QString("t.json: alexnet.four: expected a positive integer key, got \"four\""));
        QCOMPARE(QString::fromStdString(errorOf(
                     [] { sim::MeasuredLocality::fromJsonText(R"({"alexnet": {"2": {"4": 0.5}}})", "t.json"); })),
                 QString("t.json: alexnet.2.4: 2 GPUs cannot span 4 nodes"));
        io::ScenarioOptions o;
        o.locality.model = "measured";
        o.locality.table = "/nonexistent/model_info.json";
        const QString e = QString::fromStdString(errorOf([&] { sim::LocalityModel{o}; }));
        QVERIFY2(e.startsWith("options.locality.table: "), qPrintable(e));
    }

    void gavelCompatHasNoLocality()
    {
        io::ScenarioOptions o;
        o.locality.model = "by_span";
        o.gavelCompat = true;
        const auto w = test::prepare(rackedCluster(), {archJob("v", 8, "vgg16")}, o);
        QCOMPARE(w.allocationRate(0, spread({1, 2}, 4)).rate, 1.0);
    }
};

QTEST_GUILESS_MAIN(TestLocality)
#include "test_locality.moc"
