#include "sweeps/sweep_builder_dialog.h"

#include "io/error.h"
#include "sweep/sweep_table.h"
#include "sweeps/cluster_edits_section.h"
#include "sweeps/policy_axis_section.h"
#include "sweeps/seed_axis_section.h"
#include "sweeps/slurm_export_dialog.h"
#include "sweeps/sweep_points_section.h"
#include "sweeps/sweep_preview.h"
#include "sweeps/workload_edits_section.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QVBoxLayout>

#include <cctype>

namespace orrery::gui {

namespace {

std::string sweepNameFor(const std::string& scenarioName)
{
    // "Default: heterogeneous cluster" -> "default-heterogeneous-cluster-sweep": a name that reads well in a shell.
    std::string out;
    for (const char c : scenarioName) {
        const bool plain = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
        if (plain)
            out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!out.empty() && out.back() != '-')
            out += '-';
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return (out.empty() ? std::string("scenario") : out) + "-sweep";
}

} // namespace

SweepBuilderDialog::SweepBuilderDialog(const io::Scenario& base, QString scenarioRef, JobRunner* runner,
                                       QWidget* parent)
    : QDialog(parent), m_scenarioRef(std::move(scenarioRef))
{
    setWindowTitle(tr("Build Sweep"));
    setObjectName(QStringLiteral("SweepBuilderDialog"));
    m_debounce.setSingleShot(true);
    m_debounce.setInterval(250);
    connect(&m_debounce, &QTimer::timeout, this, &SweepBuilderDialog::updatePreview);

    auto* outer = new QVBoxLayout(this);
    auto* scroll = new QScrollArea;
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* page = new QWidget;
    auto* layout = new QVBoxLayout(page);
    scroll->setWidget(page);
    outer->addWidget(scroll, 1);

    auto* head = new QFormLayout;
    m_name = new QLineEdit(QString::fromStdString(sweepNameFor(base.name)));
    m_name->setToolTip(tr("Identifies the sweep's runs in a store: resuming and the Sweeps list go by it"));
    head->addRow(tr("Sweep name"), m_name);
    m_description = new QLineEdit;
    m_description->setPlaceholderText(tr("optional"));
    head->addRow(tr("Description"), m_description);
    auto* baseLabel =
        new QLabel(m_scenarioRef == QLatin1String("default") ? tr("default (the embedded scenario)") : m_scenarioRef);
    baseLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    baseLabel->setWordWrap(true);
    head->addRow(tr("Base scenario"), baseLabel);
    layout->addLayout(head);

    m_policies = new PolicyAxisSection(base);
    layout->addWidget(m_policies);
    m_seeds = new SeedAxisSection(base);
    layout->addWidget(m_seeds);
    m_clusterEdits = new ClusterEditsSection(base.cluster);
    layout->addWidget(m_clusterEdits);
    m_workloadEdits = new WorkloadEditsSection;
    layout->addWidget(m_workloadEdits);
    m_points = new SweepPointsSection;
    layout->addWidget(m_points);

    m_preview = new SweepPreview(runner);
    outer->addWidget(m_preview);

    auto* buttons = new QDialogButtonBox;
    auto* save = buttons->addButton(tr("Save As..."), QDialogButtonBox::ActionRole);
    auto* slurm = buttons->addButton(tr("Export Slurm Submission..."), QDialogButtonBox::ActionRole);
    auto* run = buttons->addButton(tr("Run Locally"), QDialogButtonBox::AcceptRole);
    buttons->addButton(QDialogButtonBox::Close);
    outer->addWidget(buttons);

    connect(save, &QPushButton::clicked, this, &SweepBuilderDialog::saveInteractive);
    connect(slurm, &QPushButton::clicked, this, &SweepBuilderDialog::exportSlurmInteractive);
    connect(run, &QPushButton::clicked, this, &SweepBuilderDialog::runLocally);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (auto* e : {m_name, m_description})
        connect(e, &QLineEdit::textChanged, this, &SweepBuilderDialog::changed);
    connect(m_policies, &PolicyAxisSection::changed, this, &SweepBuilderDialog::changed);
    connect(m_seeds, &SeedAxisSection::changed, this, &SweepBuilderDialog::changed);
    connect(m_clusterEdits, &ClusterEditsSection::changed, this, &SweepBuilderDialog::changed);
    connect(m_workloadEdits, &WorkloadEditsSection::changed, this, &SweepBuilderDialog::changed);
    connect(m_points, &SweepPointsSection::changed, this, &SweepBuilderDialog::changed);
    connect(m_points, &SweepPointsSection::explicitToggled, this, &SweepBuilderDialog::pointsModeChanged);
    connect(m_points, &SweepPointsSection::addRequested, this, [this] { addPoint({}); });
    connect(m_points, &SweepPointsSection::fillRequested, this, &SweepBuilderDialog::fillPointsFromGrid);
    connect(m_preview, &SweepPreview::previewUpdated, this, &SweepBuilderDialog::previewUpdated);
    connect(m_preview, &SweepPreview::estimateUpdated, this, &SweepBuilderDialog::estimateUpdated);
    resize(860, 900);
    updatePreview();
}

SweepBuilderDialog::~SweepBuilderDialog() = default;

QListWidget* SweepBuilderDialog::policyList() const
{
    return m_policies->list();
}

QPlainTextEdit* SweepBuilderDialog::variantsEdit() const
{
    return m_policies->variantsEdit();
}

QLineEdit* SweepBuilderDialog::seedsEdit() const
{
    return m_seeds->edit();
}

QLineEdit* SweepBuilderDialog::arrivalEdit() const
{
    return m_workloadEdits->arrivalEdit();
}

QLineEdit* SweepBuilderDialog::jobLimitEdit() const
{
    return m_workloadEdits->jobLimitEdit();
}

QLineEdit* SweepBuilderDialog::estimateErrorEdit() const
{
    return m_workloadEdits->estimateErrorEdit();
}

QTableWidget* SweepBuilderDialog::pointsTable() const
{
    return m_points->table();
}

QLabel* SweepBuilderDialog::previewLabel() const
{
    return m_preview;
}

int SweepBuilderDialog::pointCount() const
{
    return m_preview->pointCount();
}

std::optional<double> SweepBuilderDialog::estimatedCpuS() const
{
    return m_preview->estimatedCpuS();
}

QString SweepBuilderDialog::errorText() const
{
    return m_preview->errorText();
}

void SweepBuilderDialog::changed()
{
    m_debounce.start();
}

int SweepBuilderDialog::addClusterEdit(sweep::AxisKind kind, const QString& target, const QString& values,
                                       int gpusPerNode)
{
    return m_clusterEdits->addEdit(kind, target, values, gpusPerNode);
}

SweepDraft SweepBuilderDialog::draft() const
{
    SweepDraft d;
    d.name = m_name->text().toStdString();
    d.description = m_description->text().toStdString();
    d.scenario = m_scenarioRef.toStdString();
    m_policies->writeTo(d);
    m_seeds->writeTo(d);
    m_clusterEdits->writeTo(d);
    m_workloadEdits->writeTo(d);
    m_points->writeTo(d);
    return d;
}

std::vector<DraftAxis> SweepBuilderDialog::gridAxes() const
{
    SweepDraft d = draft();
    d.explicitPoints = false;
    return draftAxes(d);
}

nlohmann::json SweepBuilderDialog::specDocument() const
{
    return sweepSpecDocument(draft());
}

QString SweepBuilderDialog::label() const
{
    if (!m_savedPath.isEmpty())
        return QFileInfo(m_savedPath).fileName();
    return tr("%1 (built, not saved)").arg(m_name->text().trimmed());
}

sweep::SweepSpec SweepBuilderDialog::spec() const
{
    sweep::SweepSpec s = sweep::parseSweepSpec(specDocument(), label().toStdString());
    s.sourcePath = m_savedPath.toStdString();
    return s;
}

void SweepBuilderDialog::setExplicitPoints(bool on)
{
    if (m_points->isExplicit() != on)
        m_points->setExplicit(on); // toggles: pointsModeChanged follows
    else
        pointsModeChanged(on);
}

void SweepBuilderDialog::pointsModeChanged(bool on)
{
    if (on) {
        try {
            m_points->syncColumns(gridAxes());
        } catch (const std::exception&) {
            // The form has an error: the preview says which; the columns follow once it is fixed.
        }
    }
    changed();
}

void SweepBuilderDialog::addPoint(const std::map<std::string, std::string>& point)
{
    if (!m_points->isExplicit())
        setExplicitPoints(true);
    try {
        m_points->syncColumns(gridAxes());
    } catch (const Error& e) {
        m_preview->showError(QString::fromStdString(e.what()));
        return;
    }
    m_points->appendPoint(point);
}

void SweepBuilderDialog::fillPointsFromGrid()
{
    std::vector<DraftAxis> axes;
    try {
        axes = gridAxes();
    } catch (const Error& e) {
        m_preview->showError(QString::fromStdString(e.what()));
        return;
    }
    QString error;
    if (!m_points->fillFromGrid(axes, &error))
        m_preview->showError(error);
}

void SweepBuilderDialog::updatePreview()
{
    m_debounce.stop();
    m_preview->reset();
    sweep::SweepSpec s;
    std::optional<std::size_t> planned;
    try {
        if (m_points->isExplicit())
            m_points->syncColumns(gridAxes());
        const nlohmann::json doc = specDocument();
        s = sweep::parseSweepSpec(doc, label().toStdString());
        s.sourcePath = m_savedPath.toStdString();
        planned = sweep::plannedPointCount(doc, s.fileLabel);
    } catch (const std::exception& e) {
        m_preview->showError(QString::fromStdString(e.what()));
        emit previewUpdated();
        return;
    }
    m_preview->start(s, planned);
}

bool SweepBuilderDialog::saveTo(const QString& path, QString* error)
{
    try {
        const nlohmann::json doc = specDocument();
        // What is saved must be what the reader takes: checked here with the file's own label.
        sweep::parseSweepSpec(doc, QFileInfo(path).fileName().toStdString());
        QSaveFile file(path);
        const std::string text = doc.dump(2) + "\n";
        if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), qint64(text.size())) != qint64(text.size()) ||
            !file.commit()) {
            if (error)
                *error = tr("%1: cannot write the file: %2").arg(path, file.errorString());
            return false;
        }
    } catch (const std::exception& e) {
        if (error)
            *error = QString::fromStdString(e.what());
        return false;
    }
    m_savedPath = QFileInfo(path).absoluteFilePath();
    changed();
    return true;
}

