#include "main_window.h"

#include "async/job_runner.h"
#include "charts/cdf_chart.h"
#include "charts/tradeoff_chart.h"
#include "charts/utilisation_chart.h"
#include "charts/zoomable_chart_view.h"
#include "document/scenario_document.h"
#include "editors/cluster_editor.h"
#include "editors/gpu_catalog_view.h"
#include "editors/import_trace_dialog.h"
#include "editors/workload_editor.h"
#include "export/chart_export.h"
#include "export/csv_export.h"
#include "export/pdf_report.h"
#include "hardware/gpu_layout.h"
#include "help/help_dialogs.h"
#include "io/chrome_trace.h"
#include "models/metrics_table_model.h"
#include "planner/memory_planner_panel.h"
#include "profile/profile_controller.h"
#include "provision/provisioning_panel.h"
#include "results/cluster_at_time_view.h"
#include "results/comparison_view.h"
#include "results/job_details_panel.h"
#include "results/palette.h"
#include "results/run_library.h"
#include "runs/run_history_panel.h"
#include "runs/run_manager_panel.h"
#include "runs/run_saver.h"
#include "runs/store_browser.h"
#include "serving/serving_panel.h"
#include "store/default_path.h"
#include "sweeps/sweeps_panel.h"

#include "timeline/gantt_view.h"
#include <fstream>
#include <utility>

#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace orrery::gui {

static constexpr int kMaxRecent = 8;

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_document(new ScenarioDocument(this)), m_runs(new RunLibrary(this)),
      m_runner(new JobRunner(this))
{
    setObjectName(QStringLiteral("MainWindow"));
    const QString database =
        QSettings()
            .value(QStringLiteral("store/path"), QString::fromStdString(store::defaultDatabasePath()))
            .toString();
    m_saver = new RunSaver(m_runs, m_runner, database, this);
    createViews();
    createDocks();
    createActions();
    connect(m_document, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ScenarioDocument::filePathChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ScenarioDocument::nameChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ScenarioDocument::documentReset, this, &MainWindow::updateTitle);
    connect(m_runs, &RunLibrary::currentChanged, this, &MainWindow::showCurrentRun);
    connect(m_saver, &RunSaver::failed, this, [this](int, const QString& error) {
        statusBar()->showMessage(tr("Could not save the run to the store: %1").arg(error), 10000);
    });
    connect(m_runs, &RunLibrary::runAdded, this,
            [this] { m_statusRuns->setText(tr("%1 runs").arg(m_runs->runs().size())); });
    resize(1600, 1000);
    readSettings();
    updateTitle();
}

MainWindow::~MainWindow()
{
    m_runner->cancelAll();
    m_runner->waitForDone();
}

