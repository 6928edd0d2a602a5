#include "sweeps/slurm_export_dialog.h"

#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace orrery::gui {

QString SlurmExportDialog::defaultCliPath()
{
    const QString beside = QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("orrery-cli"));
    if (QFileInfo(beside).isExecutable())
        return beside;
    const QString onPath = QStandardPaths::findExecutable(QStringLiteral("orrery-cli"));
    return onPath.isEmpty() ? QStringLiteral("orrery-cli") : onPath;
}

SlurmExportDialog::SlurmExportDialog(QWidget* parent) : QDialog(parent)
{
    setWindowTitle(tr("Export Slurm Submission"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Writes the sweep's points and an sbatch --array script into a directory on the "
                                "cluster's shared file system, as orrery-cli sweep submit --slurm --no-submit does. "
                                "Submit it there with sbatch; follow it with orrery-cli sweep status and merge the "
                                "shards with orrery-cli sweep collect."));
    intro->setWordWrap(true);
    layout->addWidget(intro);
    auto* form = new QFormLayout;
    QSettings settings;
    m_dir = new QLineEdit(settings.value(QStringLiteral("sweeps/slurmDir")).toString());
    auto* browse = new QPushButton(tr("Browse..."));
    auto* dirRow = new QHBoxLayout;
    dirRow->addWidget(m_dir, 1);
    dirRow->addWidget(browse);
    form->addRow(tr("Directory"), dirRow);
    m_cli = new QLineEdit(defaultCliPath());
    m_cli->setToolTip(tr("The orrery-cli every array task runs: give its path on the cluster's nodes"));
    form->addRow(tr("orrery-cli on the cluster"), m_cli);
    m_partition = new QLineEdit;
    m_partition->setPlaceholderText(tr("the cluster's default"));
    form->addRow(tr("Partition"), m_partition);
    m_time = new QLineEdit;
    m_time->setPlaceholderText(tr("the partition's limit (e.g. 2:00:00)"));
    form->addRow(tr("Time limit per task"), m_time);
    m_arrayMax = new QSpinBox;
    m_arrayMax->setRange(0, 100000);
    m_arrayMax->setSpecialValueText(tr("no limit"));
    form->addRow(tr("Most tasks at once"), m_arrayMax);
    m_pointsPerTask = new QSpinBox;
    m_pointsPerTask->setRange(0, 10000000);
    m_pointsPerTask->setSpecialValueText(tr("automatic (at most 1,000 tasks)"));
    form->addRow(tr("Points per task"), m_pointsPerTask);
    m_cpusPerTask = new QSpinBox;
    m_cpusPerTask->setRange(1, 1024);
    form->addRow(tr("CPUs per task"), m_cpusPerTask);
    layout->addLayout(form);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Export"));
    layout->addWidget(buttons);
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (m_dir->text().trimmed().isEmpty()) {
            m_dir->setFocus();
            m_dir->setPlaceholderText(tr("choose a directory first"));
            return;
        }
        QSettings().setValue(QStringLiteral("sweeps/slurmDir"), m_dir->text());
        accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString d = QFileDialog::getExistingDirectory(this, tr("Submission directory"), m_dir->text());
        if (!d.isEmpty())
            m_dir->setText(d);
    });
}

sweep::SlurmSubmissionOptions SlurmExportDialog::options() const
{
    sweep::SlurmSubmissionOptions o;
    o.dir = m_dir->text().trimmed().toStdString();
    o.cli = m_cli->text().trimmed().toStdString();
    o.partition = m_partition->text().trimmed().toStdString();
    o.time = m_time->text().trimmed().toStdString();
    o.arrayMax = static_cast<std::size_t>(m_arrayMax->value());
    o.pointsPerTask = static_cast<std::size_t>(m_pointsPerTask->value());
    o.cpusPerTask = m_cpusPerTask->value();
    return o;
}

void SlurmExportDialog::setOptions(const sweep::SlurmSubmissionOptions& o)
{
    m_dir->setText(QString::fromStdString(o.dir));
    m_cli->setText(QString::fromStdString(o.cli));
    m_partition->setText(QString::fromStdString(o.partition));
    m_time->setText(QString::fromStdString(o.time));
    m_arrayMax->setValue(static_cast<int>(o.arrayMax));
    m_pointsPerTask->setValue(static_cast<int>(o.pointsPerTask));
    m_cpusPerTask->setValue(o.cpusPerTask);
}

} // namespace orrery::gui
