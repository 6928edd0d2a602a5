#include "editors/import_trace_dialog.h"

#include "async/job_runner.h"
#include "charts/trace_charts.h"
#include "models/trace_summary.h"
#include "results/palette.h"
#include "workload/trace_reader.h"

#include <QChartView>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace orrery::gui {

ImportTraceDialog::ImportTraceDialog(JobRunner* runner, QWidget* parent) : QDialog(parent), m_runner(runner)
{
    setWindowTitle(tr("Import Trace"));
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_format = new QComboBox;
    for (const auto& f : workload::traceFormats())
        m_format->addItem(QString::fromStdString(f));
    form->addRow(tr("&Format:"), m_format);
    auto* fileRow = new QHBoxLayout;
    m_file = new QLineEdit;
    m_file->setPlaceholderText(tr("Gavel .trace, openb pod list, PAI task table, Helios cluster_log.csv, Philly csv, "
                                  "Sia/Pollux or Tiresias csv"));
    auto* browse = new QPushButton(tr("&Browse..."));
    fileRow->addWidget(m_file, 1);
    fileRow->addWidget(browse);
    auto* fileLabel = new QLabel(tr("&Trace file:"));
    fileLabel->setBuddy(m_file);
    form->addRow(fileLabel, fileRow);
    m_cluster = new QLineEdit;
    m_cluster->setPlaceholderText(tr("the format's default, e.g. v100:64 or v100:36,p100:36,k80:36"));
    m_cluster->setToolTip(tr("TYPE:GPUS[/GPUS_PER_NODE],... (docs/traces.md); empty: the format's own cluster"));
    form->addRow(tr("&Cluster:"), m_cluster);
    m_limit = new QSpinBox;
    m_limit->setRange(0, 10'000'000);
    m_limit->setSpecialValueText(tr("all jobs"));
    m_limit->setToolTip(tr("Import only the first N jobs (earliest arrivals; Gavel: the first rows)"));
    form->addRow(tr("&Limit:"), m_limit);
    layout->addLayout(form);

    auto* previewButton = new QPushButton(tr("&Preview"));
    layout->addWidget(previewButton, 0, Qt::AlignLeft);
    m_summary = new QLabel(tr("Choose a trace and press Preview."));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_summary);
    m_error = new QLabel;
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: #b00020"));
    m_error->hide();
    layout->addWidget(m_error);
    auto* charts = new QHBoxLayout;
    m_demand = smallBarChart();
    m_arrivals = smallBarChart();
    charts->addWidget(m_demand);
    charts->addWidget(m_arrivals);
    layout->addLayout(charts, 1);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("&Import"));
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    layout->addWidget(m_buttons);
    resize(760, 560);

    connect(browse, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Trace File"), m_file->text());
        if (!path.isEmpty()) {
            m_file->setText(path);
            preview();
        }
    });
    connect(previewButton, &QPushButton::clicked, this, &ImportTraceDialog::preview);
    connect(m_file, &QLineEdit::returnPressed, this, &ImportTraceDialog::preview);
    connect(m_cluster, &QLineEdit::returnPressed, this, &ImportTraceDialog::preview);
    connect(m_format, &QComboBox::currentIndexChanged, this, &ImportTraceDialog::inputsChanged);
    connect(m_file, &QLineEdit::textChanged, this, &ImportTraceDialog::inputsChanged);
    connect(m_cluster, &QLineEdit::textChanged, this, &ImportTraceDialog::inputsChanged);
    connect(m_limit, &QSpinBox::valueChanged, this, &ImportTraceDialog::inputsChanged);
    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
}

void ImportTraceDialog::setInputs(const QString& format, const QString& file, const QString& cluster, int limit)
{
    m_format->setCurrentText(format);
    m_file->setText(file);
    m_cluster->setText(cluster);
    m_limit->setValue(limit);
}

io::TraceImportRequest ImportTraceDialog::request() const
{
    io::TraceImportRequest r;
    r.format = m_format->currentText().toStdString();
    r.file = m_file->text().trimmed().toStdString();
    r.cluster = m_cluster->text().trimmed().toStdString();
    r.limit = m_limit->value();
    return r;
}

void ImportTraceDialog::inputsChanged()
{
    // What is shown no longer describes the inputs: nothing to import until the next preview.
    ++m_generation;
    m_result.reset();
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
}

void ImportTraceDialog::preview()
{
    const io::TraceImportRequest r = request();
    if (r.file.empty()) {
        showError(tr("Choose a trace file."));
        return;
    }
    const int generation = ++m_generation;
    m_result.reset();
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(false);
    m_summary->setText(tr("Reading %1...").arg(m_file->text()));
    m_error->hide();
    using Result = std::shared_ptr<const io::TraceImport>;
    m_runner->start<Result>(
        QStringLiteral("import-preview"),
        [r](TaskContext&) -> Result { return std::make_shared<const io::TraceImport>(io::importTrace(r)); }, this,
        [this, generation](Result imported) {
            if (generation == m_generation)
                showPreview(std::move(imported));
        },
        [this, generation](const QString& error) {
            if (generation == m_generation)
                showError(error);
        });
}

void ImportTraceDialog::showPreview(std::shared_ptr<const io::TraceImport> imported)
{
    const io::Scenario& s = imported->scenario;
    QString text = tr("<b>%1 jobs</b> from %2 rows").arg(s.workload.jobs.size()).arg(imported->rows);
    if (imported->skipped)
        text += tr(" (skipped %1: %2)").arg(imported->skipped).arg(QString::fromStdString(imported->skippedWhy));
    text += tr("<br>Cluster: %1 (%2 GPUs on %3 nodes; %4)")
                .arg(QString::fromStdString(s.cluster.summary()).toHtmlEscaped())
                .arg(s.cluster.totalGpus())
                .arg(s.cluster.nodes().size())
                .arg(QString::fromStdString(imported->clusterSource).toHtmlEscaped());
    const auto& load = imported->load;
    if (load.factor)
        text += tr("<br>Offered load: <b>%1</b> of the cluster (%2 GPU-hours asked over %3 of arrivals%4)")
                    .arg(*load.factor, 0, 'f', 3)
                    .arg(load.demandGpuS / 3600.0, 0, 'f', 0)
                    .arg(formatDuration(load.arrivalSpanS))
                    .arg(load.jobsWithoutDuration
                             ? tr("; %1 jobs without a known duration not counted").arg(load.jobsWithoutDuration)
                             : QString());
    else
        text += tr("<br>Offered load: unknown (no job states its duration)");
    if (const auto warning = io::lowLoadWarning(load, s.cluster.totalGpus()))
        text += tr("<br><span style='color:#a05a00'>Warning: %1.</span>")
                    .arg(QString::fromStdString(*warning).toHtmlEscaped());
    m_summary->setText(text);
    m_error->hide();
    fillTraceCharts(m_demand, m_arrivals, TraceSummary::of(s.workload.jobs));
    m_result = std::move(imported);
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(true);
    emit previewReady();
}

void ImportTraceDialog::showError(const QString& error)
{
    m_summary->setText(tr("Nothing to import."));
    m_error->setText(error);
    m_error->show();
    emit previewFailed(error);
}

} // namespace orrery::gui
