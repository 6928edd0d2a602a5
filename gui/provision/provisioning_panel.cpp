#include "provision/provisioning_panel.h"

#include "async/job_runner.h"
#include "charts/provision_scatter.h"
#include "document/scenario_document.h"
#include "hardware/gpu_catalog.h"
#include "io/error.h"
#include "models/provision_pool_model.h"
#include "provision/estimator_profile.h"
#include "provision/provision.h"
#include "provision/stage_diagram.h"
#include "workload/model_library.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <stop_token>

namespace orrery::gui {

namespace {

// The slider is logarithmic: 0..1000 covers 0.1 h to 1000 h (four decades, 250 steps each).
constexpr int kSliderMax = 1000;
double sliderToHours(int v)
{
    return std::pow(10.0, -1.0 + v / 250.0);
}
int hoursToSlider(double h)
{
    return std::clamp(static_cast<int>(std::lround((std::log10(std::max(h, 1e-3)) + 1.0) * 250.0)), 0, kSliderMax);
}

QString hoursText(double h)
{
    if (h < 1)
        return QObject::tr("%1 min").arg(h * 60, 0, 'f', 0);
    if (h < 48)
        return QObject::tr("%1 h").arg(h, 0, 'f', h < 10 ? 2 : 1);
    return QObject::tr("%1 days").arg(h / 24, 0, 'f', 1);
}

} // namespace

ProvisioningPanel::ProvisioningPanel(ScenarioDocument* document, JobRunner* runner, QWidget* parent)
    : QWidget(parent), m_document(document), m_runner(runner), m_pool(new ProvisionPoolModel(this)),
      m_stages(new StageDiagram), m_scatter(new ProvisionScatter)
{
    auto* split = new QSplitter(Qt::Horizontal);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setWidget(buildInputs());
    scroll->setMinimumWidth(330);
    split->addWidget(scroll);

    auto* right = new QWidget;
    auto* rl = new QVBoxLayout(right);
    rl->setContentsMargins(4, 4, 4, 4);
    m_summary = new QLabel;
    m_summary->setWordWrap(true);
    m_summary->setTextFormat(Qt::RichText);
    rl->addWidget(m_summary);
    rl->addWidget(m_stages);
    rl->addWidget(m_scatter, 1);
    split->addWidget(right);
    split->setStretchFactor(1, 1);
    split->setSizes({340, 900});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);

    m_stages->clear(tr("No plan yet"));
    refreshTypes();
    connect(m_pool, &ProvisionPoolModel::poolChanged, this, &ProvisioningPanel::replan);
    connect(document, &ScenarioDocument::catalogChanged, this, &ProvisioningPanel::refreshTypes);
    connect(document, &ScenarioDocument::documentReset, this, &ProvisioningPanel::refreshTypes);
}

void ProvisioningPanel::refreshTypes()
{
    // The scenario's catalog (custom types included); the built-in one before any scenario is open.
    auto types = m_document->scenario().cluster.catalog().types();
    if (types.empty())
        types = hardware::GpuCatalog::builtin().types();
    const auto old = m_pool->pool();
    m_holdReplan = true;
    m_pool->setTypes(types);
    int kept = 0;
    for (const auto& p : old)
        kept += m_pool->setQuota(QString::fromStdString(p.gpu.name), p.quota, p.pricePerHour);
    m_holdReplan = false;
    if (kept == 0)
        usePaperPool();
    else
        replan();
}

