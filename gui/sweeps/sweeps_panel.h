#pragma once

#include "io/scenario.h"
#include "sweep/slurm_submission.h"
#include "sweep/sweep_spec.h"
#include "sweep/sweep_table.h"

#include <QWidget>

#include <functional>

class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSortFilterProxyModel;
class QTableView;

namespace orrery::gui {

class JobRunner;
class SweepHeatMapView;
class SweepLineChart;
class SweepListModel;
class SweepPointsModel;
class SweepBuilderDialog;
class SweepRunController;
class TradeoffChart;

/**
 * The Sweeps tab: the sweeps of the open run store (name, points done / total, axes); the selected sweep's points
 * as a sortable table (axis values, then core's metrics of each point's run; CSV export); a heat map of a metric
 * over two axes, lines of a metric along one axis per policy and the cost / mean JCT scatter with its Pareto front.
 * Double-clicking a point asks for its run to be opened (openRunRequested). File > Run Sweep... runs a spec into the
 * store on a worker with progress and Cancel. Every store read runs on a JobRunner worker.
 */
class SweepsPanel : public QWidget
{
    Q_OBJECT
public:
    SweepsPanel(JobRunner* runner, QString databasePath, QWidget* parent = nullptr);

    QString databasePath() const { return m_path; }
    void setDatabasePath(const QString& path);
    QString currentSweep() const { return m_current; }
    /** Loads the points of `sweep` (from the worker; tableLoaded says when). */
    void selectSweep(const QString& sweep);

    SweepListModel* sweepList() const { return m_list; }
    SweepPointsModel* points() const { return m_points; }
    QTableView* sweepView() const { return m_sweepView; }
    QTableView* pointsView() const { return m_pointsView; }
    SweepHeatMapView* heatMap() const { return m_heatMap; }
    SweepLineChart* lineChart() const { return m_lineChart; }
    TradeoffChart* tradeoff() const { return m_tradeoff; }
    SweepRunController* runController() const { return m_controller; }
    QComboBox* heatMapX() const { return m_heatX; }
    QComboBox* heatMapY() const { return m_heatY; }
    QComboBox* heatMapMetric() const { return m_heatMetric; }
    QComboBox* lineAxis() const { return m_lineAxis; }
    QComboBox* lineMetric() const { return m_lineMetric; }
    QLabel* messageLabel() const { return m_message; }

    bool exportCsv(const QString& path, QString* error = nullptr) const;
    /** Prepares `specPath` against the open store; with `confirm`, asks before running it (a dialog with the point
     *  count and the CPU estimate) and shows a spec error in a message box too. */
    void runSpec(const QString& specPath, bool confirm = true);
    /** The same for a spec built in memory (the builder's Run Locally); `label` names it. */
    void runSpec(sweep::SweepSpec spec, const QString& label, bool confirm = true);

    /** Writes the Slurm submission of a spec file (core's sweep::writeSlurmSubmission, as `orrery-cli sweep submit
     *  --slurm --no-submit`) on a worker; slurmExported or failed says how it went, and with `interactive` a message
     *  box too. */
    void exportSlurm(const QString& specPath, sweep::SlurmSubmissionOptions options, bool interactive = true);
    /** The same for a spec built in memory. */
    void exportSlurm(sweep::SweepSpec spec, sweep::SlurmSubmissionOptions options, bool interactive = true);

    /** Where the builder's base scenario comes from: false when there is none to use (the user declined to save
     *  it, say). Without a provider the builder starts from the embedded default scenario. */
    using ScenarioProvider = std::function<bool(io::Scenario& scenario, QString& scenarioRef)>;
    void setScenarioProvider(ScenarioProvider provider) { m_scenarioProvider = std::move(provider); }
    /** A sweep builder (non-modal, deleted on close) over `base`, its Run Locally and Export wired to this tab. */
    SweepBuilderDialog* openBuilder(const io::Scenario& base, const QString& scenarioRef);

public slots:
    void refresh();
    /** File > Run Sweep...: picks a spec file, then runSpec(). */
    void runSweepInteractive();
    void exportCsvInteractive();
    /** Build Sweep...: a builder over the provider's scenario. */
    void buildSweepInteractive();
    /** Export Slurm Submission...: picks a spec file, then the options. */
    void exportSlurmInteractive();

signals:
    void listed(int count);
    void tableLoaded(const QString& sweep);
    void openRunRequested(qint64 storeId);
    void failed(const QString& error);
    /** A Slurm submission was written into `dir` (`summary`: points, tasks and how to submit it). */
    void slurmExported(const QString& dir, const QString& summary);

private:
    void showTable(sweep::SweepTable table);
    void updateHeatMap();
    void updateLines();
    void updateTradeoff();
    void showMessage(const QString& text, bool error = false);
    void setRunning(bool preparing, bool running);
    void exportWith(std::function<sweep::SweepSpec()> load, sweep::SlurmSubmissionOptions options, bool interactive);

    JobRunner* m_runner;
    ScenarioProvider m_scenarioProvider;
    QString m_path;
    QString m_current;
    bool m_confirm = true;
    bool m_ownPrepare = false; ///< the controller's preparation was started by runSpec (not by a caller of it)
    SweepListModel* m_list;
    SweepPointsModel* m_points;
    QSortFilterProxyModel* m_proxy;
    SweepRunController* m_controller;
    QLabel* m_pathLabel;
    QTableView* m_sweepView;
    QTableView* m_pointsView;
    QLabel* m_message;
    QProgressBar* m_bar;
    QLabel* m_runLabel;
    QPushButton* m_cancel;
    QComboBox* m_heatX;
    QComboBox* m_heatY;
    QComboBox* m_heatMetric;
    QComboBox* m_lineAxis;
    QComboBox* m_lineMetric;
    SweepHeatMapView* m_heatMap;
    SweepLineChart* m_lineChart;
    TradeoffChart* m_tradeoff;
};

} // namespace orrery::gui
