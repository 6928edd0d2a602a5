// The memory planner and the provisioning panel on their own: their models
// under QAbstractItemModelTester, the planner's answer following its inputs
// (batch, parallelism, OOM warning), the provisioning panel producing a plan
// with a stage diagram and a scatter, and both rendering something.
#include "async/job_runner.h"
#include "charts/memory_breakdown_chart.h"
#include "charts/provision_scatter.h"
#include "document/scenario_document.h"
#include "models/plan_table_model.h"
#include "models/provision_pool_model.h"
#include "planner/memory_planner_panel.h"
#include "provision/provisioning_panel.h"
#include "provision/stage_diagram.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChartView>
#include <QSignalSpy>
#include <QSlider>
#include <QTest>

using namespace orrery;
using namespace orrery::gui;

static int nonBackgroundPixels(QWidget* w, QSize size)
{
    w->resize(size);
    QImage image(size, QImage::Format_ARGB32);
    image.fill(Qt::white);
    w->render(&image);
    QHash<QRgb, int> counts;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2)
            ++counts[image.pixel(x, y)];
    int best = 0;
    for (int c : counts)
        best = std::max(best, c);
    return (image.width() / 2) * (image.height() / 2) - best;
}

class TestPlannerPanels : public QObject
{
    Q_OBJECT
private slots:
    void init()
    {
        m_document = std::make_unique<ScenarioDocument>();
        m_document->reset(io::defaultScenario(), QString());
    }
    void cleanup()
    {
        m_runner.cancelAll();
        m_runner.waitForDone();
        QCoreApplication::processEvents();
    }

