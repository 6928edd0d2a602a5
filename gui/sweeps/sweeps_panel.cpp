#include "sweeps/sweeps_panel.h"

#include "async/job_runner.h"
#include "charts/chart_series.h"
#include "charts/tradeoff_chart.h"
#include "export/csv_export.h"
#include "runs/run_saver.h"
#include "store/run_store.h"
#include "sweeps/slurm_export_dialog.h"
#include "sweeps/sweep_builder_dialog.h"
#include "sweeps/sweep_heat_map_view.h"
#include "sweeps/sweep_line_chart.h"
#include "sweeps/sweep_list_model.h"
#include "sweeps/sweep_points_model.h"
#include "sweeps/sweep_run_controller.h"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QSettings>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>
#include <QVBoxLayout>

#include <algorithm>
#include <utility>

namespace orrery::gui {

namespace {

QComboBox* metricBox()
{
    auto* box = new QComboBox;
    for (const auto m : kSweepMetrics)
        box->addItem(sweepMetricName(m), static_cast<int>(m));
    return box;
}

SweepMetric metricOf(const QComboBox* box)
{
    return static_cast<SweepMetric>(box->currentData().toInt());
}

/** Refills an axis chooser, keeping its choice when the new sweep has that axis too. */
void setAxes(QComboBox* box, const std::vector<std::string>& axes, int fallback)
{
    const QString previous = box->currentText();
    const QSignalBlocker block(box);
    box->clear();
    for (const auto& a : axes)
        box->addItem(QString::fromStdString(a));
    const int keep = box->findText(previous);
    box->setCurrentIndex(keep >= 0 ? keep : std::min(fallback, box->count() - 1));
}

} // namespace

SweepsPanel::SweepsPanel(JobRunner* runner, QString databasePath, QWidget* parent)
    : QWidget(parent), m_runner(runner), m_path(std::move(databasePath)), m_list(new SweepListModel(this)),
      m_points(new SweepPointsModel(this)), m_proxy(new QSortFilterProxyModel(this)),
      m_controller(new SweepRunController(runner, this))
{
    m_proxy->setSourceModel(m_points);
    m_proxy->setSortRole(SweepPointsModel::SortRole);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_pathLabel = new QLabel;
    m_pathLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_pathLabel->setStyleSheet(QStringLiteral("QLabel { color: palette(placeholder-text); }"));
    layout->addWidget(m_pathLabel);

    auto* split = new QSplitter(Qt::Horizontal);
    // Left: the sweeps, what to do with them and the running sweep's progress.
    auto* left = new QWidget;
    auto* ll = new QVBoxLayout(left);
    ll->setContentsMargins(0, 0, 0, 0);
    m_sweepView = new QTableView;
    m_sweepView->setModel(m_list);
    m_sweepView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_sweepView->setSelectionMode(QAbstractItemView::SingleSelection);
    m_sweepView->verticalHeader()->hide();
    m_sweepView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_sweepView->horizontalHeader()->setStretchLastSection(true);
    ll->addWidget(m_sweepView, 1);
    auto* buttons = new QHBoxLayout;
    auto* refreshButton = new QPushButton(tr("Refresh"));
    auto* runButton = new QPushButton(tr("Run Sweep..."));
    auto* csvButton = new QPushButton(tr("Export CSV..."));
    buttons->addWidget(refreshButton);
    buttons->addWidget(runButton);
    buttons->addWidget(csvButton);
    buttons->addStretch();
    ll->addLayout(buttons);
    auto* specButtons = new QHBoxLayout;
    auto* buildButton = new QPushButton(tr("Build Sweep..."));
    buildButton->setToolTip(tr("Build a sweep spec from the scenario open in the editor"));
    auto* slurmButton = new QPushButton(tr("Export Slurm Submission..."));
    slurmButton->setToolTip(tr("Write a spec's points and an sbatch --array script for a Slurm cluster"));
    specButtons->addWidget(buildButton);
    specButtons->addWidget(slurmButton);
    specButtons->addStretch();
    ll->addLayout(specButtons);
    auto* progressRow = new QHBoxLayout;
    m_bar = new QProgressBar;
    m_bar->setRange(0, 1000);
    m_cancel = new QPushButton(tr("Cancel"));
    progressRow->addWidget(m_bar, 1);
    progressRow->addWidget(m_cancel);
    ll->addLayout(progressRow);
    m_runLabel = new QLabel;
    m_runLabel->setWordWrap(true);
    ll->addWidget(m_runLabel);
    m_message = new QLabel;
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    ll->addWidget(m_message);
    split->addWidget(left);

    // Right: the points, then the charts.
    auto* right = new QSplitter(Qt::Vertical);
    m_pointsView = new QTableView;
    m_pointsView->setModel(m_proxy);
    m_pointsView->setSortingEnabled(true);
    m_pointsView->sortByColumn(0, Qt::AscendingOrder);
    m_pointsView->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_pointsView->verticalHeader()->hide();
    m_pointsView->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_pointsView->setToolTip(tr("Double-click a point to open its run in the result views"));
    right->addWidget(m_pointsView);

    auto* charts = new QTabWidget;
    auto* heatPage = new QWidget;
    auto* hl = new QVBoxLayout(heatPage);
    hl->setContentsMargins(0, 4, 0, 0);
    auto* heatControls = new QHBoxLayout;
    m_heatMetric = metricBox();
    m_heatX = new QComboBox;
    m_heatY = new QComboBox;
    heatControls->addWidget(new QLabel(tr("Metric")));
    heatControls->addWidget(m_heatMetric);
    heatControls->addWidget(new QLabel(tr("x axis")));
    heatControls->addWidget(m_heatX);
    heatControls->addWidget(new QLabel(tr("y axis")));
    heatControls->addWidget(m_heatY);
    heatControls->addStretch();
    hl->addLayout(heatControls);
    m_heatMap = new SweepHeatMapView;
    hl->addWidget(m_heatMap, 1);
    charts->addTab(heatPage, tr("Heat map"));

    auto* linePage = new QWidget;
    auto* lineLayout = new QVBoxLayout(linePage);
    lineLayout->setContentsMargins(0, 4, 0, 0);
    auto* lineControls = new QHBoxLayout;
    m_lineMetric = metricBox();
    m_lineAxis = new QComboBox;
    lineControls->addWidget(new QLabel(tr("Metric")));
    lineControls->addWidget(m_lineMetric);
    lineControls->addWidget(new QLabel(tr("along")));
    lineControls->addWidget(m_lineAxis);
    lineControls->addStretch();
    lineLayout->addLayout(lineControls);
    m_lineChart = new SweepLineChart;
    lineLayout->addWidget(m_lineChart, 1);
    charts->addTab(linePage, tr("Lines per policy"));

    m_tradeoff = new TradeoffChart;
    m_tradeoff->setYAxisChoiceVisible(false);
    charts->addTab(m_tradeoff, tr("Cost vs mean JCT"));
    right->addWidget(charts);
    right->setStretchFactor(0, 2);
    right->setStretchFactor(1, 3);
    split->addWidget(right);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    split->setSizes({240, 760}); // the list needs little room; the points and charts take the rest
    layout->addWidget(split, 1);

    connect(refreshButton, &QPushButton::clicked, this, &SweepsPanel::refresh);
    connect(runButton, &QPushButton::clicked, this, &SweepsPanel::runSweepInteractive);
    connect(csvButton, &QPushButton::clicked, this, &SweepsPanel::exportCsvInteractive);
    connect(buildButton, &QPushButton::clicked, this, &SweepsPanel::buildSweepInteractive);
    connect(slurmButton, &QPushButton::clicked, this, &SweepsPanel::exportSlurmInteractive);
    connect(m_cancel, &QPushButton::clicked, m_controller, &SweepRunController::cancel);
    connect(m_sweepView->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& index) {
                if (index.isValid())
                    selectSweep(index.data(SweepListModel::NameRole).toString());
            });
    connect(m_pointsView, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        emit openRunRequested(index.data(SweepPointsModel::RunIdRole).toLongLong());
    });
    for (auto* box : {m_heatX, m_heatY, m_heatMetric})
        connect(box, &QComboBox::currentIndexChanged, this, &SweepsPanel::updateHeatMap);
    for (auto* box : {m_lineAxis, m_lineMetric})
        connect(box, &QComboBox::currentIndexChanged, this, &SweepsPanel::updateLines);

    connect(m_controller, &SweepRunController::preparedReady, this, [this] {
        setRunning(false, false);
        if (!std::exchange(m_ownPrepare, false))
            return;
        const QString summary = m_controller->summaryText();
        if (m_confirm) {
            if (m_controller->prepared()->toRun == 0) {
                QMessageBox::information(this, tr("Run Sweep"),
                                         summary + QStringLiteral("\n\n") +
                                             tr("Every point is stored: nothing to run."));
                return;
            }
            const auto answer =
                QMessageBox::question(this, tr("Run Sweep"), summary + QStringLiteral("\n\n") + tr("Run it now?"));
            if (answer != QMessageBox::Yes) {
                showMessage(tr("Sweep not run."));
                return;
            }
        }
        showMessage(summary);
        m_controller->start();
        setRunning(false, true);
    });
    connect(m_controller, &SweepRunController::prepareFailed, this, [this](const QString& error) {
        setRunning(false, false);
        if (!std::exchange(m_ownPrepare, false))
            return;
        showMessage(error, true);
        if (m_confirm)
            QMessageBox::warning(this, tr("Cannot run the sweep"), error);
    });
    connect(m_controller, &SweepRunController::progress, this,
            [this](int done, int total, double, const QString& text) {
                if (m_cancel->isHidden())
                    setRunning(false, true);
                m_bar->setValue(total > 0 ? done * 1000 / total : 1000);
                m_runLabel->setText(text);
            });
    connect(m_controller, &SweepRunController::finished, this, [this](const SweepRunController::Outcome& o) {
        setRunning(false, false);
        if (!o.error.isEmpty())
            showMessage(tr("The sweep stopped: %1").arg(o.error), true);
        else if (o.stopped)
            showMessage(tr("Sweep cancelled: %1 point(s) stored now, %2 left for the next run (run the spec again "
                           "to resume).")
                            .arg(o.ran)
                            .arg(o.notRun));
        else
            showMessage(tr("Sweep done: %1 point(s) run, %2 failed, %3 stored before.")
                            .arg(o.ran)
                            .arg(o.failed)
                            .arg(o.alreadyStored));
        refresh();
    });
    setRunning(false, false);
    setDatabasePath(m_path);
}

