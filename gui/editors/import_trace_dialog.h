#pragma once

#include "io/trace_import.h"

#include <QDialog>

#include <memory>

class QChartView;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QSpinBox;

namespace orrery::gui {

class JobRunner;

/**
 * File > Import Trace: a trace file, its format, the cluster and a job limit in; a preview out, read in a worker
 * thread as `orrery-cli import` reads it (io::importTrace): jobs and rows skipped, the cluster, the GPU-demand
 * histogram, arrivals over time and the offered load against that cluster (warned when far below capacity),
 * or the reader's error naming the file, line and field. Import is offered only for a preview of the inputs as
 * they stand.
 */
class ImportTraceDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ImportTraceDialog(JobRunner* runner, QWidget* parent = nullptr);

    /** Fills the inputs (tests, and a file dropped on the window). */
    void setInputs(const QString& format, const QString& file, const QString& cluster = {}, int limit = 0);
    /** Reads the trace with the current inputs (in the background); previewReady or previewFailed follows. */
    void preview();
    /** The imported scenario once previewed and accepted; null otherwise. */
    std::shared_ptr<const io::TraceImport> result() const { return m_result; }

    QLabel* summaryLabel() const { return m_summary; }
    QLabel* errorLabel() const { return m_error; }
    QDialogButtonBox* buttons() const { return m_buttons; }

signals:
    void previewReady();
    void previewFailed(const QString& error);

private:
    io::TraceImportRequest request() const;
    void inputsChanged();
    void showPreview(std::shared_ptr<const io::TraceImport> imported);
    void showError(const QString& error);

    JobRunner* m_runner;
    QComboBox* m_format;
    QLineEdit* m_file;
    QLineEdit* m_cluster;
    QSpinBox* m_limit;
    QLabel* m_summary;
    QLabel* m_error;
    QChartView* m_demand;
    QChartView* m_arrivals;
    QDialogButtonBox* m_buttons;
    std::shared_ptr<const io::TraceImport> m_result;
    int m_generation = 0; ///< inputs' version: a preview of older inputs is dropped
};

} // namespace orrery::gui
