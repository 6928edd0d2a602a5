#pragma once

#include "io/scenario.h"

#include <QMainWindow>

class QAction;
class QComboBox;
class QDockWidget;
class QLabel;
class QMenu;
class QTabWidget;

namespace orrery::gui {

class ClusterAtTimeView;
class ClusterEditor;
class ComparisonView;
class GanttView;
class GpuCatalogView;
class JobDetailsPanel;
class JobRunner;
class MemoryPlannerPanel;
class ProfileController;
class ProvisioningPanel;
class RunHistoryPanel;
class RunLibrary;
class RunManagerPanel;
class RunSaver;
class ServingPanel;
class StoreBrowser;
class SweepsPanel;
class ScenarioDocument;
class UtilisationChart;
class WorkloadEditor;

/**
 * The top-level window: one scenario document, editors in docks around the
 * results views, file handling with recent files and an unsaved-change
 * prompt, and all long work through one JobRunner.
 */
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    ScenarioDocument* document() const { return m_document; }
    RunLibrary* runs() const { return m_runs; }
    JobRunner* jobRunner() const { return m_runner; }
    GanttView* gantt() const { return m_gantt; }
    ClusterAtTimeView* clusterAtTime() const { return m_clusterAtTime; }
    UtilisationChart* utilisation() const { return m_utilisation; }
    ComparisonView* comparison() const { return m_comparison; }
    ClusterEditor* clusterEditor() const { return m_clusterEditor; }
    WorkloadEditor* workloadEditor() const { return m_workloadEditor; }
    GpuCatalogView* catalogView() const { return m_catalogView; }
    RunHistoryPanel* runHistory() const { return m_history; }
    RunManagerPanel* runManager() const { return m_runManager; }
    RunSaver* runSaver() const { return m_saver; }
    MemoryPlannerPanel* memoryPlanner() const { return m_planner; }
    ProvisioningPanel* provisioning() const { return m_provisioning; }
    StoreBrowser* storeBrowser() const { return m_storeBrowser; }
    JobDetailsPanel* jobDetails() const { return m_jobDetails; }
    /** The Sweeps tab (docs/sweeps.md, "In the GUI"). */
    SweepsPanel* sweepsPanel() const { return m_sweeps; }
    /** The Serving tab (AlpaServe, docs/gui.md "The Serving tab"). */
    ServingPanel* servingPanel() const { return m_serving; }
    /** Tools > Profile this GPU... and Load Calibration... */
    ProfileController* profileController() const { return m_profile; }
    /** Reads and writes runs in this SQLite file from now on (kept in the settings). */
    void setDatabasePath(const QString& path);
    /** Writes the current run as Chrome-trace/Perfetto JSON. */
    bool exportChromeTraceTo(const QString& path, QString* error = nullptr);
    QTabWidget* resultTabs() const { return m_tabs; }
    /** Shows the job with this id in the job details as soon as a run is shown (`orrery --job`). */
    void showJobOnNextRun(const QString& id) { m_pendingJob = id; }

    /** Shows `scenario` (already validated) as a new, unmodified document. */
    void setScenario(io::Scenario scenario, const QString& path);
    /** Opens the last file, or the embedded default scenario on first start. */
    void openStartupScenario();
    bool openPath(const QString& path);
    bool saveTo(const QString& path);
    /** Writes the comparison (or the current run) as a PDF report; returns the page count, 0 on error. */
    int exportReport(const QString& path, QString* error = nullptr);

public slots:
    void newScenario();
    void newFromDefault();
    void openFile();
    void importTrace();
    bool save();
    bool saveAs();

protected:
    void closeEvent(QCloseEvent* event) override;

private:
    void createViews();
    void createDocks();
    void createActions();
    void updateTitle();
    void updateRecentMenu();
    void addRecent(const QString& path);
    bool maybeSave();
    void showCurrentRun();
    void exportReportInteractive();
    void exportCurrentView();
    void exportTableCsv();
    void exportChromeTrace();
    void openDatabase();
    void newDatabase();
    void readSettings();
    void writeSettings();

    ScenarioDocument* m_document;
    RunLibrary* m_runs;
    JobRunner* m_runner;
    QTabWidget* m_tabs = nullptr;
    GanttView* m_gantt = nullptr;
    QComboBox* m_colourBy = nullptr;
    ClusterAtTimeView* m_clusterAtTime = nullptr;
    UtilisationChart* m_utilisation = nullptr;
    ComparisonView* m_comparison = nullptr;
    ClusterEditor* m_clusterEditor = nullptr;
    GpuCatalogView* m_catalogView = nullptr;
    WorkloadEditor* m_workloadEditor = nullptr;
    RunHistoryPanel* m_history = nullptr;
    RunManagerPanel* m_runManager = nullptr;
    RunSaver* m_saver = nullptr;
    MemoryPlannerPanel* m_planner = nullptr;
    ProvisioningPanel* m_provisioning = nullptr;
    StoreBrowser* m_storeBrowser = nullptr;
    JobDetailsPanel* m_jobDetails = nullptr;
    QString m_pendingJob;
    SweepsPanel* m_sweeps = nullptr;
    ServingPanel* m_serving = nullptr;
    ProfileController* m_profile = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    QLabel* m_statusRuns = nullptr;
};

} // namespace orrery::gui
