#include "sweeps/sweep_builder_dialog.h"

#include "async/job_runner.h"
#include "io/error.h"
#include "sched/registry.h"
#include "sweep/sweep_table.h"
#include "sweeps/slurm_export_dialog.h"
#include "sweeps/sweep_run_controller.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSaveFile>
#include <QScrollArea>
#include <QSettings>
#include <QSpinBox>
#include <QTableWidget>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace orrery::gui {

namespace {

const QString kBase = QStringLiteral("(base)");

struct KindChoice
{
    sweep::AxisKind kind;
    const char* text;
};

const KindChoice kEditKinds[] = {
    {sweep::AxisKind::ScaleNodes, QT_TRANSLATE_NOOP("SweepBuilderDialog", "Scale node group")},
    {sweep::AxisKind::NodeCount, QT_TRANSLATE_NOOP("SweepBuilderDialog", "Set node count")},
    {sweep::AxisKind::GpuType, QT_TRANSLATE_NOOP("SweepBuilderDialog", "Swap GPU type")},
    {sweep::AxisKind::AddNodes, QT_TRANSLATE_NOOP("SweepBuilderDialog", "Add nodes of a type")},
};

QString placeholderOf(sweep::AxisKind kind)
{
    switch (kind) {
    case sweep::AxisKind::ScaleNodes:
        return SweepBuilderDialog::tr("factors, e.g. 0.5, 1, 2");
    case sweep::AxisKind::NodeCount:
        return SweepBuilderDialog::tr("node counts, e.g. 1, 3, 6 or 1-8");
    case sweep::AxisKind::GpuType:
        return SweepBuilderDialog::tr("GPU types, e.g. v100-32gb, h100-sxm");
    default:
        return SweepBuilderDialog::tr("nodes to add, e.g. 0, 1, 2");
    }
}

/** "1 point", "18 points": the counts read as the CLI writes them (no translation catalogue resolves %n here). */
QString countOf(std::size_t n, const QString& one, const QString& many)
{
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
}

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

struct SweepBuilderDialog::EditRow
{
    QWidget* widget = nullptr;
    QComboBox* kind = nullptr;
    QComboBox* target = nullptr;
    QSpinBox* gpus = nullptr;
    QLineEdit* values = nullptr;
    QComboBox* addType = nullptr;
};

SweepBuilderDialog::SweepBuilderDialog(const io::Scenario& base, QString scenarioRef, JobRunner* runner,
                                       QWidget* parent)
    : QDialog(parent), m_base(base), m_scenarioRef(std::move(scenarioRef)), m_runner(runner)
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

    // Policies: the registered ones; the scenario's are checked, and those it lists with parameters are variants.
    auto* policyBox = new QGroupBox(tr("Policies"));
    auto* pl = new QHBoxLayout(policyBox);
    m_policies = new QListWidget;
    std::vector<std::string> variants;
    for (const auto& info : sched::registeredPolicies()) {
        auto* item = new QListWidgetItem(QString::fromStdString(info.name) +
                                         (info.traits.roundBased ? tr(" (round-based)") : QString()));
        item->setData(Qt::UserRole, QString::fromStdString(info.name));
        item->setToolTip(QString::fromStdString(info.description));
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        const bool listed = std::find(base.policies.begin(), base.policies.end(), info.name) != base.policies.end();
        item->setCheckState(listed ? Qt::Checked : Qt::Unchecked);
        m_policies->addItem(item);
    }
    for (const auto& p : base.policies)
        if (p.find(':') != std::string::npos)
            variants.push_back(p);
    m_policies->setMinimumHeight(120);
    pl->addWidget(m_policies, 1);
    auto* variantColumn = new QVBoxLayout;
    auto* variantHelp = new QLabel(tr("Variants with parameters, one per line (orrery-cli policies --params):"));
    variantHelp->setWordWrap(true);
    variantColumn->addWidget(variantHelp);
    m_variants = new QPlainTextEdit;
    m_variants->setPlaceholderText(QStringLiteral("tiresias:backfill_limit=0\nthemis:f=0.5"));
    std::string variantText;
    for (const auto& v : variants)
        variantText += v + "\n";
    m_variants->setPlainText(QString::fromStdString(variantText));
    variantColumn->addWidget(m_variants, 1);
    auto* note = new QLabel(tr("With none checked and no variant, the sweep runs the scenario's own policies."));
    note->setWordWrap(true);
    note->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    variantColumn->addWidget(note);
    pl->addLayout(variantColumn, 1);
    layout->addWidget(policyBox);

