#include "main_window.h"

#include "io/error.h"

#include <QApplication>
#include <QFileDialog>
#include <QHeaderView>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QStatusBar>
#include <QTreeWidget>

namespace orrery::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    m_overview = new QTreeWidget(this);
    m_overview->setColumnCount(2);
    m_overview->setHeaderLabels({tr("Item"), tr("Value")});
    m_overview->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    setCentralWidget(m_overview);
    createActions();
    resize(1100, 720);
}

void MainWindow::createActions()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open Scenario..."), QKeySequence::Open, this, &MainWindow::openFile);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, qApp, &QApplication::closeAllWindows);
}

void MainWindow::openFile()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Open Scenario"), QString(), tr("Scenarios (*.json)"));
    if (!path.isEmpty())
        openPath(path);
}

bool MainWindow::openPath(const QString& path)
{
    try {
        setScenario(io::loadScenario(path.toStdString()), path);
        return true;
    } catch (const Error& e) {
        QMessageBox::warning(this, tr("Cannot open scenario"), QString::fromStdString(e.what()));
        return false;
    }
}

void MainWindow::setScenario(io::Scenario scenario, const QString& path)
{
    m_scenario = std::move(scenario);
    m_path = path;
    refresh();
}

void MainWindow::refresh()
{
    setWindowTitle(tr("%1 - Orrery").arg(QString::fromStdString(m_scenario.name)));
    m_overview->clear();
    auto* cluster = new QTreeWidgetItem(m_overview, {tr("Cluster"), tr("%1 GPUs on %2 nodes, $%3/h")
                                                                        .arg(m_scenario.cluster.totalGpus())
                                                                        .arg(m_scenario.cluster.nodes().size())
                                                                        .arg(m_scenario.cluster.priceUsdPerHour(), 0, 'f', 2)});
    for (const auto& g : m_scenario.cluster.groups())
        new QTreeWidgetItem(cluster, {QString::fromStdString(g.name),
                                      tr("%1 x %2 %3").arg(g.count).arg(g.gpusPerNode).arg(QString::fromStdString(
                                          m_scenario.cluster.catalog().at(g.gpuType).display))});
    auto* jobs = new QTreeWidgetItem(m_overview, {tr("Workload"), tr("%1 jobs").arg(m_scenario.workload.jobs.size())});
    for (const auto& j : m_scenario.workload.jobs) {
        const QString what = j.kind == workload::JobKind::Serverless
                                 ? tr("%1, batch %2, %3 iterations").arg(QString::fromStdString(j.model)).arg(j.config.globalBatch).arg(j.iterations)
                                 : tr("%1 GPUs").arg(j.gpus);
        new QTreeWidgetItem(jobs, {QString::fromStdString(j.id), tr("t=%1 s: %2").arg(j.arrivalS).arg(what)});
    }
    cluster->setExpanded(true);
    statusBar()->showMessage(m_path.isEmpty() ? tr("Embedded default scenario") : m_path);
}

} // namespace orrery::gui