void MainWindow::createViews()
{
    m_tabs = new QTabWidget(this);
    m_tabs->setDocumentMode(true);

    auto* ganttPage = new QWidget;
    auto* gl = new QVBoxLayout(ganttPage);
    gl->setContentsMargins(0, 0, 0, 0);
    auto* ganttBar = new QHBoxLayout;
    ganttBar->setContentsMargins(6, 4, 6, 0);
    ganttBar->addWidget(new QLabel(tr("Colour by")));
    m_colourBy = new QComboBox;
    m_colourBy->addItem(tr("job"), static_cast<int>(GanttView::ColourBy::Job));
    m_colourBy->addItem(tr("user"), static_cast<int>(GanttView::ColourBy::User));
    m_colourBy->addItem(tr("model"), static_cast<int>(GanttView::ColourBy::Model));
    ganttBar->addWidget(m_colourBy);
    auto* hint = new QLabel(
        tr("Wheel: zoom - drag: pan - click: time cursor and job - Shift+drag: measure - double-click: fit"));
    hint->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    ganttBar->addSpacing(12);
    ganttBar->addWidget(hint);
    ganttBar->addStretch();
    gl->addLayout(ganttBar);
    m_gantt = new GanttView;
    gl->addWidget(m_gantt, 1);
    // What the colours mean, for whatever "colour by" shows.
    auto* legend = new QLabel;
    legend->setObjectName(QStringLiteral("GanttLegend"));
    legend->setWordWrap(true);
    legend->setTextFormat(Qt::RichText);
    gl->addWidget(legend);
    connect(m_gantt, &GanttView::coloursChanged, legend, [this, legend] {
        QStringList parts;
        for (const auto& e : m_gantt->colourLegend())
            parts << (e.colour.isValid() ? QStringLiteral("<span style='background-color:%1'>&nbsp;&nbsp;&nbsp;&nbsp;"
                                                          "</span>&nbsp;%2")
                                               .arg(e.colour.name(), e.label.toHtmlEscaped())
                                         : e.label.toHtmlEscaped());
        legend->setText(parts.join(QStringLiteral(" &nbsp; ")));
    });
    connect(m_colourBy, &QComboBox::currentIndexChanged, this,
            [this] { m_gantt->setColourBy(static_cast<GanttView::ColourBy>(m_colourBy->currentData().toInt())); });
    m_tabs->addTab(ganttPage, tr("Gantt"));

    m_clusterAtTime = new ClusterAtTimeView;
    m_tabs->addTab(m_clusterAtTime, tr("Cluster at time t"));
    m_utilisation = new UtilisationChart;
    m_tabs->addTab(m_utilisation, tr("Utilisation"));
    m_comparison = new ComparisonView(m_runs);
    m_tabs->addTab(m_comparison, tr("Compare runs"));
    m_planner = new MemoryPlannerPanel(m_document);
    m_tabs->addTab(m_planner, tr("Memory planner"));
    m_provisioning = new ProvisioningPanel(m_document, m_runner);
    m_tabs->addTab(m_provisioning, tr("Provisioning"));
    m_sweeps = new SweepsPanel(m_runner, m_saver->databasePath());
    m_tabs->addTab(m_sweeps, tr("Sweeps"));
    // The builder starts from the scenario in the editor; a spec names its base scenario's file, so unsaved changes
    // are saved first (the embedded default, unchanged and unsaved, is named "default").
    m_sweeps->setScenarioProvider([this](io::Scenario& scenario, QString& ref) {
        const bool isDefault = m_document->filePath().isEmpty() && io::scenarioToJsonText(m_document->scenario()) ==
                                                                       io::scenarioToJsonText(io::defaultScenario());
        if (!isDefault && (m_document->isModified() || m_document->filePath().isEmpty())) {
            const auto answer = QMessageBox::question(
                this, tr("Build Sweep"),
                tr("A sweep spec names its base scenario's file, and this scenario has unsaved changes. Save it "
                   "first?"),
                QMessageBox::Save | QMessageBox::Cancel, QMessageBox::Save);
            if (answer != QMessageBox::Save || !save() || m_document->filePath().isEmpty())
                return false;
        }
        scenario = m_document->scenario();
        ref = isDefault ? QStringLiteral("default") : QFileInfo(m_document->filePath()).absoluteFilePath();
        return true;
    });
    m_serving = new ServingPanel(m_runner, m_saver->databasePath());
    m_tabs->addTab(m_serving, tr("Serving"));
    setCentralWidget(m_tabs);
}

