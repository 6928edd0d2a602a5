#include "profile/profile_controller.h"

#include "document/scenario_document.h"
#include "hardware/gpu_catalog.h"
#include "profile/calibration.h"
#include "profile/calibration_dialog.h"
#include "profile/device_probe.h"

#include <QFileDialog>
#include <QMessageBox>
#include <QProgressDialog>

namespace orrery::gui {

ProfileController::ProfileController(ScenarioDocument* document, JobRunner* runner, QWidget* window)
    : QObject(window), m_document(document), m_runner(runner), m_window(window)
{}

QString ProfileController::unavailableReason()
{
    try {
        const profile::Availability a = profile::availability();
        if (a.usable())
            return {};
        return QString::fromStdString(a.reason.empty() ? std::string("no GPU can be profiled") : a.reason);
    } catch (const std::exception& e) {
        return QString::fromStdString(e.what());
    }
}

void ProfileController::tell(const QString& text)
{
    m_lastMessage = text;
    emit statusMessage(text, 10000);
}

void ProfileController::profileInteractive()
{
    if (const QString reason = unavailableReason(); !reason.isEmpty()) {
        tell(tr("Profile this GPU: %1").arg(reason));
        QMessageBox::information(m_window, tr("Profile this GPU"),
                                 tr("Profiling is not available here:\n%1\n\nProfiling needs a build with CUDA and "
                                    "a CUDA-capable GPU. A calibration made elsewhere (orrery-cli profile) can be "
                                    "loaded with Tools > Load Calibration...")
                                     .arg(reason));
        return;
    }
    if (isProfiling()) {
        tell(tr("A profile is already running."));
        return;
    }
    startProfile();
}

void ProfileController::startProfile()
{
    auto* progress = new QProgressDialog(tr("Profiling the GPU..."), tr("Cancel"), 0, 1000, m_window);
    progress->setObjectName(QStringLiteral("ProfileProgress"));
    progress->setWindowTitle(tr("Profile this GPU"));
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(0);
    progress->setAutoClose(false);
    progress->setAutoReset(false);
    progress->setValue(0);
    std::function<profile::Calibration(TaskContext&)> work = [quick = m_quick](TaskContext& context) {
        profile::ProbeOptions options;
        options.quick = quick;
        options.progress = [&context](double fraction, std::string_view step) {
            context.reportProgress(fraction, std::string(step));
            return !context.isCancelled();
        };
        const profile::Measurements m = profile::measureDevice(options);
        return profile::calibrate(m, hardware::GpuCatalog::builtin());
    };
    m_task = m_runner->start<profile::Calibration>(
        QStringLiteral("profile"), std::move(work), this,
        [this](profile::Calibration c) {
            tell(tr("Profiled %1.").arg(QString::fromStdString(c.measurements.device.name)));
            showResult(c);
        },
        [this](const QString& error) {
            tell(tr("Profiling failed: %1").arg(error));
            QMessageBox::warning(m_window, tr("Profile this GPU"), tr("Profiling failed: %1").arg(error));
        });
    const JobRunner::TaskId id = m_task;
    connect(m_runner, &JobRunner::taskProgress, progress,
            [progress, id](JobRunner::TaskId task, double fraction, double, const QString& message) {
                if (task != id)
                    return;
                progress->setValue(static_cast<int>(fraction * 1000));
                if (!message.isEmpty())
                    progress->setLabelText(tr("Profiling the GPU: %1").arg(message));
            });
    connect(progress, &QProgressDialog::canceled, m_runner, [this, id] {
        m_runner->cancel(id);
        tell(tr("Cancelling the profile..."));
    });
    const auto done = [this, progress, id](JobRunner::TaskId task) {
        if (task == id)
            progress->deleteLater();
    };
    connect(m_runner, &JobRunner::taskFinished, progress, done);
    connect(m_runner, &JobRunner::taskFailed, progress, done);
    connect(m_runner, &JobRunner::taskCancelled, progress, [this, done](JobRunner::TaskId task) {
        done(task);
        if (task == m_task)
            tell(tr("Profile cancelled."));
    });
}

void ProfileController::showResult(const profile::Calibration& calibration)
{
    auto* dialog = new CalibrationDialog(
        calibration, [this](const profile::Calibration& c) { return apply(c); }, m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->show();
}

QString ProfileController::apply(const profile::Calibration& calibration)
{
    if (const int running = m_runner->runningCount(); running > 0) {
        const QString refusal = tr("%n job(s) still running (simulations, estimates, provisioning): wait until they "
                                   "finish or cancel them, then apply the calibration.",
                                   nullptr, running);
        tell(refusal);
        return refusal;
    }
    const QString name = QString::fromStdString(calibration.type.name);
    try {
        hardware::GpuCatalog::calibrateBuiltin(calibration.type);
        m_document->refreshCatalog();
    } catch (const std::exception& e) {
        const QString error =
            tr("Could not apply the calibration of %1: %2").arg(name, QString::fromStdString(e.what()));
        tell(error);
        return error;
    }
    tell(tr("GPU type %1 now uses measured curves in this session.").arg(name));
    emit calibrationApplied(name);
    return {};
}

bool ProfileController::loadFile(const QString& path, QString* error)
{
    QString problem;
    try {
        problem = apply(profile::loadCalibration(path.toStdString()));
    } catch (const std::exception& e) {
        problem = QString::fromStdString(e.what());
        tell(tr("Cannot load the calibration: %1").arg(problem));
    }
    if (error)
        *error = problem;
    return problem.isEmpty();
}

void ProfileController::loadInteractive()
{
    const QString path =
        QFileDialog::getOpenFileName(m_window, tr("Load Calibration"), QString(), tr("Calibration (*.json)"));
    if (path.isEmpty())
        return;
    QString error;
    if (!loadFile(path, &error))
        QMessageBox::warning(m_window, tr("Cannot load calibration"), tr("%1:\n\n%2").arg(path, error));
}

} // namespace orrery::gui