    auto* axesForm = new QFormLayout;
    m_seeds = new QLineEdit(QString::number(base.options.seed));
    m_seeds->setPlaceholderText(tr("empty: the scenario's seed; e.g. 0, 1, 2 or 0-9"));
    axesForm->addRow(tr("Seeds"), m_seeds);
    layout->addLayout(axesForm);

    auto* clusterBox = new QGroupBox(tr("Cluster edits"));
    auto* cl = new QVBoxLayout(clusterBox);
    m_editRows = new QVBoxLayout;
    cl->addLayout(m_editRows);
    auto* addEdit = new QPushButton(tr("Add Cluster Edit"));
    auto* addRow = new QHBoxLayout;
    addRow->addWidget(addEdit);
    addRow->addStretch();
    cl->addLayout(addRow);
    layout->addWidget(clusterBox);

    auto* workloadBox = new QGroupBox(tr("Workload edits (empty: not varied)"));
    auto* wl = new QFormLayout(workloadBox);
    m_arrival = new QLineEdit;
    m_arrival->setPlaceholderText(tr("factors, e.g. 0.5, 1, 2 (2: arrivals twice as fast)"));
    wl->addRow(tr("Arrival-rate scale"), m_arrival);
    m_jobLimit = new QLineEdit;
    m_jobLimit->setPlaceholderText(tr("the N earliest jobs, e.g. 50, 100"));
    wl->addRow(tr("Job limit"), m_jobLimit);
    m_estimateError = new QLineEdit;
    m_estimateError->setPlaceholderText(tr("none, uniform:0.2, lognormal:0.5"));
    wl->addRow(tr("Estimate error"), m_estimateError);
    layout->addWidget(workloadBox);

    auto* pointsBox = new QGroupBox(tr("Points"));
    auto* ptl = new QVBoxLayout(pointsBox);
    auto* modeRow = new QHBoxLayout;
    m_grid = new QRadioButton(tr("Full grid (every combination of the values)"));
    m_explicit = new QRadioButton(tr("Explicit points"));
    m_grid->setChecked(true);
    auto* modes = new QButtonGroup(this);
    modes->addButton(m_grid);
    modes->addButton(m_explicit);
    modeRow->addWidget(m_grid);
    modeRow->addWidget(m_explicit);
    modeRow->addStretch();
    ptl->addLayout(modeRow);
    m_points = new QTableWidget;
    m_points->verticalHeader()->setDefaultSectionSize(m_points->verticalHeader()->defaultSectionSize() + 4);
    m_points->setMinimumHeight(110);
    m_points->setToolTip(tr("One point per row: each axis takes one of its values, or (base): the base "
                            "scenario's value stands"));
    ptl->addWidget(m_points);
    auto* pointButtons = new QHBoxLayout;
    m_addPoint = new QPushButton(tr("Add Point"));
    m_removePoint = new QPushButton(tr("Remove Point"));
    m_fillPoints = new QPushButton(tr("Fill from Grid"));
    pointButtons->addWidget(m_addPoint);
    pointButtons->addWidget(m_removePoint);
    pointButtons->addWidget(m_fillPoints);
    pointButtons->addStretch();
    ptl->addLayout(pointButtons);
    layout->addWidget(pointsBox);

