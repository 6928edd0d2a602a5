#pragma once

#include "io/scenario.h"
#include "sweep/slurm_submission.h"
#include "sweep/sweep_estimate.h"
#include "sweep/sweep_plan.h"
#include "sweeps/sweep_draft.h"

#include <QDialog>
#include <QString>
#include <QTimer>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

class QButtonGroup;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QRadioButton;
class QSpinBox;
class QTableWidget;
class QToolButton;
class QVBoxLayout;

namespace orrery::gui {

class JobRunner;

/**
 * Builds a sweep spec from the scenario open in the editor (docs/sweeps.md, "Building a spec in the GUI"): the
 * registered policies (checkable; variants with parameters as `NAME:KEY=VALUE` lines, checked by the registry),
 * seeds, cluster edits over the scenario's node groups and the catalog's GPU types, workload edits (arrival-rate
 * scale, job limit, estimate error), the full grid or explicit points. The point count and core's CPU estimate
 * (sweep::estimateCpu, as `orrery-cli sweep show`) follow every change on workers; errors name the axis and the
 * value as the CLI's do. Save As writes the spec core's reader takes; Run Locally and Export Slurm Submission hand
 * the spec to the Sweeps tab (setRunHandler, setExportHandler).
 */
class SweepBuilderDialog : public QDialog
{
    Q_OBJECT
public:
    /** `scenarioRef`: "default" or the base scenario's file (absolute), what the spec's "scenario" says. */
    SweepBuilderDialog(const io::Scenario& base, QString scenarioRef, JobRunner* runner, QWidget* parent = nullptr);
    ~SweepBuilderDialog() override;

    SweepDraft draft() const;
    /** The spec document as Save As writes it; throws orrery::Error for what the form cannot express. */
    nlohmann::json specDocument() const;
    /** The document read by core's spec reader (sweep::parseSweepSpec), labelled as the saved file or the sweep. */
    sweep::SweepSpec spec() const;
    /** Writes the spec (JSON, two-space indent) and remembers the file; false with `error` when it cannot. */
    bool saveTo(const QString& path, QString* error = nullptr);
    QString savedPath() const { return m_savedPath; }

    /** Adds a cluster edit row (the "Add cluster edit" button adds an empty one); returns its index. */
    int addClusterEdit(sweep::AxisKind kind, const QString& target, const QString& values, int gpusPerNode = 8);
    void setExplicitPoints(bool on);
    /** Adds a row to the explicit points: axis name -> a value's label ("(base)" or absent: not applied). */
    void addPoint(const std::map<std::string, std::string>& point);
    /** Replaces the explicit points by every point of the grid (at most 1,000). */
    void fillPointsFromGrid();

    QLineEdit* nameEdit() const { return m_name; }
    QLineEdit* descriptionEdit() const { return m_description; }
    QListWidget* policyList() const { return m_policies; }
    QPlainTextEdit* variantsEdit() const { return m_variants; }
    QLineEdit* seedsEdit() const { return m_seeds; }
    QLineEdit* arrivalEdit() const { return m_arrival; }
    QLineEdit* jobLimitEdit() const { return m_jobLimit; }
    QLineEdit* estimateErrorEdit() const { return m_estimateError; }
    QTableWidget* pointsTable() const { return m_points; }
    QLabel* previewLabel() const { return m_preview; }

    /** The resolved point count, or -1 while unknown or when the spec has an error. */
    int pointCount() const { return m_pointCount; }
    std::optional<double> estimatedCpuS() const { return m_estimateS; }
    /** The current error (the form's, the reader's or the resolution's), empty when none. */
    QString errorText() const { return m_error; }

    using RunHandler = std::function<void(const sweep::SweepSpec& spec, const QString& label)>;
    using ExportHandler =
        std::function<void(const sweep::SweepSpec& spec, const sweep::SlurmSubmissionOptions& options)>;
    void setRunHandler(RunHandler handler) { m_run = std::move(handler); }
    void setExportHandler(ExportHandler handler) { m_export = std::move(handler); }

public slots:
    /** Rebuilds the spec and starts resolving and estimating it (the form calls it 250 ms after a change). */
    void updatePreview();
    void saveInteractive();
    void exportSlurmInteractive();
    void runLocally();

signals:
    /** The point count (or the error) is known for the current form. */
    void previewUpdated();
    /** The CPU estimate is known for the current form. */
    void estimateUpdated();

private:
    struct EditRow;
    void changed();
    void removeEditRow(EditRow* row);
    void refillTargets(EditRow& row);
    void syncPointColumns(const std::vector<DraftAxis>& axes);
    void setPointCombo(int row, int column, const DraftAxis& axis, const std::string& label);
    QString label() const;
    void showPreview();

    io::Scenario m_base;
    QString m_scenarioRef;
    JobRunner* m_runner;
    QString m_savedPath;
    QTimer m_debounce;
    RunHandler m_run;
    ExportHandler m_export;

    QLineEdit* m_name;
    QLineEdit* m_description;
    QListWidget* m_policies;
    QPlainTextEdit* m_variants;
    QLineEdit* m_seeds;
    QVBoxLayout* m_editRows;
    std::vector<std::unique_ptr<EditRow>> m_edits;
    QLineEdit* m_arrival;
    QLineEdit* m_jobLimit;
    QLineEdit* m_estimateError;
    QRadioButton* m_grid;
    QRadioButton* m_explicit;
    QTableWidget* m_points;
    QPushButton* m_addPoint;
    QPushButton* m_removePoint;
    QPushButton* m_fillPoints;
    QLabel* m_preview;
    std::vector<DraftAxis> m_pointAxes; ///< the points table's columns

    int m_pointCount = -1;
    std::optional<double> m_estimateS;
    QString m_error;
    QString m_countText;
    QString m_estimateText;
    quint64 m_generation = 0;
};

} // namespace orrery::gui
