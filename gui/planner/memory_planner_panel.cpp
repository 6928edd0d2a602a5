#include "planner/memory_planner_panel.h"

#include "charts/memory_breakdown_chart.h"
#include "document/scenario_document.h"
#include "models/plan_table_model.h"
#include "workload/model_library.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
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

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
const QString kCustom = QStringLiteral("custom");

QSpinBox* spin(int lo, int hi, int value, const QString& special = {})
{
    auto* s = new QSpinBox;
    s->setRange(lo, hi);
    s->setValue(value);
    s->setKeyboardTracking(true); // typing updates at once: estimates are microseconds
    s->setAccelerated(true);
    if (!special.isEmpty())
        s->setSpecialValueText(special);
    return s;
}

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

QWidget* MemoryPlannerPanel::buildInputs()
{
    auto* w = new QWidget;
    auto* v = new QVBoxLayout(w);

    auto* modelBox = new QGroupBox(tr("Model"));
    auto* mf = new QFormLayout(modelBox);
    m_model = new QComboBox;
    for (const auto& m : workload::ModelLibrary::builtin().models())
        m_model->addItem(QString::fromStdString(m.name));
    m_model->addItem(kCustom);
    m_model->setCurrentText(QStringLiteral("gpt2-1.5b"));
    mf->addRow(tr("Model"), m_model);
    m_hidden = spin(64, 65536, 1024);
    m_hidden->setSingleStep(64);
    m_layers = spin(1, 512, 24);
    m_heads = spin(1, 512, 16);
    m_vocab = spin(1, 1000000, 50257);
    mf->addRow(tr("Hidden size"), m_hidden);
    mf->addRow(tr("Layers"), m_layers);
    mf->addRow(tr("Heads"), m_heads);
    mf->addRow(tr("Vocabulary"), m_vocab);
    v->addWidget(modelBox);

    auto* cfgBox = new QGroupBox(tr("Training"));
    auto* cf = new QFormLayout(cfgBox);
    m_batch = spin(1, 1 << 20, 16);
    m_micro = spin(0, 1 << 16, 0, tr("B / dp"));
    m_seq = spin(0, 1 << 20, 0, tr("model default"));
    cf->addRow(tr("Global batch"), m_batch);
    cf->addRow(tr("Micro-batch"), m_micro);
    cf->addRow(tr("Sequence"), m_seq);
    m_precision = new QComboBox;
    for (auto p : {workload::Precision::BF16, workload::Precision::FP16, workload::Precision::FP32})
        m_precision->addItem(QString::fromStdString(workload::toString(p)), static_cast<int>(p));
    m_optimizer = new QComboBox;
    for (auto o : {workload::Optimizer::Adam, workload::Optimizer::AdamW, workload::Optimizer::SGD})
        m_optimizer->addItem(QString::fromStdString(workload::toString(o)), static_cast<int>(o));
    m_recompute = new QComboBox;
    for (auto r : {workload::Recompute::None, workload::Recompute::Selective, workload::Recompute::Full})
        m_recompute->addItem(QString::fromStdString(workload::toString(r)), static_cast<int>(r));
    m_zero = new QComboBox;
    for (int z = 0; z <= 3; ++z)
        m_zero->addItem(z == 0 ? tr("off") : tr("stage %1").arg(z), z);
    m_flash = new QCheckBox(tr("Flash attention"));
    m_flash->setChecked(true);
    m_seqParallel = new QCheckBox(tr("Sequence parallel"));
    m_autocast = new QCheckBox(tr("PyTorch AMP (autocast)"));
    m_autocast->setToolTip(
        tr("fp32 weights and gradients with half-precision copies, instead of Megatron-style half precision"));
    cf->addRow(tr("Precision"), m_precision);
    cf->addRow(tr("Optimizer"), m_optimizer);
    cf->addRow(tr("Recompute"), m_recompute);
    cf->addRow(tr("ZeRO"), m_zero);
    cf->addRow(m_flash);
    cf->addRow(m_seqParallel);
    cf->addRow(m_autocast);
    v->addWidget(cfgBox);

    auto* parBox = new QGroupBox(tr("Layout (chart)"));
    auto* pf = new QFormLayout(parBox);
    m_dp = spin(1, 4096, 4);
    m_tp = spin(1, 64, 1);
    m_pp = spin(1, 512, 1);
    pf->addRow(tr("Data parallel (dp)"), m_dp);
    pf->addRow(tr("Tensor parallel (tp)"), m_tp);
    pf->addRow(tr("Pipeline parallel (pp)"), m_pp);
    v->addWidget(parBox);

    auto* planBox = new QGroupBox(tr("Plans (table)"));
    auto* plf = new QFormLayout(planBox);
    m_rank = new QComboBox;
    m_rank->addItem(tr("fewest GPUs (Frenzy)"), static_cast<int>(estimate::PlanRank::Frenzy));
    m_rank->addItem(tr("fastest"), static_cast<int>(estimate::PlanRank::Throughput));
    m_rank->addItem(tr("cheapest per sample"), static_cast<int>(estimate::PlanRank::Cost));
    m_pipelinePlans = new QCheckBox(tr("Include pipeline plans"));
    m_catalogTypes = new QCheckBox(tr("Every catalog type (not only the cluster's)"));
    plf->addRow(tr("Rank by"), m_rank);
    plf->addRow(m_pipelinePlans);
    plf->addRow(m_catalogTypes);
    v->addWidget(planBox);
    v->addStretch();

    connect(m_model, &QComboBox::currentIndexChanged, this, &MemoryPlannerPanel::modelChosen);
    for (QSpinBox* s : {m_hidden, m_layers, m_heads, m_vocab, m_batch, m_micro, m_seq, m_dp, m_tp, m_pp})
        connect(s, &QSpinBox::valueChanged, this, &MemoryPlannerPanel::inputChanged);
    for (QComboBox* c : {m_zero, m_recompute, m_precision, m_optimizer, m_rank})
        connect(c, &QComboBox::currentIndexChanged, this, &MemoryPlannerPanel::inputChanged);
    for (QCheckBox* c : {m_flash, m_seqParallel, m_autocast, m_catalogTypes, m_pipelinePlans})
        connect(c, &QCheckBox::toggled, this, &MemoryPlannerPanel::inputChanged);
    return w;
}