    m_preview = new QLabel;
    m_preview->setWordWrap(true);
    m_preview->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_preview->setMinimumHeight(48);
    m_preview->setObjectName(QStringLiteral("SweepBuilderPreview"));
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
    connect(addEdit, &QPushButton::clicked, this, [this] {
        addClusterEdit(sweep::AxisKind::ScaleNodes,
                       m_base.cluster.groups().empty() ? QString()
                                                       : QString::fromStdString(m_base.cluster.groups()[0].name),
                       QString());
    });
    connect(m_policies, &QListWidget::itemChanged, this, &SweepBuilderDialog::changed);
    connect(m_variants, &QPlainTextEdit::textChanged, this, &SweepBuilderDialog::changed);
    for (auto* e : {m_name, m_description, m_seeds, m_arrival, m_jobLimit, m_estimateError})
        connect(e, &QLineEdit::textChanged, this, &SweepBuilderDialog::changed);
    connect(m_explicit, &QRadioButton::toggled, this, [this](bool on) { setExplicitPoints(on); });
    connect(m_addPoint, &QPushButton::clicked, this, [this] { addPoint({}); });
    connect(m_removePoint, &QPushButton::clicked, this, [this] {
        const int row = m_points->currentRow();
        m_points->removeRow(row >= 0 ? row : m_points->rowCount() - 1);
        changed();
    });
    connect(m_fillPoints, &QPushButton::clicked, this, &SweepBuilderDialog::fillPointsFromGrid);
    setExplicitPoints(false);
    resize(860, 900);
    updatePreview();
}

SweepBuilderDialog::~SweepBuilderDialog() = default;

void SweepBuilderDialog::changed()
{
    m_debounce.start();
}

int SweepBuilderDialog::addClusterEdit(sweep::AxisKind kind, const QString& target, const QString& values,
                                       int gpusPerNode)
{
    auto row = std::make_unique<EditRow>();
    EditRow* r = row.get();
    r->widget = new QWidget;
    auto* h = new QHBoxLayout(r->widget);
    h->setContentsMargins(0, 0, 0, 0);
    r->kind = new QComboBox;
    for (const auto& k : kEditKinds)
        r->kind->addItem(tr(k.text), static_cast<int>(k.kind));
    r->kind->setCurrentIndex(std::max(0, r->kind->findData(static_cast<int>(kind))));
    r->target = new QComboBox;
    r->target->setMinimumWidth(150);
    r->gpus = new QSpinBox;
    r->gpus->setRange(1, 64);
    r->gpus->setValue(gpusPerNode);
    r->gpus->setSuffix(tr(" GPUs/node"));
    r->values = new QLineEdit(values);
    r->addType = new QComboBox;
    r->addType->setToolTip(tr("Append a GPU type of the catalog to the values"));
    auto* remove = new QToolButton;
    remove->setText(QStringLiteral("\u2715"));
    remove->setToolTip(tr("Remove this edit"));
    h->addWidget(r->kind);
    h->addWidget(r->target);
    h->addWidget(r->gpus);
    h->addWidget(r->values, 1);
    h->addWidget(r->addType);
    h->addWidget(remove);
    m_editRows->addWidget(r->widget);
    refillTargets(*r);
    const int at = r->target->findData(target);
    if (at >= 0) {
        r->target->setCurrentIndex(at);
    } else if (!target.isEmpty()) {
        // Not of this scenario (a spec written for another): kept, so that core says what is wrong with it.
        r->target->addItem(target, target);
        r->target->setCurrentIndex(r->target->count() - 1);
    }
    connect(r->kind, &QComboBox::currentIndexChanged, this, [this, r] {
        refillTargets(*r);
        changed();
    });
    connect(r->target, &QComboBox::currentIndexChanged, this, &SweepBuilderDialog::changed);
    connect(r->gpus, &QSpinBox::valueChanged, this, &SweepBuilderDialog::changed);
    connect(r->values, &QLineEdit::textChanged, this, &SweepBuilderDialog::changed);
    connect(r->addType, &QComboBox::activated, this, [r](int index) {
        if (index <= 0)
            return;
        const QString text = r->values->text().trimmed();
        r->values->setText(text.isEmpty() ? r->addType->itemText(index)
                                          : text + QStringLiteral(", ") + r->addType->itemText(index));
        r->addType->setCurrentIndex(0);
    });
    connect(remove, &QToolButton::clicked, this, [this, r] { removeEditRow(r); });
    m_edits.push_back(std::move(row));
    changed();
    return static_cast<int>(m_edits.size()) - 1;
}

