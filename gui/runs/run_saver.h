#pragma once

#include "async/job_runner.h"
#include "results/run_entry.h"

#include <QObject>

namespace orrery::gui {

class RunLibrary;

/**
 * Writes every run added to the library into the SQLite store, on a worker
 * (one store connection per write: SQLite handles are not shared across
 * threads), and records the store id back in the library.
 */
class RunSaver : public QObject
{
    Q_OBJECT
public:
    RunSaver(RunLibrary* runs, JobRunner* runner, QString databasePath, QObject* parent = nullptr);
    QString databasePath() const { return m_path; }

signals:
    void saved(int runId, qint64 storeId);
    void failed(int runId, const QString& error);

private:
    void save(int runId);

    RunLibrary* m_runs;
    JobRunner* m_runner;
    QString m_path;
};

} // namespace orrery::gui
