#include "serving/serving_inputs.h"

#include "hardware/gpu_catalog.h"
#include "serve/serving_model.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace orrery::gui {

namespace {

constexpr int kCustom = 4; ///< index of "Custom" in the set combo, after S1 ... S4

QDoubleSpinBox* spin(double lo, double hi, double value, int decimals, double step, const QString& suffix = {})
{
    auto* s = new QDoubleSpinBox;
    s->setRange(lo, hi);
    s->setDecimals(decimals);
    s->setSingleStep(step);
    s->setValue(value);
    s->setSuffix(suffix);
    return s;
}

} // namespace

ServingInputs::ServingInputs(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);

    auto* models = new QGroupBox(tr("Models"));
    auto* ml = new QVBoxLayout(models);
    m_set = new QComboBox;
    m_set->addItem(tr("S1: 32 x BERT-1.3B"), QStringLiteral("S1"));
    m_set->addItem(tr("S2: 32 x BERT-6.7B"), QStringLiteral("S2"));
    m_set->addItem(tr("S3: 10 each of BERT-1.3B/2.7B/6.7B, MoE-1.3B/2.4B/5.3B"), QStringLiteral("S3"));
    m_set->addItem(tr("S4: 4 x BERT-104B"), QStringLiteral("S4"));
    m_set->addItem(tr("Custom list"), QString());
    m_set->setToolTip(tr("The model sets of AlpaServe's Table 1, or a list of serving-library models"));
    ml->addWidget(m_set);
    m_custom = new QTableWidget(0, 2);
    m_custom->setHorizontalHeaderLabels({tr("Model"), tr("Instances")});
    m_custom->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_custom->verticalHeader()->hide();
    m_custom->setMinimumHeight(90);
    ml->addWidget(m_custom);
    auto* buttons = new QHBoxLayout;
    m_add = new QPushButton(tr("Add model"));
    m_remove = new QPushButton(tr("Remove"));
    buttons->addWidget(m_add);
    buttons->addWidget(m_remove);
    buttons->addStretch();
    ml->addLayout(buttons);
    layout->addWidget(models);

    auto* traffic = new QGroupBox(tr("Traffic"));
    auto* tv = new QVBoxLayout(traffic);
    m_source = new QComboBox;
    m_source->addItem(tr("Gamma arrivals"), false);
    m_source->addItem(tr("Trace file (MAF1 / MAF2)"), true);
    m_source->setToolTip(tr("Requests drawn from Gamma processes, or replayed from an Azure Functions trace"));
    tv->addWidget(m_source);

    m_gamma = new QWidget;
    auto* gl = new QFormLayout(m_gamma);
    gl->setContentsMargins(0, 0, 0, 0);
    m_rate = spin(0, 1e5, 20, 2, 1, tr(" req/s"));
    m_rate->setToolTip(tr("Total request rate over all model instances"));
    m_cv = spin(0, 100, 3, 2, 0.5);
    m_cv->setToolTip(tr("Coefficient of variation of inter-arrival times (1: Poisson; larger: burstier)"));
    m_powerLaw = spin(0, 10, 0, 2, 0.1);
    m_powerLaw->setToolTip(tr("Split the rate over models with weights (i+1)^-exponent; 0 = even"));
    m_duration = spin(1, 86400, 600, 0, 60, tr(" s"));
    gl->addRow(tr("Total rate"), m_rate);
    gl->addRow(tr("CV"), m_cv);
    gl->addRow(tr("Power law"), m_powerLaw);
    gl->addRow(tr("Duration"), m_duration);
    tv->addWidget(m_gamma);

    m_traceBox = new QWidget;
    auto* xl = new QFormLayout(m_traceBox);
    xl->setContentsMargins(0, 0, 0, 0);
    auto* file = new QHBoxLayout;
    m_trace = new QLineEdit;
    m_trace->setPlaceholderText(tr("invocations per minute (MAF1) or per invocation (MAF2)"));
    m_trace->setToolTip(tr("An Azure Functions trace: MAF1's HashFunction and minute columns 1..N, or MAF2's app, "
                           "func, end_timestamp and duration; functions feed the models round-robin"));
    m_browse = new QPushButton(tr("Browse..."));
    file->addWidget(m_trace, 1);
    file->addWidget(m_browse);
    m_window = new QSpinBox;
    m_window->setRange(1, 1440);
    m_window->setValue(60);
    m_window->setSuffix(tr(" min"));
    m_window->setToolTip(tr("Each window is re-fitted per model as a Gamma process (rate, CV) and replayed from it, "
                            "as AlpaServe does; Clockwork++ re-places every two windows (the paper: 60 min for "
                            "MAF1, 90 min for MAF2)"));
    m_rateScale = spin(0, 1e4, 1, 3, 0.5, tr(" x"));
    m_rateScale->setToolTip(tr("Multiplies every fitted rate (the paper scales traces to a target rate)"));
    m_cvScale = spin(0, 100, 1, 3, 0.5, tr(" x"));
    m_cvScale->setToolTip(tr("Multiplies every fitted CV"));
    m_traceInfo = new QLabel;
    m_traceInfo->setWordWrap(true);
    m_traceInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    xl->addRow(tr("File"), file);
    xl->addRow(m_traceInfo);
    xl->addRow(tr("Window"), m_window);
    xl->addRow(tr("Rate scale"), m_rateScale);
    xl->addRow(tr("CV scale"), m_cvScale);
    tv->addWidget(m_traceBox);

    auto* common = new QFormLayout;
    m_seed = new QSpinBox;
    m_seed->setRange(0, 1 << 30);
    m_seed->setValue(1);
    m_seed->setToolTip(tr("Seed of the arrivals drawn (a trace's windows are replayed from their Gamma fits)"));
    m_slo = spin(0.1, 1000, 5, 2, 0.5, tr(" x latency"));
    m_slo->setToolTip(tr("SLO of each model: this multiple of its latency on the fewest GPUs that hold it"));
    common->addRow(tr("Seed"), m_seed);
    common->addRow(tr("SLO scale"), m_slo);
    tv->addLayout(common);
    layout->addWidget(traffic);

    auto* devices = new QGroupBox(tr("Devices and method"));
    auto* dl = new QFormLayout(devices);
    m_gpus = new QSpinBox;
    m_gpus->setRange(1, 4096);
    m_gpus->setValue(64);
    m_gpu = new QComboBox;
    for (const auto& t : hardware::GpuCatalog::builtin().types())
        m_gpu->addItem(QString::fromStdString(t.display.empty() ? t.name : t.display), QString::fromStdString(t.name));
    m_gpu->setCurrentIndex(std::max(0, m_gpu->findData(QStringLiteral("v100-16gb"))));
    m_budget = spin(0, 1024, 13, 1, 1, tr(" GB"));
    m_budget->setSpecialValueText(tr("the GPU's memory"));
    m_budget->setToolTip(tr("Usable memory per GPU (the paper's effective V100 budget: 13 GB); 0 = the GPU's memory"));
    m_method = new QComboBox;
    for (const auto& m : serve::placementMethods())
        m_method->addItem(QString::fromStdString(serve::methodTitle(m)), QString::fromStdString(m));
    dl->addRow(tr("GPUs"), m_gpus);
    dl->addRow(tr("GPU type"), m_gpu);
    dl->addRow(tr("Memory budget"), m_budget);
    dl->addRow(tr("Method"), m_method);
    layout->addWidget(devices);
    layout->addStretch();

    addModelRow(QStringLiteral("bert-1.3b"), 4);
    updateCustomEnabled();
    updateTrafficShown();

    connect(m_set, &QComboBox::currentIndexChanged, this, [this] {
        updateCustomEnabled();
        emit changed();
    });
    connect(m_add, &QPushButton::clicked, this, [this] {
        addModelRow(QStringLiteral("bert-1.3b"), 1);
        emit changed();
    });
    connect(m_remove, &QPushButton::clicked, this, [this] {
        if (m_custom->rowCount() > 1) // a custom list always has a model
            m_custom->removeRow(m_custom->currentRow() >= 0 ? m_custom->currentRow() : m_custom->rowCount() - 1);
        emit changed();
    });
    connect(m_source, &QComboBox::currentIndexChanged, this, [this] {
        updateTrafficShown();
        emit trafficSourceChanged(usesTrace());
        emit changed();
    });
    connect(m_browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Trace file"), m_trace->text(),
                                                          tr("CSV files (*.csv);;All files (*)"));
        if (path.isEmpty())
            return;
        m_trace->setText(path);
        emit traceChosen(path);
    });
    connect(m_trace, &QLineEdit::editingFinished, this, [this] {
        if (!m_trace->text().trimmed().isEmpty())
            emit traceChosen(m_trace->text().trimmed());
    });
    connect(m_trace, &QLineEdit::textChanged, this, &ServingInputs::changed);
    for (auto* s : {m_rate, m_cv, m_powerLaw, m_duration, m_slo, m_budget, m_rateScale, m_cvScale})
        connect(s, &QDoubleSpinBox::valueChanged, this, &ServingInputs::changed);
    for (auto* s : {m_seed, m_gpus, m_window})
        connect(s, &QSpinBox::valueChanged, this, &ServingInputs::changed);
    for (auto* c : {m_gpu, m_method})
        connect(c, &QComboBox::currentIndexChanged, this, &ServingInputs::changed);
}