void SweepsPanel::setRunning(bool preparing, bool running)
{
    m_bar->setVisible(preparing || running);
    m_cancel->setVisible(preparing || running);
    m_runLabel->setVisible(preparing || running);
    if (preparing) {
        m_bar->setRange(0, 0); // resolving and measuring: no fraction to show
        m_runLabel->setText(tr("Resolving the spec and estimating the CPU time..."));
    } else {
        m_bar->setRange(0, 1000);
        m_bar->setValue(0);
        if (running)
            m_runLabel->setText(tr("starting"));
    }
}

void SweepsPanel::showMessage(const QString& text, bool error)
{
    m_message->setText(text);
    m_message->setStyleSheet(error ? QStringLiteral("QLabel { color: #c01c28; }") : QString());
}

void SweepsPanel::setDatabasePath(const QString& path)
{
    m_path = path;
    m_pathLabel->setText(tr("Store: %1").arg(path));
    m_pathLabel->setToolTip(path);
    m_current.clear();
    m_points->setTable({});
    refresh();
}

void SweepsPanel::refresh()
{
    if (!QFileInfo::exists(m_path)) {
        m_list->setSweeps({});
        emit listed(0);
        return;
    }
    const std::string path = m_path.toStdString();
    m_runner->start<std::vector<sweep::SweepOverview>>(
        QStringLiteral("sweeps-list"),
        [path](TaskContext&) {
            std::lock_guard lock(RunSaver::storeMutex());
            store::RunStore db = RunSaver::openForReading(path);
            return sweep::listSweeps(db);
        },
        this,
        [this](std::vector<sweep::SweepOverview> sweeps) {
            const int n = static_cast<int>(sweeps.size());
            const QString keep = m_current;
            m_list->setSweeps(std::move(sweeps));
            emit listed(n);
            // The selected sweep stays selected (and is read again: a run may have added points); else the first.
            int row = m_list->rowOf(keep);
            if (row < 0 && n > 0)
                row = 0;
            if (row >= 0) {
                const QSignalBlocker block(m_sweepView->selectionModel());
                m_sweepView->selectRow(row);
                selectSweep(m_list->index(row, 0).data(SweepListModel::NameRole).toString());
            }
        },
        [this](const QString& error) {
            m_list->setSweeps({});
            showMessage(error, true);
            emit failed(error);
        });
}

