// MainWindow's exports: the PDF report, the current view as PNG/SVG, the metrics table as CSV, the current run as
// a Chrome trace (the window itself is in main_window.cpp).
#include "main_window.h"

#include "charts/cdf_chart.h"
#include "charts/tradeoff_chart.h"
#include "charts/utilisation_chart.h"
#include "charts/zoomable_chart_view.h"
#include "document/scenario_document.h"
#include "export/chart_export.h"
#include "export/csv_export.h"
#include "export/pdf_report.h"
#include "hardware/gpu_layout.h"
#include "io/chrome_trace.h"
#include "models/metrics_table_model.h"
#include "results/comparison_view.h"
#include "results/palette.h"
#include "results/run_library.h"

#include <QDateTime>
#include <QFileDialog>
#include <QMessageBox>
#include <QStatusBar>
#include <QTabWidget>

#include <fstream>

namespace orrery::gui {

int MainWindow::exportReport(const QString& path, QString* error)
{
    // From the runs' data, not the views: the report lays out at page size and nothing on screen is resized.
    ReportData data;
    const auto& s = m_document->scenario();
    data.title = tr("Orrery report: %1").arg(QString::fromStdString(s.name));
    data.generated = QDateTime::currentDateTime();
    data.clusterUsdPerHour = s.cluster.priceUsdPerHour();
    data.scenarioLines << tr("Cluster: %1 (%2 GPUs, %3 per hour)")
                              .arg(QString::fromStdString(s.cluster.summary()))
                              .arg(s.cluster.totalGpus())
                              .arg(formatCost(s.cluster.priceUsdPerHour()))
                       << tr("Workload: %1 inline jobs%2")
                              .arg(s.workload.jobs.size())
                              .arg(s.workload.trace ? tr(" + trace") : QString())
                       << tr("Options: seed %1, round %2 s, restart penalty %3 s")
                              .arg(s.options.seed)
                              .arg(s.options.roundS)
                              .arg(s.options.restartPenaltyS);
    if (!s.description.empty())
        data.scenarioLines << QString::fromStdString(s.description);
    auto compared = m_runs->comparedRuns();
    if (compared.isEmpty() && m_runs->current())
        compared.push_back(m_runs->current());
    for (const RunEntry* r : compared)
        if (r && r->result)
            data.runs.push_back(*r);
    if (const RunEntry* current = m_runs->current(); current && current->result)
        data.focus = *current;
    return writePdfReport(data, path, error);
}

void MainWindow::exportReportInteractive()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export PDF Report"),
                                                      QStringLiteral("orrery-report.pdf"), tr("PDF (*.pdf)"));
    if (path.isEmpty())
        return;
    QString error;
    const int pages = exportReport(path, &error);
    if (pages == 0)
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Wrote %1 (%2 pages)").arg(path).arg(pages), 8000);
}

void MainWindow::exportCurrentView()
{
    QWidget* target = m_tabs->currentWidget();
    if (target == m_utilisation)
        target = m_utilisation->chartView();
    const QString path = QFileDialog::getSaveFileName(this, tr("Export View"), QStringLiteral("orrery-view.png"),
                                                      tr("PNG image (*.png);;SVG drawing (*.svg)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportWidget(target, path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

void MainWindow::exportTableCsv()
{
    const QString path = QFileDialog::getSaveFileName(this, tr("Export Metrics"), QStringLiteral("orrery-metrics.csv"),
                                                      tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!writeCsv(*m_comparison->metrics(), path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
}

bool MainWindow::exportChromeTraceTo(const QString& path, QString* error)
{
    const RunEntry* run = m_runs->current();
    if (!run || !run->result || !run->cluster) {
        if (error)
            *error = tr("no run to export");
        return false;
    }
    std::ofstream out(path.toStdString(), std::ios::binary);
    io::writeChromeTrace(out, *run->result, hardware::gpuLayoutOf(*run->cluster));
    out.close();
    if (!out) {
        if (error)
            *error = tr("cannot write %1").arg(path);
        return false;
    }
    return true;
}

void MainWindow::exportChromeTrace()
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export Chrome Trace"), QStringLiteral("orrery-run.json"),
                                     tr("Chrome trace / Perfetto JSON (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportChromeTraceTo(path, &error))
        QMessageBox::warning(this, tr("Export failed"), error);
    else
        statusBar()->showMessage(tr("Wrote %1: open it in ui.perfetto.dev or chrome://tracing").arg(path), 8000);
}

} // namespace orrery::gui
