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
#include <optional>
#include <string>
#include <vector>

class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QTableWidget;

namespace orrery::gui {

class ClusterEditsSection;
class JobRunner;
class PolicyAxisSection;
class SeedAxisSection;
class SweepPointsSection;
class SweepPreview;
class WorkloadEditsSection;

/**
 * Builds a sweep spec from the scenario open in the editor (docs/sweeps.md, "Building a spec in the GUI"). The
 * form is its sections, each a widget of its own that writes its part of the SweepDraft: policies
 * (PolicyAxisSection), seeds (SeedAxisSection), cluster edits (ClusterEditsSection), workload edits
 * (WorkloadEditsSection), the grid or explicit points (SweepPointsSection); the dialog adds the name and
 * description, turns the draft into a spec and shows the SweepPreview of it (point count and core's CPU estimate,
 * following every change on workers; errors named as the CLI's). Save As writes the spec core's reader takes; Run
 * Locally and Export Slurm Submission hand the spec to the Sweeps tab (setRunHandler, setExportHandler).
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
    QListWidget* policyList() const;
    QPlainTextEdit* variantsEdit() const;
    QLineEdit* seedsEdit() const;
    QLineEdit* arrivalEdit() const;
    QLineEdit* jobLimitEdit() const;
    QLineEdit* estimateErrorEdit() const;
    QTableWidget* pointsTable() const;
    QLabel* previewLabel() const;

    PolicyAxisSection* policySection() const { return m_policies; }
    SeedAxisSection* seedSection() const { return m_seeds; }
    ClusterEditsSection* clusterEditsSection() const { return m_clusterEdits; }
    WorkloadEditsSection* workloadEditsSection() const { return m_workloadEdits; }
    SweepPointsSection* pointsSection() const { return m_points; }

    /** The resolved point count, or -1 while unknown or when the spec has an error. */
    int pointCount() const;
    std::optional<double> estimatedCpuS() const;
    /** The current error (the form's, the reader's or the resolution's), empty when none. */
    QString errorText() const;

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
    void changed();
    /** The draft's axes as the grid has them (the points table's columns). */
    std::vector<DraftAxis> gridAxes() const;
    /** Explicit points on: the table's columns follow the axes. */
    void pointsModeChanged(bool on);
    QString label() const;

    QString m_scenarioRef;
    QString m_savedPath;
    QTimer m_debounce;
    RunHandler m_run;
    ExportHandler m_export;

    QLineEdit* m_name;
    QLineEdit* m_description;
    PolicyAxisSection* m_policies;
    SeedAxisSection* m_seeds;
    ClusterEditsSection* m_clusterEdits;
    WorkloadEditsSection* m_workloadEdits;
    SweepPointsSection* m_points;
    SweepPreview* m_preview;
};

} // namespace orrery::gui