void SweepBuilderDialog::removeEditRow(EditRow* row)
{
    const auto it = std::find_if(m_edits.begin(), m_edits.end(), [row](const auto& r) { return r.get() == row; });
    if (it == m_edits.end())
        return;
    (*it)->widget->deleteLater();
    m_edits.erase(it);
    changed();
}

void SweepBuilderDialog::refillTargets(EditRow& r)
{
    const auto kind = static_cast<sweep::AxisKind>(r.kind->currentData().toInt());
    const QSignalBlocker block(r.target);
    const QString previous = r.target->currentData().toString();
    r.target->clear();
    const auto& catalog = m_base.cluster.catalog();
    if (kind == sweep::AxisKind::AddNodes) {
        for (const auto& t : catalog.types())
            r.target->addItem(QString::fromStdString(t.name), QString::fromStdString(t.name));
    } else {
        for (const auto& g : m_base.cluster.groups())
            r.target->addItem(QStringLiteral("%1 (%2 x %3 %4)")
                                  .arg(QString::fromStdString(g.name))
                                  .arg(g.count)
                                  .arg(g.gpusPerNode)
                                  .arg(QString::fromStdString(g.gpuType)),
                              QString::fromStdString(g.name));
    }
    const int keep = r.target->findData(previous);
    if (keep >= 0)
        r.target->setCurrentIndex(keep);
    r.gpus->setVisible(kind == sweep::AxisKind::AddNodes);
    r.addType->setVisible(kind == sweep::AxisKind::GpuType);
    if (r.addType->count() == 0) {
        r.addType->addItem(tr("add a type..."));
        for (const auto& t : catalog.types())
            r.addType->addItem(QString::fromStdString(t.name));
    }
    r.values->setPlaceholderText(placeholderOf(kind));
}

SweepDraft SweepBuilderDialog::draft() const
{
    SweepDraft d;
    d.name = m_name->text().toStdString();
    d.description = m_description->text().toStdString();
    d.scenario = m_scenarioRef.toStdString();
    for (int i = 0; i < m_policies->count(); ++i)
        if (m_policies->item(i)->checkState() == Qt::Checked)
            d.policies.push_back(m_policies->item(i)->data(Qt::UserRole).toString().toStdString());
    d.policyVariants = m_variants->toPlainText().toStdString();
    d.seeds = m_seeds->text().toStdString();
    for (const auto& r : m_edits)
        d.clusterEdits.push_back({static_cast<sweep::AxisKind>(r->kind->currentData().toInt()),
                                  r->target->currentData().toString().toStdString(), r->gpus->value(),
                                  r->values->text().toStdString()});
    d.arrivalRateScales = m_arrival->text().toStdString();
    d.jobLimits = m_jobLimit->text().toStdString();
    d.estimateErrors = m_estimateError->text().toStdString();
    d.explicitPoints = m_explicit->isChecked();
    if (d.explicitPoints)
        for (int row = 0; row < m_points->rowCount(); ++row) {
            std::map<std::string, std::string> point;
            for (int c = 0; c < m_points->columnCount() && c < static_cast<int>(m_pointAxes.size()); ++c) {
                const auto* box = qobject_cast<QComboBox*>(m_points->cellWidget(row, c));
                if (box && box->currentIndex() > 0)
                    point[m_pointAxes[std::size_t(c)].name] = box->currentText().toStdString();
            }
            d.points.push_back(std::move(point));
        }
    return d;
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
    if (m_explicit->isChecked() != on)
        (on ? m_explicit : m_grid)->setChecked(true); // exclusive: checking one unchecks the other; toggled calls back
    m_points->setEnabled(on);
    m_addPoint->setEnabled(on);
    m_removePoint->setEnabled(on);
    m_fillPoints->setEnabled(on);
    if (on) {
        try {
            SweepDraft d = draft();
            d.explicitPoints = false;
            syncPointColumns(draftAxes(d));
        } catch (const std::exception&) {
            // The form has an error: the preview says which; the columns follow once it is fixed.
        }
    }
    changed();
}

