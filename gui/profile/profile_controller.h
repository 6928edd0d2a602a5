#pragma once

#include "async/job_runner.h"

#include <QObject>
#include <QString>

class QWidget;

namespace orrery::profile {
struct Calibration;
}

namespace orrery::gui {

class ScenarioDocument;

/**
 * "Profile this GPU..." and "Load Calibration...": measures the local GPU on a worker (progress and
 * Cancel in a progress dialog), shows the fitted curves, and applies a calibration to the process
 * catalog (GpuCatalog::calibrateBuiltin) only while no other worker runs, then refreshes the document's
 * catalog so that the catalog view shows the measured type.
 */
class ProfileController : public QObject
{
    Q_OBJECT
public:
    ProfileController(ScenarioDocument* document, JobRunner* runner, QWidget* window);

    /** Why this process cannot profile (no CUDA, no GPU), or empty when it can. */
    static QString unavailableReason();
    /** The action: a message box with the reason when no GPU can be profiled, else starts the profile. */
    void profileInteractive();
    /** The action: a file dialog, then loadFile(); errors in a message box. */
    void loadInteractive();
    /** Reads a calibration file and applies it; false with the error (file and JSON path) in `error`. */
    bool loadFile(const QString& path, QString* error = nullptr);
    /** Puts the calibrated type into this session's catalog; the refusal (workers running), or empty. */
    QString apply(const profile::Calibration& calibration);
    /** The last message shown to the user (status bar and message boxes), for tests. */
    QString lastMessage() const { return m_lastMessage; }
    /** Fewer shapes and sizes (ProbeOptions::quick): under a minute on a datacenter GPU. */
    void setQuick(bool quick) { m_quick = quick; }
    bool isQuick() const { return m_quick; }
    bool isProfiling() const { return m_task != 0 && m_runner->isRunning(m_task); }

signals:
    void statusMessage(const QString& text, int timeoutMs);
    void calibrationApplied(const QString& typeName);

private:
    void startProfile();
    void showResult(const profile::Calibration& calibration);
    void tell(const QString& text);

    ScenarioDocument* m_document;
    JobRunner* m_runner;
    QWidget* m_window;
    JobRunner::TaskId m_task = 0;
    bool m_quick = false;
    QString m_lastMessage;
};

} // namespace orrery::gui