void SweepsPanel::selectSweep(const QString& name)
{
    m_current = name;
    const std::string path = m_path.toStdString();
    const std::string sweepName = name.toStdString();
    showMessage(tr("Reading the points of %1...").arg(name));
    m_runner->start<sweep::SweepTable>(
        QStringLiteral("sweeps-table"),
        [path, sweepName](TaskContext& ctx) {
            std::lock_guard lock(RunSaver::storeMutex());
            store::RunStore db = RunSaver::openForReading(path);
            return sweep::loadSweepTable(db, sweepName, ctx.stopToken(), [&ctx](std::size_t done, std::size_t total) {
                ctx.reportProgress(static_cast<double>(done) / static_cast<double>(total));
            });
        },
        this, [this](sweep::SweepTable table) { showTable(std::move(table)); },
        [this](const QString& error) {
            showMessage(error, true);
            emit failed(error);
        });
}

void SweepsPanel::showTable(sweep::SweepTable table)
{
    const QString name = QString::fromStdString(table.sweep);
    const std::size_t n = table.points.size();
    setAxes(m_heatX, table.axes, 0);
    setAxes(m_heatY, table.axes, 1);
    // Lines along the first axis that is not the policy: lines are per policy already.
    int lineDefault = 0;
    for (std::size_t i = 0; i < table.axes.size(); ++i)
        if (table.axes[i] != "policy") {
            lineDefault = static_cast<int>(i);
            break;
        }
    setAxes(m_lineAxis, table.axes, lineDefault);
    m_points->setTable(std::move(table));
    showMessage(tr("%1: %n point(s). Double-click one to open its run.", nullptr, static_cast<int>(n)).arg(name));
    updateHeatMap();
    updateLines();
    updateTradeoff();
    emit tableLoaded(name);
}