void MainWindow::createDocks()
{
    setDockNestingEnabled(true);
    auto dock = [this](const QString& title, const QString& name, QWidget* w, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        addDockWidget(area, d);
        return d;
    };
    m_clusterEditor = new ClusterEditor(m_document);
    m_catalogView = new GpuCatalogView(m_document);
    m_workloadEditor = new WorkloadEditor(m_document);
    auto* clusterDock = dock(tr("Cluster"), QStringLiteral("ClusterDock"), m_clusterEditor, Qt::LeftDockWidgetArea);
    auto* catalogDock = dock(tr("GPU catalog"), QStringLiteral("CatalogDock"), m_catalogView, Qt::LeftDockWidgetArea);
    auto* workloadDock = dock(tr("Workload"), QStringLiteral("WorkloadDock"), m_workloadEditor, Qt::LeftDockWidgetArea);
    tabifyDockWidget(clusterDock, catalogDock);
    tabifyDockWidget(catalogDock, workloadDock);
    clusterDock->raise();

    m_runManager = new RunManagerPanel(m_document, m_runs, m_runner, coreSimulateFunction());
    m_runManager->setStorePathProvider([this] { return m_saver->databasePath(); });
    m_history = new RunHistoryPanel(m_runs);
    auto* runDock = dock(tr("Run manager"), QStringLiteral("RunDock"), m_runManager, Qt::RightDockWidgetArea);
    auto* historyDock = dock(tr("Run history"), QStringLiteral("HistoryDock"), m_history, Qt::RightDockWidgetArea);
    splitDockWidget(runDock, historyDock, Qt::Vertical);
    m_jobDetails = new JobDetailsPanel;
    auto* jobDock = dock(tr("Job details"), QStringLiteral("JobDock"), m_jobDetails, Qt::RightDockWidgetArea);
    const auto showJob = [this, jobDock](int job) {
        m_jobDetails->showJob(job);
        jobDock->raise();
    };
    connect(m_gantt, &GanttView::jobClicked, this, showJob);
    connect(m_clusterAtTime, &ClusterAtTimeView::jobClicked, this, showJob);
    // One time cursor: the Gantt's, the utilisation chart's and cluster-at-t's slider move together.
    connect(m_gantt, &GanttView::cursorMoved, this, [this](double t) {
        m_clusterAtTime->showTime(t);
        m_utilisation->setCursorTime(t);
    });
    connect(m_clusterAtTime, &ClusterAtTimeView::timeChanged, this, [this](double t) {
        m_gantt->setCursorTime(t);
        m_utilisation->setCursorTime(t);
    });
    connect(m_utilisation, &UtilisationChart::timeClicked, this, [this](double t) {
        m_gantt->setCursorTime(t);
        m_clusterAtTime->showTime(t);
        m_utilisation->setCursorTime(t);
    });
    connect(m_jobDetails, &JobDetailsPanel::jobFound, this, [this](int job) {
        m_tabs->setCurrentWidget(m_tabs->widget(0));
        m_gantt->revealJob(job);
    });
    m_storeBrowser = new StoreBrowser(m_runs, m_runner, m_saver->databasePath());
    auto* storeDock = dock(tr("Stored runs"), QStringLiteral("StoreDock"), m_storeBrowser, Qt::RightDockWidgetArea);
    tabifyDockWidget(historyDock, storeDock);
    tabifyDockWidget(storeDock, jobDock);
    historyDock->raise();
    connect(m_saver, &RunSaver::saved, m_storeBrowser, &StoreBrowser::refresh);
    connect(m_storeBrowser, &StoreBrowser::loaded, this, [this](const QVector<int>& ids) {
        m_tabs->setCurrentWidget(ids.size() >= 2 ? static_cast<QWidget*>(m_comparison) : m_tabs->widget(0));
        statusBar()->showMessage(tr("Loaded %n stored run(s)", nullptr, static_cast<int>(ids.size())), 5000);
    });
    // A sweep's point opens like a stored run: it is one, in the same store.
    connect(m_sweeps, &SweepsPanel::openRunRequested, this, [this](qint64 id) { m_storeBrowser->load({id}); });
    resizeDocks({clusterDock, runDock}, {440, 400}, Qt::Horizontal);
    connect(m_history, &RunHistoryPanel::compareRequested, this, [this] { m_tabs->setCurrentWidget(m_comparison); });
    connect(m_runManager, &RunManagerPanel::runFailed, this, [this](const QString& policy, const QString& error) {
        statusBar()->showMessage(tr("Run %1 failed: %2").arg(policy, error), 10000);
    });
    connect(m_runManager, &RunManagerPanel::allFinished, this, [this] {
        // After a batch, compare everything run so far: what a first-time user wants to see.
        QVector<int> ids;
        for (const auto& r : m_runs->runs())
            ids.push_back(r.id);
        if (ids.size() >= 2)
            m_runs->setCompared(ids);
        statusBar()->showMessage(tr("All runs finished."), 5000);
    });
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&New Scenario"), QKeySequence::New, this, &MainWindow::newScenario);
    file->addAction(tr("New from &Default Scenario"), this, &MainWindow::newFromDefault);
    file->addAction(tr("&Open Scenario..."), QKeySequence::Open, this, &MainWindow::openFile);
    file->addAction(tr("&Import Trace..."), QKeySequence(Qt::CTRL | Qt::Key_I), this, &MainWindow::importTrace);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("&Save"), QKeySequence::Save, this, &MainWindow::save);
    file->addAction(tr("Save &As..."), QKeySequence::SaveAs, this, &MainWindow::saveAs);
    file->addSeparator();
    file->addAction(tr("Export &PDF Report..."), QKeySequence(Qt::CTRL | Qt::Key_P), this,
                    &MainWindow::exportReportInteractive);
    file->addAction(tr("Export Current View as PNG/SVG..."), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E), this,
                    &MainWindow::exportCurrentView);
    file->addAction(tr("Export Metrics Table as CSV..."), this, &MainWindow::exportTableCsv);
    file->addAction(tr("Export Current Run as Chrome Trace..."), this, &MainWindow::exportChromeTrace);
    file->addSeparator();
    file->addAction(tr("Open Run &Database..."), this, &MainWindow::openDatabase);
    file->addAction(tr("New Run Data&base..."), this, &MainWindow::newDatabase);
    file->addAction(tr("Run S&weep..."), this, [this] {
        m_tabs->setCurrentWidget(m_sweeps);
        m_sweeps->runSweepInteractive();
    });
    file->addAction(tr("&Build Sweep from Scenario..."), this, [this] {
        m_tabs->setCurrentWidget(m_sweeps);
        m_sweeps->buildSweepInteractive();
    });
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);

    QMenu* run = menuBar()->addMenu(tr("&Run"));
    run->addAction(tr("&Run Checked Policies"), QKeySequence(Qt::Key_F5), this,
                   [this] { m_runManager->runPolicies(m_runManager->checkedPolicies()); });
    run->addAction(tr("&Cancel All Runs"), QKeySequence(Qt::SHIFT | Qt::Key_F5), m_runner, &JobRunner::cancelAll);

    m_profile = new ProfileController(m_document, m_runner, this);
    connect(m_profile, &ProfileController::statusMessage, statusBar(), &QStatusBar::showMessage);
    QMenu* tools = menuBar()->addMenu(tr("&Tools"));
    QAction* profileGpu =
        tools->addAction(tr("&Profile this GPU..."), m_profile, &ProfileController::profileInteractive);
    profileGpu->setObjectName(QStringLiteral("ProfileGpuAction"));
    profileGpu->setStatusTip(tr("Measure the local GPU and calibrate its catalog type (needs CUDA)"));
    QAction* quickProfile = tools->addAction(tr("&Quick Profile (fewer shapes, under a minute)"));
    quickProfile->setObjectName(QStringLiteral("QuickProfileAction"));
    quickProfile->setCheckable(true);
    connect(quickProfile, &QAction::toggled, m_profile, &ProfileController::setQuick);
    tools->addSeparator();
    QAction* loadCalibration =
        tools->addAction(tr("&Load Calibration..."), m_profile, &ProfileController::loadInteractive);
    loadCalibration->setObjectName(QStringLiteral("LoadCalibrationAction"));
    loadCalibration->setStatusTip(tr("Apply a calibration file from orrery-cli profile to this session's catalog"));

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    for (auto* d : findChildren<QDockWidget*>())
        m_viewMenu->addAction(d->toggleViewAction());
    m_viewMenu->addSeparator();
    for (int i = 0; i < m_tabs->count(); ++i)
        m_viewMenu->addAction(m_tabs->tabText(i), QKeySequence(Qt::CTRL | static_cast<Qt::Key>(Qt::Key_1 + i)), this,
                              [this, i] { m_tabs->setCurrentIndex(i); });

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&User Guide"), QKeySequence::HelpContents, this,
                    [this] { createUserGuideDialog(this)->show(); });
    help->addAction(tr("&Keyboard Shortcuts"), this, [this] { createShortcutsDialog(menuBar(), this)->show(); });
    help->addSeparator();
    help->addAction(tr("&About Orrery"), this, [this] {
        QMessageBox::about(this, tr("About Orrery"),
                           tr("<b>Orrery %1</b><p>Plan, provision and simulate deep-learning training on heterogeneous "
                              "GPU clusters.</p>")
                               .arg(QApplication::applicationVersion()));
    });

    auto* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("MainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(tr("Open"), this, &MainWindow::openFile);
    bar->addAction(tr("Save"), this, &MainWindow::save);
    bar->addSeparator();
    bar->addAction(undo);
    bar->addAction(redo);
    bar->addSeparator();
    bar->addAction(tr("Run"), this, [this] { m_runManager->runPolicies(m_runManager->checkedPolicies()); });
    bar->addAction(tr("Export PDF"), this, &MainWindow::exportReportInteractive);

    m_statusRuns = new QLabel(tr("no runs"));
    statusBar()->addPermanentWidget(m_statusRuns);
    updateRecentMenu();
}

