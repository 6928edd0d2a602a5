// The memory planner on its own: its plan model under QAbstractItemModelTester, its answer following its inputs
// (batch, parallelism, OOM warning; every estimator-v2 control, whose numbers must be core's and whose refusals
// core's words), and rendering something.
#include "charts/memory_breakdown_chart.h"
#include "document/scenario_document.h"
#include "hardware/gpu_catalog.h"
#include "models/plan_table_model.h"
#include "painted_pixels.h"
#include "planner/memory_planner_panel.h"
#include "test_support.h"
#include <QAbstractItemModelTester>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCheckBox>
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTableView>
#include <QTest>

using namespace orrery;
using namespace orrery::gui;
/** A control of the planner by its object name, as a user reaches it (nullptr when missing). */
template <class W> static W* control(MemoryPlannerPanel& panel, const char* name)
{
    return panel.findChild<W*>(QString::fromLatin1(name));
}

static void choose(MemoryPlannerPanel& panel, const char* name, int value)
{
    auto* box = control<QComboBox>(panel, name);
    QVERIFY2(box, name);
    const int index = box->findData(value);
    QVERIFY2(index >= 0, name);
    box->setCurrentIndex(index);
}

static void check(MemoryPlannerPanel& panel, const char* name, bool on)
{
    auto* box = control<QCheckBox>(panel, name);
    QVERIFY2(box, name);
    box->setChecked(on);
}

static void spinTo(MemoryPlannerPanel& panel, const char* name, int value)
{
    auto* box = control<QSpinBox>(panel, name);
    QVERIFY2(box, name);
    box->setValue(value);
}

static bool sameMemory(const estimate::MemoryBreakdown& a, const estimate::MemoryBreakdown& b)
{
    return a.weightsGiB == b.weightsGiB && a.gradientsGiB == b.gradientsGiB && a.optimizerGiB == b.optimizerGiB &&
           a.activationsGiB == b.activationsGiB && a.overheadGiB == b.overheadGiB && a.contextGiB == b.contextGiB &&
           a.slackGiB == b.slackGiB;
}

/**
 * What the panel must show for `config` on `par`: core's breakdown, with the three totals in the chart's legend, or
 * core's refusal word for word, the control at fault marked. Returns what differs (empty when nothing does); `core`
 * gets core's breakdown (zero when it refused).
 */
static QString differenceFromCore(MemoryPlannerPanel& panel, const workload::TrainingConfig& config,
                                  const estimate::Parallelism& par, estimate::MemoryBreakdown& core)
{
    const workload::ModelSpec model = panel.currentModel();
    core = {};
    const std::string refusal = test::errorOf([&] {
        estimate::checkLayout(model, config, par);
        core = estimate::estimateMemory(model, config, par);
    });
    if (!(panel.currentConfig() == config && panel.currentLayout() == par))
        return QStringLiteral("the controls do not give the expected config and layout");
    if (refusal != "(no error)") {
        core = {};
        const QString expected = QStringLiteral("This layout cannot be estimated: %1").arg(refusal.c_str());
        if (panel.warningText() != expected)
            return QStringLiteral("panel says \"%1\", core \"%2\"").arg(panel.warningText(), expected);
        if (!panel.faultyControl())
            return QStringLiteral("no control marked for \"%1\"").arg(refusal.c_str());
        return {};
    }
    if (!sameMemory(panel.breakdown(), core))
        return QStringLiteral("panel %1 GiB, core %2 GiB").arg(panel.breakdown().totalGiB()).arg(core.totalGiB());
    if (panel.faultyControl())
        return QStringLiteral("a control is marked although core accepts the inputs: %1").arg(panel.warningText());
    const QString legend = panel.chart()->legendText();
    for (double total : {core.allocatedGiB(), core.reservedGiB(), core.totalGiB()})
        if (!legend.contains(QString::number(total, 'f', 2)))
            return QStringLiteral("the legend lacks %1 GiB: %2").arg(total).arg(legend);
    return {};
}

