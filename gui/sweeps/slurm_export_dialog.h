#pragma once

#include "sweep/slurm_submission.h"

#include <QDialog>

class QLineEdit;
class QSpinBox;

namespace orrery::gui {

/**
 * The options of "Export Slurm Submission...": what `orrery-cli sweep submit --slurm --no-submit` takes (directory,
 * partition, time limit, array limit, points and CPUs per task) and the orrery-cli the array tasks run on the
 * cluster. The files are written by core (sweep::writeSlurmSubmission), as the CLI writes them.
 */
class SlurmExportDialog : public QDialog
{
    Q_OBJECT
public:
    explicit SlurmExportDialog(QWidget* parent = nullptr);

    /** The options as filled in (specFile left empty: the caller knows the spec). */
    sweep::SlurmSubmissionOptions options() const;
    void setOptions(const sweep::SlurmSubmissionOptions& options);

    QLineEdit* directoryEdit() const { return m_dir; }
    QLineEdit* cliEdit() const { return m_cli; }

    /** orrery-cli beside this program, else the one on PATH, else the bare name (found on the cluster's PATH). */
    static QString defaultCliPath();

private:
    QLineEdit* m_dir;
    QLineEdit* m_cli;
    QLineEdit* m_partition;
    QLineEdit* m_time;
    QSpinBox* m_arrayMax;
    QSpinBox* m_pointsPerTask;
    QSpinBox* m_cpusPerTask;
};

} // namespace orrery::gui
