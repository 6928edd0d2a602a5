#include "serving/serving_panel.h"

#include "async/job_runner.h"
#include "io/serving_csv.h"
#include "runs/run_saver.h"
#include "serving/serving_inputs.h"
#include "store/run_store.h"
#include "store/serving_records.h"

#include <QFileDialog>
#include <QListWidget>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>

// The Serving tab's runs in the run database (save, list, load) and its CSV export.

namespace orrery::gui {

namespace {

QString storedLabel(const store::ServingRunRow& r)
{
    return QStringLiteral("#%1  %2  %3 on %4 x %5  %6%")
        .arg(r.id)
        .arg(QString::fromStdString(serve::methodTitle(r.method)),
             QString::fromStdString(r.modelSet.empty() ? r.models : r.modelSet))
        .arg(r.gpus)
        .arg(QString::fromStdString(r.gpuType))
        .arg(100 * r.attainment, 0, 'f', 2);
}

} // namespace

void ServingPanel::saveToDatabase()
{
    if (!m_run || m_run->id != 0)
        return;
    const std::string path = m_path.toStdString();
    serve::ServingRun run = *m_run;
    m_runner->start<serve::ServingRun>(
        QString(),
        [path, run](TaskContext&) mutable {
            std::optional<store::RunStore> db(RunSaver::openForWriting(path));
            std::lock_guard lock(RunSaver::storeMutex()); // closing checkpoints the file: under the lock too
            store::saveServingRun(db->connection(), run);
            db.reset();
            return run;
        },
        this,
        [this, shown = m_shown](serve::ServingRun stored) {
            // The shown run is the stored one now (its id, uid and time), unless another was shown meanwhile.
            if (m_shown == shown)
                showRun(stored);
            showMessage(tr("Saved as serving run %1 in %2.").arg(stored.id).arg(m_path));
            m_showLatestStored = false;
            refreshStored();
            emit saved(stored.id);
        },
        [this](const QString& error) {
            showMessage(error, true);
            emit failed(error);
        });
}

void ServingPanel::refreshStored()
{
    const std::string path = m_path.toStdString();
    m_runner->start<std::vector<store::ServingRunRow>>(
        taskKey(QStringLiteral("serving-list")),
        [path](TaskContext&) {
            if (path.empty() || !std::filesystem::exists(path))
                return std::vector<store::ServingRunRow>();
            std::lock_guard lock(RunSaver::storeMutex());
            store::RunStore db = RunSaver::openForReading(path);
            return store::listServingRuns(db.connection());
        },
        this,
        [this](std::vector<store::ServingRunRow> rows) {
            m_stored->clear();
            for (const auto& r : rows) {
                auto* item = new QListWidgetItem(storedLabel(r), m_stored);
                item->setData(Qt::UserRole, static_cast<qint64>(r.id));
                item->setToolTip(QString::fromStdString(r.models) + QLatin1Char('\n') +
                                 QString::fromStdString(r.createdAt));
            }
            // On opening a database, its newest serving run is shown, as the store browser lists what is there.
            if (m_showLatestStored && !m_run && !rows.empty() && !isBusy())
                loadStored(rows.back().id);
            m_showLatestStored = false;
            emit storedListed(static_cast<int>(rows.size()));
        },
        [this](const QString& error) {
            m_stored->clear();
            showMessage(error, true);
            emit storedListed(0);
        });
}

void ServingPanel::loadStored(qint64 id)
{
    const std::string path = m_path.toStdString();
    m_runner->start<serve::ServingRun>(
        taskKey(QStringLiteral("serving-load")),
        [path, id](TaskContext&) {
            std::lock_guard lock(RunSaver::storeMutex());
            store::RunStore db = RunSaver::openForReading(path);
            return store::loadServingRun(db.connection(), id);
        },
        this,
        [this](serve::ServingRun run) {
            m_inputs->setSpec(run.spec);
            showRun(std::move(run));
            m_views->setCurrentIndex(0);
            showMessage(tr("Loaded serving run %1.").arg(m_run->id));
            emit runShown();
        },
        [this](const QString& error) {
            showMessage(error, true);
            emit failed(error);
        });
}

bool ServingPanel::exportCsv(const QString& path, ServingCsv what, QString* error) const
{
    const auto fail = [error](const QString& text) {
        if (error)
            *error = text;
        return false;
    };
    if (what == ServingCsv::Curves ? !m_curves : !m_run)
        return fail(what == ServingCsv::Curves ? tr("No curves to export: compute them first (Curves).")
                                               : tr("No run to export: place the models or load a stored run."));
    std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
    if (!out)
        return fail(tr("Cannot write %1").arg(path));
    const std::vector<serve::ServingRun> runs =
        m_run ? std::vector<serve::ServingRun>{*m_run} : std::vector<serve::ServingRun>{};
    switch (what) {
    case ServingCsv::Run:
        io::writeServingRunsCsv(out, runs);
        break;
    case ServingCsv::Groups:
        io::writeServingGroupsCsv(out, runs);
        break;
    case ServingCsv::Models:
        io::writeServingModelsCsv(out, runs);
        break;
    case ServingCsv::Cdf:
        io::writeServingCdfCsv(out, runs);
        break;
    case ServingCsv::Curves:
        io::writeAttainmentCurvesCsv(out, *m_curves);
        break;
    }
    out.close();
    if (!out)
        return fail(tr("Writing %1 failed").arg(path));
    return true;
}

void ServingPanel::exportCsvInteractive(ServingCsv what)
{
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Export CSV"), QString(), tr("CSV files (*.csv);;All files (*)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!exportCsv(path, what, &error))
        QMessageBox::warning(this, tr("Export CSV"), error);
    else
        showMessage(tr("Wrote %1").arg(path));
}

} // namespace orrery::gui