    void plannerUpdatesWhenBatchChanges()
    {
        MemoryPlannerPanel panel(m_document.get());
        QAbstractItemModelTester tester(panel.planModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.setModelName(QStringLiteral("gpt2-1.5b"));
        panel.setParallelism(1, 1, 1);
        panel.setGlobalBatch(4);
        const double small = panel.breakdown().activationsGiB;
        const double weights = panel.breakdown().weightsGiB;
        QVERIFY(small > 0);
        QVERIFY(weights > 2.5 && weights < 3.5); // 1.5 B parameters in BF16
        QVERIFY(panel.planModel()->rowCount() > 0);
        const auto plansBefore = panel.planModel()->plans();

        QSignalSpy spy(&panel, &MemoryPlannerPanel::recomputed);
        panel.setGlobalBatch(16);
        QCOMPARE(spy.count(), 1);                              // synchronous: no event loop needed
        QVERIFY(panel.breakdown().activationsGiB > 3 * small); // activations scale with the micro-batch
        QCOMPARE(panel.breakdown().weightsGiB, weights);
        // A bigger batch needs at least as many GPUs in the best plan.
        QVERIFY(!panel.planModel()->plans().empty());
        QVERIFY(panel.planModel()->plans().front().count >= plansBefore.front().count);
        // Table cells agree with the plans.
        const auto& best = panel.planModel()->plans().front();
        QCOMPARE(panel.planModel()->index(0, PlanTableModel::Count).data().toInt(), best.count);
        QCOMPARE(panel.planModel()->index(0, PlanTableModel::Dp).data().toInt(), best.par.dp);
        QCOMPARE(panel.planModel()->index(0, PlanTableModel::SamplesPerS).data(Qt::UserRole).toDouble(),
                 best.samplesPerS);
    }

    void plannerWarnsWhenTheLayoutDoesNotFit()
    {
        MemoryPlannerPanel panel(m_document.get());
        panel.setModelName(QStringLiteral("gpt3-13b")); // ~210 GB of states on one GPU: fits nothing
        panel.setParallelism(1, 1, 1);
        panel.setGlobalBatch(8);
        QCOMPARE(panel.oomTypes().size(), 3); // the default cluster's three types
        QVERIFY(panel.warningText().startsWith(QStringLiteral("Out of memory")));
        // Spread over 8-way tensor and 4-way pipeline parallelism it fits the 40 GB A100s.
        panel.setParallelism(1, 8, 4);
        QVERIFY(!panel.oomTypes().contains(QStringLiteral("A100 40GB SXM4")) || panel.oomTypes().size() < 3);
        QVERIFY(panel.oomTypes().size() < 3);
    }

    void plannerRenders()
    {
        MemoryPlannerPanel panel(m_document.get());
        QVERIFY(nonBackgroundPixels(panel.chart(), QSize(700, 450)) > 2000);
        QVERIFY(nonBackgroundPixels(&panel, QSize(1200, 800)) > 10000);
    }

    void provisioningProducesAPlan()
    {
        ProvisioningPanel panel(m_document.get(), &m_runner);
        QAbstractItemModelTester tester(panel.poolModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QCOMPARE(panel.poolModel()->pool().size(), std::size_t(4)); // the paper's pool
        QSignalSpy planned(&panel, &ProvisioningPanel::planned);
        QSignalSpy failed(&panel, &ProvisioningPanel::planFailed);
        panel.setModelName(QStringLiteral("gpt2-774m"));
        panel.setSloHours(200);
        QVERIFY(planned.wait(15000) || !planned.isEmpty());
        QCOMPARE(failed.count(), 0);
        QVERIFY(panel.hasResult());
        const auto& r = panel.lastResult();
        QVERIFY(r.hasPlan);
        QVERIFY(r.feasible);
        QVERIFY(r.plan.totalS <= 200 * 3600.0);
        QVERIFY(!r.evaluated.empty());
        // The stage diagram covers every layer exactly once, in order.
        const auto& boxes = panel.stageDiagram()->boxes();
        QCOMPARE(static_cast<int>(boxes.size()), r.plan.pp());
        QCOMPARE(boxes.front().firstLayer, 0);
        QCOMPARE(boxes.back().lastLayer, 36 - 1); // gpt2-774m has 36 layers
        for (std::size_t i = 1; i < boxes.size(); ++i)
            QCOMPARE(boxes[i].firstLayer, boxes[i - 1].lastLayer + 1);
        // The chosen plan is on the cost/time Pareto front or dominated by none that meets the SLO.
        for (const auto& e : r.evaluated)
            if (e.meetsSlo)
                QVERIFY(e.cost >= r.plan.cost * (1 - 1e-9));
        QVERIFY(!panel.scatter()->front().empty());
        QVERIFY(nonBackgroundPixels(panel.scatter()->chartView(), QSize(700, 450)) > 2000);
        QVERIFY(nonBackgroundPixels(panel.stageDiagram(), QSize(700, 130)) > 500);
    }

    void tighterSloCostsMoreOrFails()
    {
        ProvisioningPanel panel(m_document.get(), &m_runner);
        QSignalSpy planned(&panel, &ProvisioningPanel::planned);
        panel.setModelName(QStringLiteral("gpt2-774m"));
        panel.setSloHours(1000);
        QTRY_VERIFY_WITH_TIMEOUT(planned.count() >= 1 && m_runner.runningCount() == 0, 15000);
        const auto loose = panel.lastResult();
        QVERIFY(loose.feasible);
        // Drag the slider down step by step as a user would: latest wins, and the last answer is for the last SLO.
        planned.clear();
        for (int v = panel.sloSlider()->value(); v >= 0; v -= 100)
            panel.sloSlider()->setValue(v);
        panel.sloSlider()->setValue(0); // 6 minutes
        QTRY_VERIFY_WITH_TIMEOUT(planned.count() >= 1 && m_runner.runningCount() == 0, 15000);
        const auto tight = panel.lastResult();
        if (tight.feasible)
            QVERIFY(tight.plan.cost >= loose.plan.cost * (1 - 1e-9));
        else
            QVERIFY(panel.summaryText().contains(QStringLiteral("No plan meets the SLO")) || !tight.hasPlan);
    }

    void paretoFrontOfEvaluatedPlans()
    {
        std::vector<provision::EvaluatedPlan> plans(4);
        plans[0].totalS = 10, plans[0].cost = 5;
        plans[1].totalS = 20, plans[1].cost = 3;
        plans[2].totalS = 15, plans[2].cost = 6; // dominated by 0
        plans[3].totalS = 30, plans[3].cost = 3; // as cheap as 1, slower
        QCOMPARE(ProvisionScatter::paretoFront(plans), (std::vector<int>{0, 1}));
    }

    void poolModelRefusesBadQuotas()
    {
        ProvisionPoolModel model;
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setTypes(io::defaultScenario().cluster.catalog().types());
        QVERIFY(model.setQuota(QStringLiteral("a30"), 4));
        int row = -1;
        for (int r = 0; r < model.rowCount(); ++r)
            if (model.index(r, 0).data().toString() == QStringLiteral("a30"))
                row = r;
        QVERIFY(row >= 0);
        QVERIFY(!model.setData(model.index(row, ProvisionPoolModel::Quota), -2));
        QVERIFY(!model.setData(model.index(row, ProvisionPoolModel::Price), QStringLiteral("cheap")));
        QVERIFY(model.setData(model.index(row, ProvisionPoolModel::Price), 0.5));
        QCOMPARE(model.pool().size(), std::size_t(1));
        QCOMPARE(model.pool().front().pricePerHour, 0.5);
        QVERIFY(model.setData(model.index(row, ProvisionPoolModel::Gpu), Qt::Unchecked, Qt::CheckStateRole));
        QVERIFY(model.pool().empty());
    }

private:
    std::unique_ptr<ScenarioDocument> m_document;
    JobRunner m_runner;
};

QTEST_MAIN(TestPlannerPanels)
#include "test_planner_panels.moc"