void MainWindow::setScenario(io::Scenario scenario, const QString& path)
{
    m_document->reset(std::move(scenario), path);
    statusBar()->showMessage(path.isEmpty() ? tr("Embedded default scenario") : tr("Opened %1").arg(path), 5000);
}

void MainWindow::openStartupScenario()
{
    QSettings settings;
    const QString last = settings.value(QStringLiteral("lastFile")).toString();
    if (!last.isEmpty() && QFileInfo::exists(last) && openPath(last))
        return;
    setScenario(io::defaultScenario(), QString());
}

bool MainWindow::openPath(const QString& path)
{
    QString error;
    if (!m_document->load(path, &error)) {
        QMessageBox::warning(this, tr("Cannot open scenario"), error);
        return false;
    }
    addRecent(path);
    statusBar()->showMessage(tr("Opened %1").arg(path), 5000);
    return true;
}

void MainWindow::newScenario()
{
    if (!maybeSave())
        return;
    // Empty: no nodes, no jobs (Add group asks for a GPU type; the default is File > New from Default).
    const io::Scenario base = io::defaultScenario();
    io::Scenario s;
    s.name = tr("Untitled").toStdString();
    s.cluster = hardware::Cluster({}, base.cluster.network(), base.cluster.catalog());
    s.policies = base.policies; // so that Run works once the cluster and the workload are there
    setScenario(std::move(s), QString());
}