void SweepBuilderDialog::saveInteractive()
{
    QSettings settings;
    const QString dir = settings.value(QStringLiteral("sweeps/lastDir")).toString();
    const QString suggested = QDir(dir).filePath(m_name->text().trimmed() + QStringLiteral(".json"));
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Sweep Spec"), m_savedPath.isEmpty() ? suggested : m_savedPath, tr("Sweep specs (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!saveTo(path, &error)) {
        QMessageBox::warning(this, tr("Cannot save the sweep"), error);
        return;
    }
    settings.setValue(QStringLiteral("sweeps/lastDir"), QFileInfo(path).absolutePath());
}

void SweepBuilderDialog::runLocally()
{
    if (!m_run)
        return;
    try {
        m_run(spec(), label());
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Cannot run the sweep"), QString::fromStdString(e.what()));
    }
}

void SweepBuilderDialog::exportSlurmInteractive()
{
    if (!m_export)
        return;
    sweep::SweepSpec s;
    try {
        s = spec();
    } catch (const std::exception& e) {
        QMessageBox::warning(this, tr("Cannot export the sweep"), QString::fromStdString(e.what()));
        return;
    }
    SlurmExportDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    auto options = dialog.options();
    options.specFile = m_savedPath.toStdString();
    m_export(s, options);
}

} // namespace orrery::gui