void SweepsPanel::updateHeatMap()
{
    const std::string x = m_heatX->currentText().toStdString();
    const std::string y = m_heatY->currentText().toStdString();
    const SweepMetric metric = metricOf(m_heatMetric);
    m_heatMap->setGrid(heatMapGrid(m_points->table(), x, y, metric), metric, m_heatX->currentText(),
                       m_heatY->currentText());
}

void SweepsPanel::updateLines()
{
    const SweepMetric metric = metricOf(m_lineMetric);
    m_lineChart->setLines(sweepLines(m_points->table(), m_lineAxis->currentText().toStdString(), metric), metric,
                          m_lineAxis->currentText());
}

void SweepsPanel::updateTradeoff()
{
    // Every completed point against its cost, as the comparison view draws runs; only the front is labelled
    // (with its run id), so that a sweep of hundreds of points stays readable.
    std::vector<TradeoffPoint> points;
    std::vector<qint64> runs;
    for (const auto& p : m_points->table().points) {
        const auto jct = sweepMetricValue(p, SweepMetric::MeanJct);
        const auto busy = sweepMetricValue(p, SweepMetric::Cost);
        if (!jct || !busy)
            continue;
        const double cost = *busy > 0 ? *busy : p.provisionedCostUsd.value_or(0.0);
        points.push_back({QString(), cost, *jct / 3600.0});
        runs.push_back(p.row.runId);
    }
    for (const int i : paretoFront(points, true))
        points[std::size_t(i)].label = QStringLiteral("#%1").arg(runs[std::size_t(i)]);
    m_tradeoff->setPoints(points, tr("cost (USD)"), tr("mean JCT (hours)"), true);
}

bool SweepsPanel::exportCsv(const QString& path, QString* error) const
{
    return writeCsv(*m_points, path, error);
}