void MainWindow::newFromDefault()
{
    if (!maybeSave())
        return;
    setScenario(io::defaultScenario(), QString());
}

void MainWindow::importTrace()
{
    if (!maybeSave())
        return;
    ImportTraceDialog dialog(m_runner, this);
    if (dialog.exec() != QDialog::Accepted || !dialog.result())
        return;
    // A new, unsaved scenario: Save asks where to put it.
    const auto& imported = *dialog.result();
    m_document->reset(imported.scenario, QString());
    statusBar()->showMessage(tr("Imported %1: %2 jobs (not saved yet)")
                                 .arg(QString::fromStdString(imported.scenario.name))
                                 .arg(imported.scenario.workload.jobs.size()),
                             8000);
}

void MainWindow::openFile()
{
    if (!maybeSave())
        return;
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Scenario"), settings.value(QStringLiteral("lastDir")).toString(), tr("Scenarios (*.json)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("lastDir"), QFileInfo(path).absolutePath());
    openPath(path);
}

bool MainWindow::save()
{
    return m_document->filePath().isEmpty() ? saveAs() : saveTo(m_document->filePath());
}

bool MainWindow::saveAs()
{
    QSettings settings;
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save Scenario"), settings.value(QStringLiteral("lastDir")).toString(), tr("Scenarios (*.json)"));
    return !path.isEmpty() && saveTo(path.endsWith(QStringLiteral(".json")) ? path : path + QStringLiteral(".json"));
}

bool MainWindow::saveTo(const QString& path)
{
    QString error;
    if (!m_document->save(path, &error)) {
        QMessageBox::warning(this, tr("Cannot save scenario"), error);
        return false;
    }
    addRecent(path);
    statusBar()->showMessage(tr("Saved %1").arg(path), 5000);
    return true;
}