void ServingInputs::addModelRow(const QString& model, int count)
{
    const int row = m_custom->rowCount();
    m_custom->insertRow(row);
    auto* name = new QComboBox;
    for (const auto& m : serve::ServingLibrary::builtin().models())
        name->addItem(QString::fromStdString(m.name));
    if (name->findText(model) < 0)
        name->addItem(model); // a model of another library, kept as given
    name->setCurrentText(model);
    auto* n = new QSpinBox;
    n->setRange(1, 1000);
    n->setValue(count);
    m_custom->setCellWidget(row, 0, name);
    m_custom->setCellWidget(row, 1, n);
    connect(name, &QComboBox::currentIndexChanged, this, &ServingInputs::changed);
    connect(n, &QSpinBox::valueChanged, this, &ServingInputs::changed);
}

void ServingInputs::updateCustomEnabled()
{
    const bool custom = m_set->currentIndex() == kCustom;
    m_custom->setEnabled(custom);
    m_add->setEnabled(custom);
    m_remove->setEnabled(custom);
}

void ServingInputs::updateTrafficShown()
{
    m_gamma->setVisible(!usesTrace());
    m_traceBox->setVisible(usesTrace());
}

bool ServingInputs::usesTrace() const
{
    return m_source->currentData().toBool();
}