QWidget* ProvisioningPanel::buildInputs()
{
    auto* w = new QWidget;
    auto* v = new QVBoxLayout(w);

    auto* jobBox = new QGroupBox(tr("Training job"));
    auto* jf = new QFormLayout(jobBox);
    m_model = new QComboBox;
    for (const auto& m : workload::ModelLibrary::builtin().models())
        m_model->addItem(QString::fromStdString(m.name));
    m_model->setCurrentText(QStringLiteral("gpt3-1.3b"));
    auto spin = [](int lo, int hi, int value) {
        auto* s = new QSpinBox;
        s->setRange(lo, hi);
        s->setValue(value);
        s->setKeyboardTracking(false); // a search per value, not per keystroke
        return s;
    };
    m_seq = spin(0, 1 << 20, 2048);
    m_seq->setSpecialValueText(tr("model default"));
    m_batch = spin(1, 1 << 16, 32);
    m_microBatches = spin(1, 1024, 4);
    m_iterations = spin(1, 100000000, 10000);
    m_recompute = new QComboBox;
    for (auto r : {workload::Recompute::Full, workload::Recompute::Selective, workload::Recompute::None})
        m_recompute->addItem(QString::fromStdString(workload::toString(r)), static_cast<int>(r));
    m_bandwidth = new QDoubleSpinBox;
    m_bandwidth->setRange(0.1, 3200);
    m_bandwidth->setValue(2.5);
    m_bandwidth->setSuffix(tr(" Gbit/s"));
    m_bandwidth->setKeyboardTracking(false);
    m_strategy = new QComboBox;
    for (auto s : {provision::Strategy::Espresso, provision::Strategy::SiaPlus, provision::Strategy::WhalePlus,
                   provision::Strategy::HphPlus})
        m_strategy->addItem(QString::fromStdString(provision::toString(s)), static_cast<int>(s));
    jf->addRow(tr("Model"), m_model);
    jf->addRow(tr("Sequence"), m_seq);
    jf->addRow(tr("Global batch"), m_batch);
    jf->addRow(tr("Micro-batches"), m_microBatches);
    jf->addRow(tr("Iterations"), m_iterations);
    jf->addRow(tr("Recompute"), m_recompute);
    jf->addRow(tr("Between GPUs"), m_bandwidth);
    jf->addRow(tr("Strategy"), m_strategy);
    v->addWidget(jobBox);

    auto* sloBox = new QGroupBox(tr("Deadline (SLO)"));
    auto* sl = new QVBoxLayout(sloBox);
    m_slo = new QSlider(Qt::Horizontal);
    m_slo->setRange(0, kSliderMax);
    m_slo->setValue(hoursToSlider(24));
    m_slo->setPageStep(50);
    m_sloLabel = new QLabel;
    sl->addWidget(m_sloLabel);
    sl->addWidget(m_slo);
    v->addWidget(sloBox);

    auto* poolBox = new QGroupBox(tr("GPUs to rent: quota and price"));
    auto* pl = new QVBoxLayout(poolBox);
    auto* presets = new QHBoxLayout;
    auto* paper = new QPushButton(tr("Paper's pool"));
    paper->setToolTip(tr("8 A6000, 16 A30, 16 RTX 3090, 16 A4000 (Espresso's testbed)"));
    auto* cluster = new QPushButton(tr("Scenario's cluster"));
    presets->addWidget(paper);
    presets->addWidget(cluster);
    pl->addLayout(presets);
    m_poolView = new QTableView;
    m_poolView->setModel(m_pool);
    m_poolView->verticalHeader()->hide();
    m_poolView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_poolView->horizontalHeader()->setStretchLastSection(true);
    m_poolView->setMinimumHeight(220);
    pl->addWidget(m_poolView);
    v->addWidget(poolBox, 1);

    connect(paper, &QPushButton::clicked, this, &ProvisioningPanel::usePaperPool);
    connect(cluster, &QPushButton::clicked, this, &ProvisioningPanel::useScenarioCluster);
    connect(m_slo, &QSlider::valueChanged, this, [this] {
        m_sloLabel->setText(tr("%1 for %2 iterations").arg(hoursText(sloHours())).arg(m_iterations->value()));
        replan(); // while dragging too: the search is meant to take well under 100 ms
    });
    connect(m_model, &QComboBox::currentIndexChanged, this, &ProvisioningPanel::replan);
    for (QSpinBox* s : {m_seq, m_batch, m_microBatches, m_iterations})
        connect(s, &QSpinBox::valueChanged, this, &ProvisioningPanel::replan);
    connect(m_iterations, &QSpinBox::valueChanged, this, [this] {
        m_sloLabel->setText(tr("%1 for %2 iterations").arg(hoursText(sloHours())).arg(m_iterations->value()));
    });
    connect(m_bandwidth, &QDoubleSpinBox::valueChanged, this, &ProvisioningPanel::replan);
    connect(m_recompute, &QComboBox::currentIndexChanged, this, &ProvisioningPanel::replan);
    connect(m_strategy, &QComboBox::currentIndexChanged, this, &ProvisioningPanel::replan);
    m_sloLabel->setText(tr("%1 for %2 iterations").arg(hoursText(sloHours())).arg(m_iterations->value()));
    return w;
}

void ProvisioningPanel::setModelName(const QString& name)
{
    m_model->setCurrentText(name);
}

void ProvisioningPanel::setGlobalBatch(int batch)
{
    m_batch->setValue(batch);
}

void ProvisioningPanel::setSloHours(double hours)
{
    m_slo->setValue(hoursToSlider(hours));
}

double ProvisioningPanel::sloHours() const
{
    return sliderToHours(m_slo->value());
}

void ProvisioningPanel::useScenarioCluster()
{
    const auto& cluster = m_document->scenario().cluster;
    m_holdReplan = true;
    m_pool->clearUse();
    for (int t : cluster.presentTypes())
        m_pool->setQuota(QString::fromStdString(cluster.catalog().types()[static_cast<std::size_t>(t)].name),
                         cluster.gpusOfType(t));
    m_holdReplan = false;
    replan();
}

void ProvisioningPanel::usePaperPool()
{
    m_holdReplan = true;
    m_pool->clearUse();
    m_pool->setQuota(QStringLiteral("a6000"), 8);
    m_pool->setQuota(QStringLiteral("a30"), 16);
    m_pool->setQuota(QStringLiteral("rtx3090"), 16);
    m_pool->setQuota(QStringLiteral("a4000"), 16);
    m_holdReplan = false;
    replan();
}

