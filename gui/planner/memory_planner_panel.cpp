#include "planner/memory_planner_panel.h"

#include "charts/memory_breakdown_chart.h"
#include "document/scenario_document.h"
#include "io/error.h"
#include "models/plan_table_model.h"
#include "util/units.h"
#include "workload/model_library.h"

#include <QCheckBox>
#include <QComboBox>
#include <QHeaderView>
#include <QLabel>
#include <QScrollArea>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>

namespace orrery::gui {

namespace {

QString displayName(const hardware::GpuType& t)
{
    return QString::fromStdString(t.display.empty() ? t.name : t.display);
}

} // namespace

MemoryPlannerPanel::MemoryPlannerPanel(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent), m_document(document), m_chart(new MemoryBreakdownChart), m_plans(new PlanTableModel(this))
{
    auto* split = new QSplitter(Qt::Horizontal);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setWidget(buildInputs());
    scroll->setMinimumWidth(300);
    split->addWidget(scroll);

    auto* right = new QWidget;
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(4, 4, 4, 4);
    m_warning = new QLabel;
    m_warning->setWordWrap(true);
    m_warning->setTextFormat(Qt::PlainText);
    rl->addWidget(m_warning);
    auto* outSplit = new QSplitter(Qt::Vertical);
    outSplit->addWidget(m_chart);
    auto* table = new QWidget;
    auto* tl = new QVBoxLayout(table);
    tl->setContentsMargins(0, 0, 0, 0);
    m_planSummary = new QLabel;
    tl->addWidget(m_planSummary);
    m_planView = new QTableView;
    m_planView->setModel(m_plans);
    m_planView->verticalHeader()->hide();
    m_planView->setAlternatingRowColors(true);
    m_planView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_planView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_planView->horizontalHeader()->setStretchLastSection(true);
    tl->addWidget(m_planView);
    outSplit->addWidget(table);
    outSplit->setStretchFactor(0, 3);
    outSplit->setStretchFactor(1, 2);
    outSplit->setSizes({520, 300});
    rl->addWidget(outSplit, 1);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({320, 900});

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    // Double-clicking a plan shows its layout in the chart.
    connect(m_planView, &QTableView::doubleClicked, this, [this](const QModelIndex& i) { showPlan(i.row()); });
    connect(document, &ScenarioDocument::documentReset, this, &MemoryPlannerPanel::recompute);
    connect(document, &ScenarioDocument::clusterChanged, this, &MemoryPlannerPanel::recompute);
    connect(document, &ScenarioDocument::catalogChanged, this, &MemoryPlannerPanel::recompute);
    modelChosen();
}

void MemoryPlannerPanel::modelChosen()
{
    const bool custom = m_model->currentText() == customModelName();
    if (!custom) {
        m_base = workload::ModelLibrary::builtin().at(m_model->currentText().toStdString());
        m_updating = true;
        m_hidden->setValue(m_base.hidden);
        m_layers->setValue(m_base.layers);
        m_heads->setValue(m_base.heads);
        m_vocab->setValue(m_base.vocab);
        m_updating = false;
    }
    for (QSpinBox* s : {m_hidden, m_layers, m_heads, m_vocab})
        s->setEnabled(custom);
    inputChanged();
}

void MemoryPlannerPanel::inputChanged()
{
    if (m_updating)
        return;
    m_planMicro = 0; // the chart follows the inputs again
    updateApplicability();
    recompute();
}

void MemoryPlannerPanel::updateApplicability()
{
    // A disabled control says why in its tooltip; the ones that can be set but contradict others are refused by
    // core's checks in recompute() instead, with its message.
    const workload::ModelSpec model = currentModel();
    const bool moe = model.isMoe();
    m_ep->setEnabled(moe);
    m_ep->setToolTip(moe ? tr("The %1 experts of each MoE layer split over ep ranks of the data-parallel group (ep "
                              "divides dp and %1); it adds no GPUs")
                               .arg(model.experts)
                         : tr("Expert parallelism splits the experts of a mixture-of-experts model (%1 is dense): "
                              "choose mixtral-8x7b or deepspeed-moe-1.3b-e128")
                               .arg(QString::fromStdString(model.name)));
    const bool fp32 = static_cast<workload::Precision>(m_precision->currentData().toInt()) == workload::Precision::FP32;
    m_autocast->setEnabled(!fp32);
    m_cpPlans->setEnabled(m_flash->isChecked());
    m_cpPlans->setToolTip(m_flash->isChecked()
                              ? tr("Also enumerate cp = 2, 4, 8, 16 where 2 cp divides the sequence")
                              : tr("Ring attention runs on flash attention: check Flash attention first"));
    m_planView->setColumnHidden(PlanTableModel::Ep, !moe);
    m_planView->setColumnHidden(PlanTableModel::Cp, !(m_cpPlans->isEnabled() && m_cpPlans->isChecked()));
}

void MemoryPlannerPanel::markFaulty(QWidget* control, const QString& why)
{
    if (m_faulty && m_faulty != control) {
        m_faulty->setStyleSheet(QString());
        m_faulty->setToolTip(m_faultyTip);
    }
    if (control) {
        // A tooltip other than the last message is the control's own (updateApplicability may have renewed it).
        if (m_faulty != control || control->toolTip() != m_faultyWhy)
            m_faultyTip = control->toolTip();
        control->setStyleSheet(QStringLiteral("color: #c01c28; font-weight: bold;"));
        control->setToolTip(why);
    }
    m_faulty = control;
    m_faultyWhy = control ? why : QString();
}

void MemoryPlannerPanel::showPlan(int row)
{
    if (row < 0 || row >= static_cast<int>(m_plans->plans().size()))
        return;
    const estimate::Plan p = m_plans->plans()[static_cast<std::size_t>(row)];
    m_updating = true;
    m_dp->setValue(p.par.dp);
    m_tp->setValue(p.par.tp);
    m_pp->setValue(p.par.pp);
    m_ep->setValue(p.par.ep);
    m_cp->setValue(p.par.cp);
    m_updating = false;
    m_planMicro = p.microBatch;
    m_planRank = row + 1;
    recompute();
}

workload::ModelSpec MemoryPlannerPanel::currentModel() const
{
    if (m_model->currentText() != customModelName())
        return m_base;
    // A custom model keeps the last library model's architecture family and overrides its sizes.
    workload::ModelSpec m = m_base;
    m.name = "custom";
    m.hidden = m_hidden->value();
    m.layers = m_layers->value();
    m.heads = m_heads->value();
    m.kvHeads = m.heads;
    m.vocab = m_vocab->value();
    m.ffnHidden = m_base.hidden > 0 ? static_cast<int>(static_cast<double>(m_base.ffnHidden) / m_base.hidden * m.hidden)
                                    : 4 * m.hidden;
    m.publishedParams = 0;
    return m;
}

workload::TrainingConfig MemoryPlannerPanel::currentConfig() const
{
    workload::TrainingConfig c;
    c.globalBatch = m_batch->value();
    c.microBatch = m_micro->value();
    c.seq = m_seq->value();
    c.precision = static_cast<workload::Precision>(m_precision->currentData().toInt());
    c.optimizer = static_cast<workload::Optimizer>(m_optimizer->currentData().toInt());
    c.recompute = static_cast<workload::Recompute>(m_recompute->currentData().toInt());
    c.zeroStage = m_zero->currentData().toInt();
    c.flashAttention = m_flash->isChecked();
    c.sequenceParallel = m_seqParallel->isChecked();
    c.autocast = m_autocast->isEnabled() && m_autocast->isChecked();
    c.framework = static_cast<workload::Framework>(m_framework->currentData().toInt());
    c.fp8 = m_fp8->isChecked();
    c.fp32Grads = m_fp32Grads->isChecked();
    c.pureHalf = m_pureHalf->isChecked();
    c.offloadOptimizer = m_offload->isChecked();
    c.virtualStages = m_virtualStages->value();
    return c;
}

estimate::Parallelism MemoryPlannerPanel::currentLayout() const
{
    return {m_dp->value(), m_tp->value(), m_pp->value(), m_ep->isEnabled() ? m_ep->value() : 1, m_cp->value()};
}

void MemoryPlannerPanel::setModelName(const QString& name)
{
    m_model->setCurrentText(name);
}

void MemoryPlannerPanel::setGlobalBatch(int batch)
{
    m_batch->setValue(batch);
}

void MemoryPlannerPanel::setParallelism(int dp, int tp, int pp)
{
    m_updating = true;
    m_dp->setValue(dp);
    m_tp->setValue(tp);
    m_pp->setValue(pp);
    m_updating = false;
    inputChanged();
}

void MemoryPlannerPanel::setLayout(const estimate::Parallelism& par)
{
    m_updating = true;
    m_dp->setValue(par.dp);
    m_tp->setValue(par.tp);
    m_pp->setValue(par.pp);
    m_ep->setValue(par.ep);
    m_cp->setValue(par.cp);
    m_updating = false;
    inputChanged();
}

void MemoryPlannerPanel::setPipelinePlans(bool on)
{
    m_pipelinePlans->setChecked(on);
}

void MemoryPlannerPanel::setCatalogTypes(bool on)
{
    m_catalogTypes->setChecked(on);
}

QString MemoryPlannerPanel::warningText() const
{
    return m_warning->text();
}

QString MemoryPlannerPanel::planSummaryText() const
{
    return m_planSummary->text();
}

std::vector<estimate::PlanTarget> MemoryPlannerPanel::planTargets() const
{
    const auto& cluster = m_document->scenario().cluster;
    const auto& catalog = cluster.catalog();
    if (m_catalogTypes->isChecked() || cluster.totalGpus() == 0)
        return estimate::targetsFromTypes(catalog.types(), 64, cluster.network());
    std::vector<estimate::PlanTarget> targets;
    for (int typeIndex : cluster.presentTypes()) {
        estimate::PlanTarget target;
        target.gpu = &catalog.types()[static_cast<std::size_t>(typeIndex)];
        target.maxGpus = cluster.gpusOfType(typeIndex);
        target.interNode = cluster.network();
        for (const auto& node : cluster.nodes())
            if (node.gpuTypeIndex == typeIndex) {
                target.gpusPerNode = node.gpuCount;
                target.intraNode = node.intraLink;
                break;
            }
        targets.push_back(target);
    }
    return targets;
}

void MemoryPlannerPanel::recompute()
{
    if (m_updating)
        return;
    const std::vector<estimate::PlanTarget> targets = planTargets();
    const workload::ModelSpec model = currentModel();
    const workload::TrainingConfig config = currentConfig();
    const estimate::Parallelism par = currentLayout();
    // The chart's micro-batch: a shown plan's (as the table estimated it), else the input's, else B / dp.
    workload::TrainingConfig chartConfig = config;
    if (m_planMicro > 0)
        chartConfig.microBatch = m_planMicro;
    const int perReplica = std::max(1, config.globalBatch / std::max(1, par.dp));
    m_chartMicro = chartConfig.microBatch > 0 ? std::min(chartConfig.microBatch, perReplica) : perReplica;
    const QString layout = tr("dp %1 x tp %2 x pp %3%4, micro-batch %5%6")
                               .arg(par.dp)
                               .arg(par.tp)
                               .arg(par.pp)
                               .arg((par.ep > 1 ? tr(" (ep %1)").arg(par.ep) : QString()) +
                                    (par.cp > 1 ? tr(" x cp %1").arg(par.cp) : QString()))
                               .arg(m_chartMicro)
                               .arg(m_planMicro > 0         ? tr(" (plan #%1)").arg(m_planRank)
                                    : config.microBatch > 0 ? QString()
                                                            : tr(" (B / dp)"));
    std::vector<CapacityLine> lines;
    m_oom.clear();
    QString problem;
    QWidget* faulty = nullptr;
    // The controls core's errors name (their field is the scenario key, as in the CLI's --option).
    const QHash<QString, QWidget*> controls = {{QStringLiteral("fp32_grads"), m_fp32Grads},
                                               {QStringLiteral("pure_half"), m_pureHalf},
                                               {QStringLiteral("fp8"), m_fp8},
                                               {QStringLiteral("virtual_stages"), m_virtualStages},
                                               {QStringLiteral("ep"), m_ep},
                                               {QStringLiteral("cp"), m_cp},
                                               {QStringLiteral("pp"), m_pp}};
    try {
        // The estimators fall back quietly where a layout cannot interleave; one explicit layout is refused instead,
        // with the words the CLI uses.
        estimate::checkLayout(model, chartConfig, par);
        m_breakdown = estimate::estimateMemory(model, chartConfig, par);
    } catch (const Error& e) {
        m_breakdown = {};
        problem = QString::fromStdString(e.what());
        faulty = controls.value(QString::fromStdString(e.location()));
    } catch (const std::exception& e) {
        m_breakdown = {};
        problem = QString::fromStdString(e.what());
    }
    markFaulty(faulty, problem);
    // FP8 needs FP8 tensor cores: name the types without them (rankPlans lists no plan on them).
    QStringList noFp8;
    if (problem.isEmpty())
        for (const auto& t : targets)
            try {
                estimate::checkGpuSupport(config, *t.gpu);
            } catch (const Error& e) {
                noFp8 << QString::fromStdString(e.message());
            }
    const QString fp8Note =
        noFp8.isEmpty() ? QString()
                        : tr(" FP8: %1, so the table has no plans on them.").arg(noFp8.join(QStringLiteral("; ")));
    for (const auto& t : targets) {
        const double cap = estimate::usableCapacityBytes(t, estimate::MemoryMode::Full) / kGiB;
        lines.push_back({QString::fromStdString(t.gpu->name), cap}); // short names: several bars share the width
        if (problem.isEmpty() && m_breakdown.totalGiB() > cap)
            m_oom << displayName(*t.gpu);
    }
    m_chart->setData(m_breakdown, lines, layout);

    if (!problem.isEmpty()) {
        m_warning->setText(tr("This layout cannot be estimated: %1").arg(problem));
        m_warning->setStyleSheet(QStringLiteral("QLabel { color: #c01c28; font-weight: bold; }"));
    } else if (!m_oom.isEmpty()) {
        m_warning->setText(
            tr("Out of memory: %1 needs %2 GiB per GPU (device-visible), more than %3 holds%4.%5")
                .arg(layout)
                .arg(m_breakdown.totalGiB(), 0, 'f', 1)
                .arg(m_oom.join(QStringLiteral(", ")))
                .arg(static_cast<int>(m_oom.size()) == static_cast<int>(lines.size()) ? tr(" (every type)") : QString())
                .arg(fp8Note));
        m_warning->setStyleSheet(QStringLiteral("QLabel { color: #c01c28; font-weight: bold; }"));
    } else {
        m_warning->setText(tr("%1 (%2 GPUs) needs %3 GiB per GPU (device-visible): fits every type shown.%4")
                               .arg(layout)
                               .arg(par.gpus())
                               .arg(m_breakdown.totalGiB(), 0, 'f', 1)
                               .arg(fp8Note));
        m_warning->setStyleSheet(QStringLiteral("QLabel { color: #26a269; }"));
    }

    updatePlans(model, config, targets);
    emit recomputed();
}

void MemoryPlannerPanel::updatePlans(const workload::ModelSpec& model, const workload::TrainingConfig& config,
                                     const std::vector<estimate::PlanTarget>& targets)
{
    QHash<QString, QString> names;
    for (const auto& t : m_document->scenario().cluster.catalog().types())
        names.insert(QString::fromStdString(t.name), displayName(t));
    estimate::PlanOptions options;
    options.allowPipeline = m_pipelinePlans->isChecked();
    options.allowContextParallel = m_cpPlans->isEnabled() && m_cpPlans->isChecked();
    options.rank = static_cast<estimate::PlanRank>(m_rank->currentData().toInt());
    std::vector<estimate::Plan> plans;
    QString planProblem;
    try {
        // Refused as `orrery-cli plan` refuses it: the estimators themselves ignore what is meaningless.
        workload::checkTrainingConfig(config);
        plans = estimate::rankPlans(model, config, targets, options);
    } catch (const std::exception& e) {
        planProblem = QString::fromStdString(e.what());
    }
    const auto count = plans.size();
    // Nothing fits without pipelines: say whether pipelines would help before suggesting anything else.
    std::size_t withPipelines = 0;
    if (count == 0 && planProblem.isEmpty() && !options.allowPipeline) {
        estimate::PlanOptions pipelined = options;
        pipelined.allowPipeline = true;
        try {
            withPipelines = estimate::rankPlans(model, config, targets, pipelined).size();
        } catch (const std::exception&) {
        }
    }
    m_plans->setPlans(std::move(plans), names);
    m_planSummary->setText(
        !planProblem.isEmpty() ? tr("No plans: %1").arg(planProblem)
        : withPipelines > 0
            ? tr("No layout without pipeline parallelism fits these GPUs; %1 plans fit with pipelines: check "
                 "\"Include pipeline plans\".")
                  .arg(withPipelines)
        : count == 0
            ? tr("No layout fits these GPUs: try recomputation, ZeRO or a smaller batch.")
            : tr("%1 feasible plans, best first (double-click one to chart it at its micro-batch)").arg(count));
}

} // namespace orrery::gui