void ServingInputs::setUsesTrace(bool trace)
{
    m_source->setCurrentIndex(m_source->findData(trace));
}

QString ServingInputs::problem() const
{
    if (usesTrace() && m_trace->text().trimmed().isEmpty())
        return tr("Traffic: name a trace file (MAF1 or MAF2 schema), or choose Gamma arrivals");
    return {};
}

void ServingInputs::setTraceInfo(const QString& text, bool error)
{
    m_traceInfo->setStyleSheet(error ? QStringLiteral("QLabel { color: #b00020; }") : QString());
    m_traceInfo->setText(text);
}

void ServingInputs::setCustomModels(const serve::ModelCounts& models)
{
    m_custom->setRowCount(0);
    for (const auto& [name, count] : models)
        addModelRow(QString::fromStdString(name), count);
    m_set->setCurrentIndex(kCustom);
}

serve::ServingSpec ServingInputs::spec() const
{
    serve::ServingSpec s = m_kept;
    const QString set = m_set->currentData().toString();
    if (!set.isEmpty()) {
        s.modelSet = set.toStdString();
        s.models = *serve::modelSet(s.modelSet);
    } else {
        s.modelSet.clear();
        s.models.clear();
        for (int r = 0; r < m_custom->rowCount(); ++r) {
            const auto* name = qobject_cast<QComboBox*>(m_custom->cellWidget(r, 0));
            const auto* count = qobject_cast<QSpinBox*>(m_custom->cellWidget(r, 1));
            s.models.emplace_back(name->currentText().toStdString(), count->value());
        }
    }
    // A trace replaces the Gamma traffic; the Gamma fields are kept in the spec, as the form keeps them.
    s.trace = usesTrace() ? m_trace->text().trimmed().toStdString() : std::string();
    s.windowMin = m_window->value();
    s.rateScale = m_rateScale->value();
    s.cvScale = m_cvScale->value();
    s.ratePerS = m_rate->value();
    s.cv = m_cv->value();
    s.powerLaw = m_powerLaw->value();
    s.durationS = m_duration->value();
    // The spin box holds seeds up to 2^30; a larger stored seed stays as it was unless the field was edited.
    const auto shown = std::min<std::uint64_t>(m_kept.seed, 1u << 30);
    s.seed = static_cast<std::uint64_t>(m_seed->value()) == shown ? m_kept.seed
                                                                  : static_cast<std::uint64_t>(m_seed->value());
    s.sloScale = m_slo->value();
    s.gpus = m_gpus->value();
    s.gpu = m_gpu->currentData().toString().toStdString();
    s.memoryBudgetGB = m_budget->value();
    s.method = m_method->currentData().toString().toStdString();
    return s;
}

void ServingInputs::setSpec(const serve::ServingSpec& spec)
{
    m_kept = spec;
    const int set = spec.modelSet.empty() ? -1 : m_set->findData(QString::fromStdString(spec.modelSet));
    if (set >= 0)
        m_set->setCurrentIndex(set);
    else
        setCustomModels(spec.models);
    m_trace->setText(QString::fromStdString(spec.trace));
    m_window->setValue(spec.windowMin);
    m_rateScale->setValue(spec.rateScale);
    m_cvScale->setValue(spec.cvScale);
    setUsesTrace(spec.usesTrace());
    m_rate->setValue(spec.ratePerS);
    m_cv->setValue(spec.cv);
    m_powerLaw->setValue(spec.powerLaw);
    m_duration->setValue(spec.durationS);
    m_seed->setValue(static_cast<int>(std::min<std::uint64_t>(spec.seed, 1u << 30)));
    m_slo->setValue(spec.sloScale);
    m_gpus->setValue(spec.gpus);
    const int gpu = m_gpu->findData(QString::fromStdString(spec.gpu));
    if (gpu >= 0)
        m_gpu->setCurrentIndex(gpu);
    m_budget->setValue(spec.memoryBudgetGB);
    const int method = m_method->findData(QString::fromStdString(spec.method));
    if (method >= 0)
        m_method->setCurrentIndex(method);
    if (spec.usesTrace())
        emit traceChosen(m_trace->text());
}

} // namespace orrery::gui