#define EXPECT_CORE(panel, config, par, core)                                                                          \
    do {                                                                                                               \
        const QString difference = differenceFromCore(panel, config, par, core);                                       \
        QVERIFY2(difference.isEmpty(), qPrintable(difference));                                                        \
    } while (false)

class TestMemoryPlanner : public QObject
{
    Q_OBJECT
private slots:
    // The planner estimates on the GUI thread: no worker to wait for between cases.
    void init()
    {
        m_document = std::make_unique<ScenarioDocument>();
        m_document->reset(io::defaultScenario(), QString());
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

    /**
     * A plan double-clicked in the table is charted at the micro-batch the table assumed (issue 19: a
     * pipeline plan listed at 38.6 GiB/GPU was charted at B / dp, 457 GiB), and both say which.
     */
    void plannerChartsThePlanItLists()
    {
        MemoryPlannerPanel panel(m_document.get());
        panel.setModelName(QStringLiteral("llama2-7b"));
        panel.setGlobalBatch(16);
        panel.setCatalogTypes(true);
        panel.setPipelinePlans(true);
        const auto plans = panel.planModel()->plans();
        int row = -1;
        for (int r = 0; r < static_cast<int>(plans.size()) && row < 0; ++r)
            if (plans[static_cast<std::size_t>(r)].par.pp > 1 && plans[static_cast<std::size_t>(r)].par.dp < 16)
                row = r;
        QVERIFY(row >= 0);
        const estimate::Plan plan = plans[static_cast<std::size_t>(row)];
        QCOMPARE(plan.microBatch, 1); // a pipeline with "B / dp" given: the table assumes micro-batch 1
        QCOMPARE(panel.planModel()->index(row, PlanTableModel::MicroBatch).data().toInt(), plan.microBatch);
        panel.showPlan(row);
        QCOMPARE(panel.chartMicroBatch(), plan.microBatch);
        QVERIFY2(
            std::abs(panel.breakdown().totalGiB() - plan.memoryGiB) < 1e-9,
            qPrintable(
                QStringLiteral("chart %1 GiB, table %2 GiB").arg(panel.breakdown().totalGiB()).arg(plan.memoryGiB)));
        QVERIFY2(panel.warningText().contains(QStringLiteral("micro-batch 1 (plan #%1)").arg(row + 1)),
                 qPrintable(panel.warningText()));
        // Editing the inputs returns the chart to them: B / dp per replica.
        panel.setParallelism(plan.par.dp, plan.par.tp, plan.par.pp);
        QCOMPARE(panel.chartMicroBatch(), 16 / plan.par.dp);
        QVERIFY(panel.warningText().contains(QStringLiteral("(B / dp)")));
    }

    /** Types the layout does not fit get a visible OOM mark over their bar. */
    void plannerMarksOom()
    {
        MemoryPlannerPanel panel(m_document.get());
        panel.setModelName(QStringLiteral("gpt3-13b"));
        panel.setParallelism(1, 1, 1);
        QCOMPARE(panel.oomTypes().size(), 3);
        QCOMPARE(panel.chart()->oomMarks(), 3);
        const QScatterSeries* marks = nullptr;
        for (auto* s : panel.chart()->chartView()->chart()->series())
            if (s->name() == QStringLiteral("OOM"))
                marks = qobject_cast<QScatterSeries*>(s);
        QVERIFY(marks);
        QCOMPARE(marks->count(), 3);
        QVERIFY(marks->pointLabelsVisible());
        QCOMPARE(marks->pointLabelsFormat(), QStringLiteral("OOM"));
        panel.setParallelism(1, 8, 4);
        QCOMPARE(panel.chart()->oomMarks(), static_cast<int>(panel.oomTypes().size()));
    }

    /** With pipeline plans off and nothing fitting, the planner says pipelines would fit. */
    void plannerSuggestsPipelines()
    {
        MemoryPlannerPanel panel(m_document.get());
        panel.setModelName(QStringLiteral("llama2-7b"));
        panel.setGlobalBatch(16);
        panel.setPipelinePlans(false);
        if (panel.planModel()->rowCount() > 0)
            panel.setGlobalBatch(64); // more activations per replica: only pipelines' micro-batches fit
        QCOMPARE(panel.planModel()->rowCount(), 0);
        QVERIFY2(panel.planSummaryText().contains(QStringLiteral("Include pipeline plans")),
                 qPrintable(panel.planSummaryText()));
        panel.setPipelinePlans(true);
        QVERIFY(panel.planModel()->rowCount() > 0);
    }

    void plannerRenders()
    {
        MemoryPlannerPanel panel(m_document.get());
        QVERIFY(test::paintedPixels(test::renderedOnWhite(panel.chart(), QSize(700, 450)), 2) > 2000);
        QVERIFY(test::paintedPixels(test::renderedOnWhite(&panel, QSize(1200, 800)), 2) > 10000);
    }

    /** Every estimator-v2 control, set as a user sets it: the chart shows core's numbers for the same options, and
     *  each option moves the term it is about. */
    void plannerSpeaksEstimatorV2()
    {
        MemoryPlannerPanel panel(m_document.get());
        panel.setModelName(QStringLiteral("llama2-7b"));
        panel.setGlobalBatch(8);
        panel.setLayout({8, 1, 1, 1, 1});
        workload::TrainingConfig c;
        c.globalBatch = 8;
        c.flashAttention = true; // the panel's default
        estimate::Parallelism par{8, 1, 1, 1, 1};
        estimate::MemoryBreakdown last;
        EXPECT_CORE(panel, c, par, last);
        QVERIFY(last.totalGiB() > 0);
        // Allocated < reserved < device-visible, as the totals line shows them.
        QVERIFY(last.allocatedGiB() < last.reservedGiB() && last.reservedGiB() < last.totalGiB());

        const auto step = [&](auto edit, auto moved, const char* what) {
            edit();
            estimate::MemoryBreakdown now;
            const QString difference = differenceFromCore(panel, c, par, now);
            QVERIFY2(difference.isEmpty(), qPrintable(QStringLiteral("%1: %2").arg(what, difference)));
            QVERIFY2(now.totalGiB() > 0, what);
            QVERIFY2(moved(now, last), what);
            last = now;
        };
        using M = const estimate::MemoryBreakdown&;
        step([&] { choose(panel, "framework", static_cast<int>(c.framework = workload::Framework::Fsdp)); },
             [](M, M) { return true; }, "framework fsdp");
        step([&] { choose(panel, "recompute", static_cast<int>(c.recompute = workload::Recompute::SelectiveOp)); },
             [](M now, M before) { return now.activationsGiB < before.activationsGiB; }, "selective_op");
        step([&] { choose(panel, "optimizer", static_cast<int>(c.optimizer = workload::Optimizer::Adam8bit)); },
             [](M now, M before) { return now.optimizerGiB < before.optimizerGiB; }, "adam8bit");
        step([&] { choose(panel, "optimizer", static_cast<int>(c.optimizer = workload::Optimizer::Adafactor)); },
             [](M now, M before) { return now.optimizerGiB < before.optimizerGiB; }, "adafactor");
        step([&] { check(panel, "offloadOptimizer", c.offloadOptimizer = true); },
             [](M now, M) { return now.optimizerGiB == 0; }, "offload");
        step(
            [&] {
                check(panel, "offloadOptimizer", c.offloadOptimizer = false);
                choose(panel, "optimizer", static_cast<int>(c.optimizer = workload::Optimizer::Adam));
            },
            [](M now, M before) { return now.optimizerGiB > before.optimizerGiB; }, "back to adam");
        step([&] { check(panel, "pureHalf", c.pureHalf = true); },
             [](M now, M before) { return now.optimizerGiB < before.optimizerGiB; }, "pure half");
        step(
            [&] {
                check(panel, "pureHalf", c.pureHalf = false);
                check(panel, "fp32Grads", c.fp32Grads = true);
            },
            [](M now, M before) { return now.gradientsGiB > before.gradientsGiB; }, "fp32 gradients");
        step([&] { check(panel, "fp8", c.fp8 = true); },
             [](M now, M before) { return now.totalGiB() != before.totalGiB(); }, "fp8");
        step(
            [&] {
                check(panel, "fp8", c.fp8 = false);
                check(panel, "fp32Grads", c.fp32Grads = false);
                choose(panel, "framework", static_cast<int>(c.framework = workload::Framework::LitGpt));
            },
            [](M now, M before) { return now.gradientsGiB < before.gradientsGiB; }, "litgpt (bf16-true)");
        // A pipeline of 4 with 4 micro-batches per replica, then interleaved: the first stage holds more in flight.
        step(
            [&] {
                choose(panel, "recompute", static_cast<int>(c.recompute = workload::Recompute::None));
                spinTo(panel, "microBatch", c.microBatch = 1);
                spinTo(panel, "dp", par.dp = 2);
                spinTo(panel, "pp", par.pp = 4);
            },
            [](M now, M before) { return now.weightsGiB < before.weightsGiB; }, "pp 4");
        step([&] { spinTo(panel, "virtualStages", c.virtualStages = 2); },
             [](M now, M before) { return now.activationsGiB > before.activationsGiB; }, "virtual stages 2");
        step([&] { spinTo(panel, "cp", par.cp = 2); },
             [](M now, M before) { return now.activationsGiB < before.activationsGiB; }, "cp 2");
        // Mixtral: ep splits the experts, so the weights per GPU fall.
        step(
            [&] {
                spinTo(panel, "cp", par.cp = 1);
                spinTo(panel, "virtualStages", c.virtualStages = 1);
                spinTo(panel, "pp", par.pp = 1);
                spinTo(panel, "dp", par.dp = 8);
                panel.setModelName(QStringLiteral("mixtral-8x7b"));
            },
            [](M now, M before) { return now.weightsGiB > before.weightsGiB; }, "mixtral");
        QVERIFY(control<QSpinBox>(panel, "ep")->isEnabled());
        step([&] { spinTo(panel, "ep", par.ep = 8); },
             [](M now, M before) { return now.weightsGiB < before.weightsGiB / 4; }, "ep 8");
    }

    /** Combinations core refuses are refused in the panel with core's words and the control at fault marked; the
     *  controls that cannot apply are disabled with the reason in their tooltip. */
    void plannerExplainsInvalidCombinations()
    {
        MemoryPlannerPanel panel(m_document.get());
        panel.setModelName(QStringLiteral("gpt2-1.5b")); // dense, sequence 1024
        panel.setGlobalBatch(8);
        panel.setLayout({4, 1, 1, 1, 1});
        auto* ep = control<QSpinBox>(panel, "ep");
        QVERIFY(!ep->isEnabled());
        QVERIFY2(ep->toolTip().contains(QStringLiteral("gpt2-1.5b is dense")), qPrintable(ep->toolTip()));
        ep->setValue(4); // disabled: not part of the layout
        QCOMPARE(panel.currentLayout().ep, 1);

        workload::TrainingConfig c = panel.currentConfig();
        estimate::Parallelism par = panel.currentLayout();
        estimate::MemoryBreakdown core;
        const auto refused = [&](const char* controlName) {
            EXPECT_CORE(panel, c, par, core);
            QVERIFY2(panel.warningText().startsWith(QStringLiteral("This layout cannot be estimated")),
                     qPrintable(panel.warningText()));
            QCOMPARE(panel.faultyControl(), panel.findChild<QWidget*>(QString::fromLatin1(controlName)));
            QVERIFY(panel.warningText().endsWith(panel.faultyControl()->toolTip()));
            QCOMPARE(panel.breakdown().totalGiB(), 0.0);
        };
        // Pure half with fp32: the message scenario files and the CLI get (workload::checkTrainingConfig).
        choose(panel, "precision", static_cast<int>(c.precision = workload::Precision::FP32));
        QVERIFY(!control<QCheckBox>(panel, "autocast")->isEnabled());
        check(panel, "pureHalf", c.pureHalf = true);
        refused("pureHalf");
        QVERIFY(panel.warningText().contains(QStringLiteral("pure_half: only meaningful with bf16 or fp16")));
        QVERIFY(panel.planSummaryText().startsWith(QStringLiteral("No plans: pure_half")));
        check(panel, "pureHalf", c.pureHalf = false);
        check(panel, "fp8", c.fp8 = true);
        refused("fp8");
        check(panel, "fp8", c.fp8 = false);
        choose(panel, "precision", static_cast<int>(c.precision = workload::Precision::BF16));
        EXPECT_CORE(panel, c, par, core);
        QVERIFY(!panel.faultyControl());
        // The fault's tooltip is gone, the control's own is back.
        QVERIFY(control<QCheckBox>(panel, "fp8")->toolTip().startsWith(QStringLiteral("The layers' linear GEMMs")));

        // cp must split the sequence into 2 cp chunks, and needs flash attention.
        spinTo(panel, "dp", par.dp = 1);
        spinTo(panel, "cp", par.cp = 3);
        refused("cp");
        QVERIFY(panel.warningText().contains(QStringLiteral("cp: the sequence (1024) must split into 2 x cp = 6")));
        spinTo(panel, "cp", par.cp = 2);
        EXPECT_CORE(panel, c, par, core);
        check(panel, "flashAttention", c.flashAttention = false);
        refused("cp");
        QVERIFY(!control<QCheckBox>(panel, "contextParallelPlans")->isEnabled());
        check(panel, "flashAttention", c.flashAttention = true);
        QVERIFY(control<QCheckBox>(panel, "contextParallelPlans")->isEnabled());
        spinTo(panel, "cp", par.cp = 1);

        // Interleaving needs a pipeline.
        spinTo(panel, "virtualStages", c.virtualStages = 2);
        refused("virtualStages");
        spinTo(panel, "virtualStages", c.virtualStages = 1);

        // ep must divide dp and the experts of an MoE model.
        panel.setModelName(QStringLiteral("mixtral-8x7b"));
        QVERIFY(ep->isEnabled());
        spinTo(panel, "dp", par.dp = 2);
        par.ep = 4; // the spin still holds 4
        refused("ep");
        QVERIFY(panel.warningText().contains(QStringLiteral("ep: ep (4) must divide dp (2)")));
        spinTo(panel, "ep", par.ep = 2);
        EXPECT_CORE(panel, c, par, core);
        QVERIFY(!panel.faultyControl());
        QVERIFY(!ep->toolTip().contains(QStringLiteral("ep: "))); // its own tooltip is back

        // FP8 on types without FP8 tensor cores: the panel names them (core's check) and lists no plan on them.
        panel.setModelName(QStringLiteral("gpt2-1.5b"));
        panel.setCatalogTypes(true);
        check(panel, "fp8", true);
        QVERIFY2(panel.warningText().contains(QStringLiteral("has no FP8 tensor cores")),
                 qPrintable(panel.warningText()));
        QVERIFY(panel.planModel()->rowCount() > 0);
        for (const auto& plan : panel.planModel()->plans()) {
            workload::TrainingConfig fp8;
            fp8.fp8 = true;
            QCOMPARE(
                test::errorOf([&] { estimate::checkGpuSupport(fp8, hardware::GpuCatalog::builtin().at(plan.gpu)); }),
                std::string("(no error)"));
        }
    }

    /** Any mix of the new controls: the panel shows core's estimate or core's refusal (RapidCheck). */
    void plannerFollowsTheCoreOnAnyMix()
    {
        MemoryPlannerPanel panel(m_document.get());
        QVERIFY(test::checkProperty("the planner shows core's estimate or refusal", [&] {
            const std::vector<std::string> models{"gpt2-1.5b", "llama2-7b", "mixtral-8x7b", "deepspeed-moe-1.3b-e128"};
            const std::string model = *rc::gen::elementOf(models);
            panel.setModelName(QString::fromStdString(model));
            workload::TrainingConfig c;
            c.globalBatch = *rc::gen::element(8, 16, 32);
            c.microBatch = *rc::gen::element(0, 1, 2);
            c.framework = *rc::gen::element(workload::Framework::Megatron, workload::Framework::DeepSpeed,
                                            workload::Framework::Fsdp, workload::Framework::HF,
                                            workload::Framework::LitGpt, workload::Framework::PyTorch);
            c.precision =
                *rc::gen::element(workload::Precision::BF16, workload::Precision::FP16, workload::Precision::FP32);
            c.optimizer =
                *rc::gen::element(workload::Optimizer::Adam, workload::Optimizer::AdamW, workload::Optimizer::SGD,
                                  workload::Optimizer::Adam8bit, workload::Optimizer::Adafactor);
            c.recompute = *rc::gen::element(workload::Recompute::None, workload::Recompute::Selective,
                                            workload::Recompute::Full, workload::Recompute::SelectiveOp);
            c.zeroStage = *rc::gen::inRange(0, 4);
            c.flashAttention = *rc::gen::arbitrary<bool>();
            c.sequenceParallel = *rc::gen::arbitrary<bool>();
            c.autocast = c.precision != workload::Precision::FP32 && *rc::gen::arbitrary<bool>();
            c.fp8 = *rc::gen::arbitrary<bool>();
            c.fp32Grads = *rc::gen::arbitrary<bool>();
            c.pureHalf = *rc::gen::arbitrary<bool>();
            c.offloadOptimizer = *rc::gen::arbitrary<bool>();
            c.virtualStages = *rc::gen::element(1, 2, 3);
            estimate::Parallelism par;
            par.dp = *rc::gen::element(1, 2, 4, 8);
            par.tp = *rc::gen::element(1, 2);
            par.pp = *rc::gen::element(1, 2, 4);
            par.cp = *rc::gen::element(1, 2, 3);
            par.ep = panel.currentModel().isMoe() ? *rc::gen::element(1, 2, 4, 8) : 1;

            panel.setGlobalBatch(c.globalBatch);
            spinTo(panel, "microBatch", c.microBatch);
            choose(panel, "framework", static_cast<int>(c.framework));
            choose(panel, "precision", static_cast<int>(c.precision));
            choose(panel, "optimizer", static_cast<int>(c.optimizer));
            choose(panel, "recompute", static_cast<int>(c.recompute));
            choose(panel, "zero", c.zeroStage);
            check(panel, "flashAttention", c.flashAttention);
            check(panel, "sequenceParallel", c.sequenceParallel);
            check(panel, "autocast", c.autocast);
            check(panel, "fp8", c.fp8);
            check(panel, "fp32Grads", c.fp32Grads);
            check(panel, "pureHalf", c.pureHalf);
            check(panel, "offloadOptimizer", c.offloadOptimizer);
            spinTo(panel, "virtualStages", c.virtualStages);
            panel.setLayout(par);
            RC_ASSERT(!QTest::currentTestFailed());
            estimate::MemoryBreakdown core;
            const QString difference = differenceFromCore(panel, c, par, core);
            RC_LOG() << difference.toStdString() << "\n";
            RC_ASSERT(difference.isEmpty());
        }));
    }

    /** MoE plans carry their ep in the table (the column shown for MoE models only), cp plans their cp. */
    void plannerListsExpertAndContextPlans()
    {
        MemoryPlannerPanel panel(m_document.get());
        panel.setModelName(QStringLiteral("gpt2-1.5b"));
        QVERIFY(panel.planView()->isColumnHidden(PlanTableModel::Ep));
        QVERIFY(panel.planView()->isColumnHidden(PlanTableModel::Cp));
        panel.setModelName(QStringLiteral("mixtral-8x7b"));
        panel.setGlobalBatch(64);
        panel.setCatalogTypes(true);
        panel.setPipelinePlans(true);
        choose(panel, "zero", 1);
        QVERIFY(!panel.planView()->isColumnHidden(PlanTableModel::Ep));
        QElapsedTimer timer;
        timer.start();
        check(panel, "contextParallelPlans", true);
        const qint64 ms = timer.elapsed();
        qInfo("mixtral-8x7b over the catalog with pipeline and context-parallel plans: %lld ms to recompute", ms);
        QVERIFY(!panel.planView()->isColumnHidden(PlanTableModel::Cp));
        const auto& plans = panel.planModel()->plans();
        QVERIFY(!plans.empty());
        bool expert = false, context = false;
        for (int r = 0; r < static_cast<int>(plans.size()); ++r) {
            const auto& p = plans[static_cast<std::size_t>(r)];
            QCOMPARE(panel.planModel()->index(r, PlanTableModel::Ep).data().toInt(), p.par.ep);
            QCOMPARE(panel.planModel()->index(r, PlanTableModel::Cp).data().toInt(), p.par.cp);
            expert = expert || p.par.ep > 1;
            context = context || p.par.cp > 1;
        }
        QVERIFY(expert);
        QVERIFY(context);
        // A plan with ep > 1, double-clicked, is charted with its ep and cp.
        int row = -1;
        for (int r = 0; r < static_cast<int>(plans.size()) && row < 0; ++r)
            if (plans[static_cast<std::size_t>(r)].par.ep > 1)
                row = r;
        const estimate::Plan plan = plans[static_cast<std::size_t>(row)];
        panel.showPlan(row);
        QCOMPARE(panel.currentLayout(), plan.par);
        QVERIFY(std::abs(panel.breakdown().totalGiB() - plan.memoryGiB) < 1e-9);
    }

    /** docs/screenshots/memory-planner-moe.png when asked (scripts/screenshots sets ORRERY_SCREENSHOT_DIR). */
    void screenshot()
    {
        const QByteArray out = qgetenv("ORRERY_SCREENSHOT_DIR");
        if (out.isEmpty())
            QSKIP("ORRERY_SCREENSHOT_DIR not set");
        MemoryPlannerPanel panel(m_document.get());
        panel.setModelName(QStringLiteral("mixtral-8x7b"));
        panel.setGlobalBatch(64);
        choose(panel, "framework", static_cast<int>(workload::Framework::Megatron));
        choose(panel, "recompute", static_cast<int>(workload::Recompute::Selective));
        choose(panel, "zero", 1);
        check(panel, "sequenceParallel", true);
        spinTo(panel, "microBatch", 1);
        panel.setPipelinePlans(true);
        panel.setCatalogTypes(true); // the default cluster has too few GPUs for Mixtral: the table would be empty
        panel.setLayout({8, 2, 4, 8, 1});
        QVERIFY2(!panel.faultyControl(), qPrintable(panel.warningText()));
        QVERIFY(panel.planModel()->rowCount() > 0);
        panel.resize(1400, 900);
        panel.show();
        QTest::qWait(200);
        QVERIFY(panel.grab().save(QString::fromUtf8(out) + QStringLiteral("/memory-planner-moe.png")));
    }

private:
    std::unique_ptr<ScenarioDocument> m_document;
};

QTEST_MAIN(TestMemoryPlanner)
#include "test_memory_planner.moc"