provision::ProvisionJob ProvisioningPanel::currentJob() const
{
    provision::ProvisionJob job;
    job.model = workload::ModelLibrary::builtin().at(m_model->currentText().toStdString());
    job.training.globalBatch = m_batch->value();
    job.training.seq = m_seq->value();
    job.training.recompute = static_cast<workload::Recompute>(m_recompute->currentData().toInt());
    job.microBatches = m_microBatches->value();
    job.iterations = m_iterations->value();
    job.sloS = sloHours() * 3600.0;
    job.interBandwidthGbitS = m_bandwidth->value();
    return job;
}

QString ProvisioningPanel::summaryText() const
{
    return m_summary->text();
}

void ProvisioningPanel::replan()
{
    if (m_holdReplan)
        return;
    const provision::ProvisionJob job = currentJob();
    const std::vector<provision::PoolGpu> pool = m_pool->pool();
    if (pool.empty()) {
        m_summary->setText(tr("<span style='color:#c01c28'>Give at least one GPU type a quota.</span>"));
        m_stages->clear(tr("No GPUs to rent"));
        return;
    }
    provision::ProvisionOptions options;
    options.strategy = static_cast<provision::Strategy>(m_strategy->currentData().toInt());
    options.recordEvaluated = true;
    m_summary->setText(m_summary->text().isEmpty() ? tr("Planning...") : m_summary->text());
    const double sloS = job.sloS;
    m_runner->start<provision::ProvisionResult>(
        QStringLiteral("provision"),
        [job, pool, options](TaskContext& ctx) {
            // Bridge the runner's stop token to the atomic flag core polls.
            std::atomic<bool> cancel{false};
            std::stop_callback onStop(ctx.stopToken(), [&cancel] { cancel.store(true); });
            const provision::EstimatorProfileSource source;
            return provision::provisionGpus(job, pool, source, options, &cancel);
        },
        this, [this, pool, sloS](provision::ProvisionResult result) { showResult(result, pool, sloS); },
        [this](const QString& error) {
            m_hasResult = false;
            m_summary->setText(QStringLiteral("<span style='color:#c01c28'>%1</span>").arg(error.toHtmlEscaped()));
            m_stages->clear(tr("No plan"));
            emit planFailed(error);
        });
}

void ProvisioningPanel::showResult(const provision::ProvisionResult& result,
                                   const std::vector<provision::PoolGpu>& pool, double sloS)
{
    m_result = result;
    m_hasResult = true;
    const auto& s = result.stats;
    QString search = tr("search: %1 nodes expanded, %2 placements, pruned %3 BP / %4 CP / %5 TCP, %6 ms")
                         .arg(s.expanded)
                         .arg(s.placements)
                         .arg(s.prunedBp)
                         .arg(s.prunedCp)
                         .arg(s.prunedTcp)
                         .arg(s.wallS * 1000, 0, 'f', 1);
    // Nothing met the SLO: the time-and-capacity pruning may have cut every branch of the first search
    // (0 placements). The fastest plan shown comes from a second search without the deadline: say so.
    if (result.relaxed)
        search += tr("; no plan within the SLO, so a search without it: %1 nodes expanded, %2 placements")
                      .arg(result.relaxedStats.expanded)
                      .arg(result.relaxedStats.placements);
    if (!result.hasPlan) {
        m_summary->setText(
            tr("<b style='color:#c01c28'>No plan fits these GPUs</b> (the model does not fit in the quotas).<br>%1")
                .arg(search));
        m_stages->clear(tr("No plan"));
    } else {
        const auto& p = result.plan;
        QStringList gpus;
        const auto counts = p.gpuCounts(pool.size());
        for (std::size_t i = 0; i < pool.size(); ++i)
            if (counts[i] > 0)
                gpus << QStringLiteral("%1 \u00d7 %2").arg(counts[i]).arg(QString::fromStdString(pool[i].gpu.name));
        const QString head = result.feasible
                                 ? tr("<b style='color:#26a269'>Cheapest plan within the SLO</b>")
                                 : tr("<b style='color:#c01c28'>No plan meets the SLO</b> (%1): the fastest plan found")
                                       .arg(hoursText(sloS / 3600.0));
        m_summary->setText(tr("%1: %2 GPUs (%3), dp %4, pp %5; %6 s per iteration, %7 in all, cost $%8.<br>"
                              "<span style='color:gray'>%9; %10 plans evaluated</span>")
                               .arg(head)
                               .arg(p.gpuCount())
                               .arg(gpus.join(QStringLiteral(", ")))
                               .arg(p.dp)
                               .arg(p.pp())
                               .arg(p.iterationS, 0, 'f', 3)
                               .arg(hoursText(p.totalS / 3600.0))
                               .arg(p.cost, 0, 'f', 2)
                               .arg(search)
                               .arg(result.evaluated.size()));
        m_stages->setPlan(p, pool);
    }
    m_scatter->setResult(result, sloS);
    emit planned();
}

} // namespace orrery::gui
