#include "planner/memory_planner_panel.h"

#include "workload/model_library.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QSpinBox>
#include <QVBoxLayout>

// The Memory & plans tab's input column: the model, the training configuration, the charted layout and the plan
// table's options.

namespace orrery::gui {

namespace {

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

} // namespace

QWidget* MemoryPlannerPanel::buildInputs()
{
    auto* w = new QWidget;
    auto* v = new QVBoxLayout(w);
    v->addWidget(buildModelBox());
    v->addWidget(buildTrainingBox());
    v->addWidget(buildLayoutBox());
    v->addWidget(buildPlanBox());
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

QGroupBox* MemoryPlannerPanel::buildModelBox()
{
    auto* modelBox = new QGroupBox(tr("Model"));
    auto* mf = new QFormLayout(modelBox);
    m_model = new QComboBox;
    m_model->setObjectName(QStringLiteral("model"));
    for (const auto& m : workload::ModelLibrary::builtin().models())
        m_model->addItem(QString::fromStdString(m.name));
    m_model->addItem(customModelName());
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
    return modelBox;
}

QGroupBox* MemoryPlannerPanel::buildTrainingBox()
{
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
    return cfgBox;
}

QGroupBox* MemoryPlannerPanel::buildLayoutBox()
{
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
    return parBox;
}

QGroupBox* MemoryPlannerPanel::buildPlanBox()
{
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
    return planBox;
}

} // namespace orrery::gui