void MemoryPlannerPanel::modelChosen()
{
    const bool custom = m_model->currentText() == kCustom;
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
    recompute();
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
    m_updating = false;
    m_planMicro = p.microBatch;
    m_planRank = row + 1;
    recompute();
}

workload::ModelSpec MemoryPlannerPanel::currentModel() const
{
    if (m_model->currentText() != kCustom)
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
    c.autocast = m_autocast->isChecked() && c.precision != workload::Precision::FP32;
    return c;
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

void MemoryPlannerPanel::recompute()
{
    if (m_updating)
        return;
    const auto& scenario = m_document->scenario();
    const auto& cluster = scenario.cluster;
    const bool useCatalog = m_catalogTypes->isChecked() || cluster.totalGpus() == 0;
    const auto& catalog = cluster.catalog();

    // Targets: the cluster's types with their GPU counts and node shapes, or every catalog type.
    std::vector<estimate::PlanTarget> targets;
    QHash<QString, QString> names;
    for (const auto& t : catalog.types())
        names.insert(QString::fromStdString(t.name), displayName(t));
    if (useCatalog) {
        targets = estimate::targetsFromTypes(catalog.types(), 64, cluster.network());
    } else {
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
    }

    const workload::ModelSpec model = currentModel();
    const workload::TrainingConfig config = currentConfig();
    const estimate::Parallelism par{m_dp->value(), m_tp->value(), m_pp->value()};
    // The chart's micro-batch: a shown plan's (as the table estimated it), else the input's, else B / dp.
    workload::TrainingConfig chartConfig = config;
    if (m_planMicro > 0)
        chartConfig.microBatch = m_planMicro;
    const int perReplica = std::max(1, config.globalBatch / std::max(1, par.dp));
    m_chartMicro = chartConfig.microBatch > 0 ? std::min(chartConfig.microBatch, perReplica) : perReplica;
    const QString layout = tr("dp %1 x tp %2 x pp %3, micro-batch %4%5")
                               .arg(par.dp)
                               .arg(par.tp)
                               .arg(par.pp)
                               .arg(m_chartMicro)
                               .arg(m_planMicro > 0         ? tr(" (plan #%1)").arg(m_planRank)
                                    : config.microBatch > 0 ? QString()
                                                            : tr(" (B / dp)"));
    std::vector<CapacityLine> lines;
    m_oom.clear();
    QString problem;
    try {
        m_breakdown = estimate::estimateMemory(model, chartConfig, par);
    } catch (const std::exception& e) {
        m_breakdown = {};
        problem = QString::fromStdString(e.what());
    }
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
        m_warning->setText(tr("Out of memory: %1 needs %2 GiB per GPU, more than %3 holds%4.")
                               .arg(layout)
                               .arg(m_breakdown.totalGiB(), 0, 'f', 1)
                               .arg(m_oom.join(QStringLiteral(", ")))
                               .arg(static_cast<int>(m_oom.size()) == static_cast<int>(lines.size())
                                        ? tr(" (every type)")
                                        : QString()));
        m_warning->setStyleSheet(QStringLiteral("QLabel { color: #c01c28; font-weight: bold; }"));
    } else {
        m_warning->setText(tr("%1 (%2 GPUs) needs %3 GiB per GPU: fits every type shown.")
                               .arg(layout)
                               .arg(par.gpus())
                               .arg(m_breakdown.totalGiB(), 0, 'f', 1));
        m_warning->setStyleSheet(QStringLiteral("QLabel { color: #26a269; }"));
    }

    estimate::PlanOptions options;
    options.allowPipeline = m_pipelinePlans->isChecked();
    options.rank = static_cast<estimate::PlanRank>(m_rank->currentData().toInt());
    std::vector<estimate::Plan> plans;
    QString planProblem;
    try {
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
    emit recomputed();
}

} // namespace orrery::gui