void SweepsPanel::exportCsvInteractive()
{
    if (m_points->rowCount() == 0) {
        showMessage(tr("Select a sweep with stored points first."), true);
        return;
    }
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Sweep Points"),
                                                      QStringLiteral("%1.csv").arg(m_current), tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCsv(path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        showMessage(tr("Wrote %1").arg(path));
}

void SweepsPanel::runSpec(const QString& specPath, bool confirm)
{
    if (m_controller->isRunning() || m_controller->isPreparing()) {
        showMessage(tr("A sweep is running: cancel it or wait for it first."), true);
        return;
    }
    m_confirm = confirm;
    m_ownPrepare = true;
    setRunning(true, false);
    m_controller->prepare(specPath, m_path, true);
}

void SweepsPanel::runSpec(sweep::SweepSpec spec, const QString& label, bool confirm)
{
    if (m_controller->isRunning() || m_controller->isPreparing()) {
        showMessage(tr("A sweep is running: cancel it or wait for it first."), true);
        return;
    }
    m_confirm = confirm;
    m_ownPrepare = true;
    setRunning(true, false);
    m_controller->prepare(std::move(spec), label, m_path, true);
}

void SweepsPanel::exportSlurm(const QString& specPath, sweep::SlurmSubmissionOptions options, bool interactive)
{
    if (options.specFile.empty())
        options.specFile = specPath.toStdString();
    exportWith([path = specPath.toStdString()] { return sweep::loadSweepSpec(path); }, std::move(options), interactive);
}

void SweepsPanel::exportSlurm(sweep::SweepSpec spec, sweep::SlurmSubmissionOptions options, bool interactive)
{
    exportWith([spec = std::move(spec)] { return spec; }, std::move(options), interactive);
}

void SweepsPanel::exportWith(std::function<sweep::SweepSpec()> load, sweep::SlurmSubmissionOptions options,
                             bool interactive)
{
    showMessage(tr("Resolving the spec and writing the Slurm submission..."));
    m_runner->start<sweep::SlurmSubmission>(
        QStringLiteral("sweeps-slurm-export"),
        [load = std::move(load), options](TaskContext&) {
            // The same resolution and files as `orrery-cli sweep submit --slurm --no-submit`: spec errors name the
            // axis and value, and nothing is written before the options are checked.
            return sweep::writeSlurmSubmission(sweep::resolveSweep(load()), options);
        },
        this,
        [this, interactive](sweep::SlurmSubmission s) {
            const QString dir = QString::fromStdString(s.dir);
            const QString summary =
                tr("Wrote the Slurm submission of %1 points into %2: %3 array tasks of at most %4 points. Submit it "
                   "on the cluster with: sbatch --output=%2/logs/%A_%a.out %2/sweep.sbatch; follow it with "
                   "orrery-cli sweep status --dir %2 and merge the shards with orrery-cli sweep collect.")
                    .arg(s.points)
                    .arg(dir)
                    .arg(s.tasks)
                    .arg(s.pointsPerTask);
            showMessage(summary);
            if (interactive)
                QMessageBox::information(this, tr("Export Slurm Submission"), summary);
            emit slurmExported(dir, summary);
        },
        [this, interactive](const QString& error) {
            showMessage(error, true);
            if (interactive)
                QMessageBox::warning(this, tr("Cannot export the Slurm submission"), error);
            emit failed(error);
        });
}

void SweepsPanel::exportSlurmInteractive()
{
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(this, tr("Export Slurm Submission: the sweep spec"),
                                                      settings.value(QStringLiteral("sweeps/lastDir")).toString(),
                                                      tr("Sweep specs (*.json)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("sweeps/lastDir"), QFileInfo(path).absolutePath());
    SlurmExportDialog dialog(this);
    if (dialog.exec() != QDialog::Accepted)
        return;
    exportSlurm(path, dialog.options(), true);
}

SweepBuilderDialog* SweepsPanel::openBuilder(const io::Scenario& base, const QString& scenarioRef)
{
    auto* dialog = new SweepBuilderDialog(base, scenarioRef, m_runner, this);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setRunHandler([this](const sweep::SweepSpec& spec, const QString& label) { runSpec(spec, label, true); });
    dialog->setExportHandler([this](const sweep::SweepSpec& spec, const sweep::SlurmSubmissionOptions& options) {
        exportSlurm(spec, options, true);
    });
    return dialog;
}

void SweepsPanel::buildSweepInteractive()
{
    io::Scenario base;
    QString ref = QStringLiteral("default");
    if (m_scenarioProvider) {
        if (!m_scenarioProvider(base, ref))
            return;
    } else {
        base = io::defaultScenario();
    }
    auto* dialog = openBuilder(base, ref);
    dialog->show();
}

void SweepsPanel::runSweepInteractive()
{
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Run Sweep"), settings.value(QStringLiteral("sweeps/lastDir")).toString(), tr("Sweep specs (*.json)"));
    if (path.isEmpty())
        return;
    settings.setValue(QStringLiteral("sweeps/lastDir"), QFileInfo(path).absolutePath());
    runSpec(path, true);
}

} // namespace orrery::gui
