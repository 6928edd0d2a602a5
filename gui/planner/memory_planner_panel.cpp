#include "planner/memory_planner_panel.h"

#include "charts/memory_breakdown_chart.h"
#include "document/scenario_document.h"
#include "io/error.h"
#include "models/plan_table_model.h"
#include "util/units.h"
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
    m_model->setObjectName(QStringLiteral("model"));
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
    m_batch->setObjectName(QStringLiteral("batch"));
    m_micro->setObjectName(QStringLiteral("microBatch"));
    m_seq->setObjectName(QStringLiteral("seq"));
    cf->addRow(tr("Global batch"), m_batch);
    cf->addRow(tr("Micro-batch"), m_micro);
    cf->addRow(tr("Sequence"), m_seq);
    m_framework = new QComboBox;
    m_framework->setObjectName(QStringLiteral("framework"));
    // What each profile changes (docs/models/throughput.md, "Framework profiles"), for the tooltip of its item.
    const std::pair<workload::Framework, QString> frameworks[] = {
        {workload::Framework::Megatron, tr("Megatron-LM / Megatron-Core: fused kernels, gradients reduced after the "
                                           "backward pass")},
        {workload::Framework::DeepSpeed, tr("DeepSpeed (Megatron-DeepSpeed kernels): reduction overlapped "
                                            "(overlap_comm)")},
        {workload::Framework::Fsdp, tr("torchtitan-style FSDP: eager kernels, reduction overlapped; pair it with "
                                       "recompute selective_op (op-level) or full")},
        {workload::Framework::HF, tr("Hugging Face Trainer or PyTorch Lightning: eager kernels, DDP buckets")},
        {workload::Framework::LitGpt, tr("litgpt: bf16 training is bf16-true (no fp32 master weights) unless "
                                         "autocast")},
        {workload::Framework::PyTorch, tr("A plain eager PyTorch loop: foreach AdamW step, DDP buckets")}};
    for (const auto& [f, tip] : frameworks) {
        m_framework->addItem(QString::fromStdString(workload::toString(f)), static_cast<int>(f));
        m_framework->setItemData(m_framework->count() - 1, tip, Qt::ToolTipRole);
    }
    m_framework->setToolTip(tr("Who runs the step: sets kernel fusion, host overheads, communication overlap and "
                               "some defaults"));
    m_precision = new QComboBox;
    m_precision->setObjectName(QStringLiteral("precision"));
    for (auto p : {workload::Precision::BF16, workload::Precision::FP16, workload::Precision::FP32})
        m_precision->addItem(QString::fromStdString(workload::toString(p)), static_cast<int>(p));
    m_optimizer = new QComboBox;
    m_optimizer->setObjectName(QStringLiteral("optimizer"));
    for (auto o : {workload::Optimizer::Adam, workload::Optimizer::AdamW, workload::Optimizer::SGD,
                   workload::Optimizer::Adam8bit, workload::Optimizer::Adafactor})
        m_optimizer->addItem(QString::fromStdString(workload::toString(o)), static_cast<int>(o));
    m_optimizer->setToolTip(tr("adam8bit: bitsandbytes' two 1-byte block-quantised moments; adafactor: factored "
                               "second moment, no first moment"));
    m_recompute = new QComboBox;
    m_recompute->setObjectName(QStringLiteral("recompute"));
    const std::pair<workload::Recompute, QString> recomputes[] = {
        {workload::Recompute::None, tr("Every activation kept for the backward pass")},
        {workload::Recompute::Selective, tr("Megatron's selective recomputation: the attention core re-run")},
        {workload::Recompute::Full, tr("Only each layer's input kept; the layer re-run in backward")},
        {workload::Recompute::SelectiveOp, tr("torchtitan's op-level policy: every second matmul output and the "
                                              "attention output saved, the rest re-run")}};
    for (const auto& [r, tip] : recomputes) {
        m_recompute->addItem(QString::fromStdString(workload::toString(r)), static_cast<int>(r));
        m_recompute->setItemData(m_recompute->count() - 1, tip, Qt::ToolTipRole);
    }
    m_zero = new QComboBox;
    m_zero->setObjectName(QStringLiteral("zero"));
    for (int z = 0; z <= 3; ++z)
        m_zero->addItem(z == 0 ? tr("off") : tr("stage %1").arg(z), z);
    m_flash = new QCheckBox(tr("Flash attention"));
    m_flash->setObjectName(QStringLiteral("flashAttention"));
    m_flash->setChecked(true);
    m_seqParallel = new QCheckBox(tr("Sequence parallel"));
    m_seqParallel->setObjectName(QStringLiteral("sequenceParallel"));
    m_autocast = new QCheckBox(tr("PyTorch AMP (autocast)"));
    m_autocast->setObjectName(QStringLiteral("autocast"));
    m_autocast->setToolTip(
        tr("fp32 weights and gradients with half-precision copies, instead of Megatron-style half precision"));
    m_fp8 = new QCheckBox(tr("FP8 GEMMs"));
    m_fp8->setObjectName(QStringLiteral("fp8"));
    m_fp8->setToolTip(tr("The layers' linear GEMMs in FP8 with FP8 weight copies (Transformer Engine; torchao Float8 "
                         "for the eager frameworks); needs FP8 tensor cores"));
    m_fp32Grads = new QCheckBox(tr("fp32 gradients"));
    m_fp32Grads->setObjectName(QStringLiteral("fp32Grads"));
    m_fp32Grads->setToolTip(tr("Gradients accumulated and reduced in fp32 (Megatron-Core's bf16 default): 4 B per "
                               "parameter instead of 2"));
    m_pureHalf = new QCheckBox(tr("Pure half (bf16-true)"));
    m_pureHalf->setObjectName(QStringLiteral("pureHalf"));
    m_pureHalf->setToolTip(tr("Weights, gradients and optimizer states in bf16/fp16, no fp32 master copy"));
    m_offload = new QCheckBox(tr("Offload optimizer states to the CPU"));
    m_offload->setObjectName(QStringLiteral("offloadOptimizer"));
    m_offload->setToolTip(tr("Optimizer states and master weights in host memory, stepped on the CPU "
                             "(ZeRO-Offload)"));
    cf->addRow(tr("Framework"), m_framework);
    cf->addRow(tr("Precision"), m_precision);
    cf->addRow(tr("Optimizer"), m_optimizer);
    cf->addRow(tr("Recompute"), m_recompute);
    cf->addRow(tr("ZeRO"), m_zero);
    for (QCheckBox* c : {m_flash, m_seqParallel, m_autocast, m_fp8, m_fp32Grads, m_pureHalf, m_offload})
        cf->addRow(c);
    v->addWidget(cfgBox);

    auto* parBox = new QGroupBox(tr("Layout (chart)"));
    auto* pf = new QFormLayout(parBox);
    m_dp = spin(1, 4096, 4);
    m_tp = spin(1, 64, 1);
    m_pp = spin(1, 512, 1);
    m_ep = spin(1, 4096, 1);
    m_cp = spin(1, 256, 1);
    m_virtualStages = spin(1, 64, 1);
    m_dp->setObjectName(QStringLiteral("dp"));
    m_tp->setObjectName(QStringLiteral("tp"));
    m_pp->setObjectName(QStringLiteral("pp"));
    m_ep->setObjectName(QStringLiteral("ep"));
    m_cp->setObjectName(QStringLiteral("cp"));
    m_virtualStages->setObjectName(QStringLiteral("virtualStages"));
    m_cp->setToolTip(tr("Each sequence split over cp ranks running ring attention (needs flash attention and a "
                        "sequence divisible by 2 cp); N = dp x tp x pp x cp"));
    m_virtualStages->setToolTip(tr("Interleaved 1F1B: layer chunks per pipeline rank (Megatron's virtual pipeline "
                                   "size; 1 = plain 1F1B)"));
    pf->addRow(tr("Data parallel (dp)"), m_dp);
    pf->addRow(tr("Tensor parallel (tp)"), m_tp);
    pf->addRow(tr("Pipeline parallel (pp)"), m_pp);
    pf->addRow(tr("Expert parallel (ep)"), m_ep);
    pf->addRow(tr("Context parallel (cp)"), m_cp);
    pf->addRow(tr("Virtual stages"), m_virtualStages);
    v->addWidget(parBox);

    auto* planBox = new QGroupBox(tr("Plans (table)"));
    auto* plf = new QFormLayout(planBox);
    m_rank = new QComboBox;
    m_rank->addItem(tr("fewest GPUs (Frenzy)"), static_cast<int>(estimate::PlanRank::Frenzy));
    m_rank->addItem(tr("fastest"), static_cast<int>(estimate::PlanRank::Throughput));
    m_rank->addItem(tr("cheapest per sample"), static_cast<int>(estimate::PlanRank::Cost));
    m_pipelinePlans = new QCheckBox(tr("Include pipeline plans"));
    m_cpPlans = new QCheckBox(tr("Include context-parallel plans"));
    m_cpPlans->setObjectName(QStringLiteral("contextParallelPlans"));
    m_catalogTypes = new QCheckBox(tr("Every catalog type (not only the cluster's)"));
    plf->addRow(tr("Rank by"), m_rank);
    plf->addRow(m_pipelinePlans);
    plf->addRow(m_cpPlans);
    plf->addRow(m_catalogTypes);
    v->addWidget(planBox);
    v->addStretch();

    connect(m_model, &QComboBox::currentIndexChanged, this, &MemoryPlannerPanel::modelChosen);
    for (QSpinBox* s :
         {m_hidden, m_layers, m_heads, m_vocab, m_batch, m_micro, m_seq, m_dp, m_tp, m_pp, m_ep, m_cp, m_virtualStages})
        connect(s, &QSpinBox::valueChanged, this, &MemoryPlannerPanel::inputChanged);
    for (QComboBox* c : {m_zero, m_recompute, m_precision, m_optimizer, m_rank, m_framework})
        connect(c, &QComboBox::currentIndexChanged, this, &MemoryPlannerPanel::inputChanged);
    for (QCheckBox* c : {m_flash, m_seqParallel, m_autocast, m_catalogTypes, m_pipelinePlans, m_cpPlans, m_fp8,
                         m_fp32Grads, m_pureHalf, m_offload})
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
    emit recomputed();
}

} // namespace orrery::gui