void SweepBuilderDialog::setPointCombo(int row, int column, const DraftAxis& axis, const std::string& label)
{
    auto* box = new QComboBox;
    box->addItem(kBase);
    for (const auto& l : axis.labels)
        box->addItem(QString::fromStdString(l));
    const int at = box->findText(QString::fromStdString(label));
    box->setCurrentIndex(at > 0 ? at : 0);
    connect(box, &QComboBox::currentIndexChanged, this, &SweepBuilderDialog::changed);
    m_points->setCellWidget(row, column, box);
}

void SweepBuilderDialog::syncPointColumns(const std::vector<DraftAxis>& axes)
{
    const auto same = [](const std::vector<DraftAxis>& a, const std::vector<DraftAxis>& b) {
        if (a.size() != b.size())
            return false;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i].name != b[i].name || a[i].labels != b[i].labels)
                return false;
        return true;
    };
    if (same(axes, m_pointAxes) && m_points->columnCount() == static_cast<int>(axes.size()))
        return;
    // Each row keeps the values it had on the axes that remain.
    std::vector<std::map<std::string, std::string>> rows;
    for (int row = 0; row < m_points->rowCount(); ++row) {
        std::map<std::string, std::string> point;
        for (int c = 0; c < m_points->columnCount() && c < static_cast<int>(m_pointAxes.size()); ++c)
            if (const auto* box = qobject_cast<QComboBox*>(m_points->cellWidget(row, c));
                box && box->currentIndex() > 0)
                point[m_pointAxes[std::size_t(c)].name] = box->currentText().toStdString();
        rows.push_back(std::move(point));
    }
    m_pointAxes = axes;
    m_points->setRowCount(0);
    m_points->clear();
    m_points->setColumnCount(static_cast<int>(axes.size()));
    QStringList headers;
    for (const auto& a : axes)
        headers << QString::fromStdString(a.name);
    m_points->setHorizontalHeaderLabels(headers);
    m_points->setRowCount(static_cast<int>(rows.size()));
    for (int row = 0; row < static_cast<int>(rows.size()); ++row)
        for (std::size_t c = 0; c < axes.size(); ++c) {
            const auto it = rows[std::size_t(row)].find(axes[c].name);
            setPointCombo(row, static_cast<int>(c), axes[c], it == rows[std::size_t(row)].end() ? "" : it->second);
        }
    m_points->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

void SweepBuilderDialog::addPoint(const std::map<std::string, std::string>& point)
{
    if (!m_explicit->isChecked())
        setExplicitPoints(true);
    SweepDraft d = draft();
    d.explicitPoints = false;
    try {
        syncPointColumns(draftAxes(d));
    } catch (const Error& e) {
        m_error = QString::fromStdString(e.what());
        showPreview();
        return;
    }
    const int row = m_points->rowCount();
    m_points->insertRow(row);
    for (std::size_t c = 0; c < m_pointAxes.size(); ++c) {
        const auto it = point.find(m_pointAxes[c].name);
        setPointCombo(row, static_cast<int>(c), m_pointAxes[c], it == point.end() ? "" : it->second);
    }
    changed();
}

void SweepBuilderDialog::fillPointsFromGrid()
{
    SweepDraft d = draft();
    d.explicitPoints = false;
    std::vector<DraftAxis> axes;
    try {
        axes = draftAxes(d);
    } catch (const Error& e) {
        m_error = QString::fromStdString(e.what());
        showPreview();
        return;
    }
    std::size_t total = 1;
    for (const auto& a : axes)
        total *= a.labels.size();
    if (total > 1000) {
        m_error =
            tr("The grid has %1 points: too many to list one by one (at most 1,000); use the full grid.").arg(total);
        showPreview();
        return;
    }
    m_points->setRowCount(0);
    syncPointColumns(axes);
    std::vector<std::size_t> digit(axes.size(), 0);
    for (std::size_t n = 0; n < total; ++n) {
        std::map<std::string, std::string> point;
        for (std::size_t i = 0; i < axes.size(); ++i)
            point[axes[i].name] = axes[i].labels[digit[i]];
        const int row = m_points->rowCount();
        m_points->insertRow(row);
        for (std::size_t c = 0; c < axes.size(); ++c)
            setPointCombo(row, static_cast<int>(c), axes[c], point[axes[c].name]);
        for (std::size_t i = axes.size(); i-- > 0;) {
            if (++digit[i] < axes[i].labels.size())
                break;
            digit[i] = 0;
        }
    }
    changed();
}