bool MainWindow::maybeSave()
{
    if (!m_document->isModified())
        return true;
    const auto answer =
        QMessageBox::warning(this, tr("Unsaved changes"),
                             tr("The scenario \"%1\" has unsaved changes. Save them?").arg(m_document->displayName()),
                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Save)
        return save();
    return answer == QMessageBox::Discard;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!maybeSave()) {
        event->ignore();
        return;
    }
    writeSettings();
    m_runner->cancelAll();
    event->accept();
}

void MainWindow::updateTitle()
{
    setWindowTitle(tr("%1[*] - Orrery").arg(m_document->displayName()));
    setWindowModified(m_document->isModified());
}

void MainWindow::addRecent(const QString& path)
{
    QSettings settings;
    QStringList recent = settings.value(QStringLiteral("recentFiles")).toStringList();
    const QString abs = QFileInfo(path).absoluteFilePath();
    recent.removeAll(abs);
    recent.prepend(abs);
    while (recent.size() > kMaxRecent)
        recent.removeLast();
    settings.setValue(QStringLiteral("recentFiles"), recent);
    settings.setValue(QStringLiteral("lastFile"), abs);
    updateRecentMenu();
}

void MainWindow::updateRecentMenu()
{
    m_recentMenu->clear();
    const QStringList recent = QSettings().value(QStringLiteral("recentFiles")).toStringList();
    for (const QString& path : recent)
        m_recentMenu
            ->addAction(QFileInfo(path).fileName(), this,
                        [this, path] {
                            if (maybeSave())
                                openPath(path);
                        })
            ->setToolTip(path);
    m_recentMenu->setEnabled(!recent.isEmpty());
}

void MainWindow::showCurrentRun()
{
    const RunEntry* run = m_runs->current();
    m_gantt->setRun(run);
    m_jobDetails->setRun(run);
    m_clusterAtTime->setRun(run);
    m_utilisation->setRun(run);
    if (run && run->result && !m_pendingJob.isEmpty()) {
        m_jobDetails->findJob(std::exchange(m_pendingJob, QString()));
        m_jobDetails->parentWidget()->raise(); // its dock
    }
}

void MainWindow::setDatabasePath(const QString& path)
{
    m_saver->setDatabasePath(path);
    m_storeBrowser->setDatabasePath(path);
    m_sweeps->setDatabasePath(path);
    m_serving->setDatabasePath(path);
    QSettings().setValue(QStringLiteral("store/path"), path);
    statusBar()->showMessage(tr("Runs are stored in %1").arg(path), 5000);
}

void MainWindow::openDatabase()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Run Database"), m_saver->databasePath(),
                                                      tr("SQLite run store (*.sqlite *.db);;All files (*)"));
    if (!path.isEmpty())
        setDatabasePath(path);
}

void MainWindow::newDatabase()
{
    // The store creates the file on the first run; an existing file is refused here rather than silently reused.
    const QString path =
        QFileDialog::getSaveFileName(this, tr("New Run Database"), QString(), tr("SQLite run store (*.sqlite)"),
                                     nullptr, QFileDialog::DontConfirmOverwrite);
    if (path.isEmpty())
        return;
    if (QFileInfo::exists(path)) {
        QMessageBox::warning(this, tr("New Run Database"),
                             tr("%1 already exists. Use File > Open Run Database to store runs in it.").arg(path));
        return;
    }
    setDatabasePath(path);
}

void MainWindow::readSettings()
{
    QSettings settings;
    restoreGeometry(settings.value(QStringLiteral("window/geometry")).toByteArray());
    restoreState(settings.value(QStringLiteral("window/state")).toByteArray());
    m_colourBy->setCurrentIndex(settings.value(QStringLiteral("gantt/colourBy"), 0).toInt());
}

void MainWindow::writeSettings()
{
    QSettings settings;
    settings.setValue(QStringLiteral("window/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("window/state"), saveState());
    settings.setValue(QStringLiteral("gantt/colourBy"), m_colourBy->currentIndex());
}

} // namespace orrery::gui