void SweepBuilderDialog::showPreview()
{
    if (!m_error.isEmpty()) {
        m_preview->setStyleSheet(QStringLiteral("QLabel { color: #c01c28; }"));
        m_preview->setText(m_error);
        return;
    }
    m_preview->setStyleSheet(QString());
    m_preview->setText(m_estimateText.isEmpty() ? m_countText : m_countText + QLatin1Char('\n') + m_estimateText);
}

void SweepBuilderDialog::updatePreview()
{
    m_debounce.stop();
    const quint64 generation = ++m_generation;
    m_pointCount = -1;
    m_estimateS.reset();
    m_error.clear();
    m_countText.clear();
    m_estimateText.clear();
    sweep::SweepSpec s;
    try {
        if (m_explicit->isChecked()) {
            SweepDraft d = draft();
            d.explicitPoints = false;
            syncPointColumns(draftAxes(d));
        }
        const nlohmann::json doc = specDocument();
        s = sweep::parseSweepSpec(doc, label().toStdString());
        s.sourcePath = m_savedPath.toStdString();
        if (const auto planned = sweep::plannedPointCount(doc, s.fileLabel))
            m_countText =
                tr("%1; checking them against the base scenario...").arg(countOf(*planned, tr("point"), tr("points")));
    } catch (const std::exception& e) {
        m_error = QString::fromStdString(e.what());
        showPreview();
        emit previewUpdated();
        return;
    }
    showPreview();
    using PlanPtr = std::shared_ptr<const sweep::SweepPlan>;
    m_runner->start<PlanPtr>(
        QStringLiteral("sweep-builder-resolve"),
        [s](TaskContext&) { return std::make_shared<const sweep::SweepPlan>(sweep::resolveSweep(s)); }, this,
        [this, generation](PlanPtr plan) {
            if (generation != m_generation)
                return;
            m_pointCount = static_cast<int>(plan->points.size());
            m_countText = tr("%1 over %2 (%3).")
                              .arg(countOf(plan->points.size(), tr("point"), tr("points")),
                                   countOf(plan->scenarioCount, tr("scenario"), tr("scenarios")),
                                   countOf(plan->workloadCount, tr("prepared workload"), tr("prepared workloads")));
            m_estimateText = tr("Estimating the CPU time (a few points simulated)...");
            showPreview();
            emit previewUpdated();
            using Estimate = std::pair<double, std::string>;
            m_runner->start<Estimate>(
                QStringLiteral("sweep-builder-estimate"),
                [plan](TaskContext& ctx) {
                    std::vector<std::size_t> all(plan->points.size());
                    for (std::size_t i = 0; i < all.size(); ++i)
                        all[i] = i;
                    sweep::WorkloadCache cache;
                    const auto e = sweep::estimateCpu(*plan, all, cache, 2.0, 8, ctx.stopToken());
                    return Estimate{e.cpuS, e.method};
                },
                this,
                [this, generation](Estimate e) {
                    if (generation != m_generation)
                        return;
                    m_estimateS = e.first;
                    const int threads = std::max(1, QThread::idealThreadCount());
                    m_estimateText = tr("Estimated CPU time: %1 (%2 s), about %3 wall on %4 threads; from %5.")
                                         .arg(clockText(e.first))
                                         .arg(e.first, 0, 'f', 1)
                                         .arg(clockText(e.first / threads))
                                         .arg(threads)
                                         .arg(QString::fromStdString(e.second));
                    showPreview();
                    emit estimateUpdated();
                },
                [this, generation](const QString& error) {
                    if (generation != m_generation)
                        return;
                    m_estimateText = tr("No estimate: %1").arg(error);
                    showPreview();
                    emit estimateUpdated();
                });
        },
        [this, generation](const QString& error) {
            if (generation != m_generation)
                return;
            m_error = error;
            showPreview();
            emit previewUpdated();
        });
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
