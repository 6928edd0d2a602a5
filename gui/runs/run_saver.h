#pragma once

#include "async/job_runner.h"
#include "results/run_entry.h"
#include "store/run_store.h"

#include <QObject>

#include <mutex>

namespace orrery::gui {

class RunLibrary;

/**
 * Writes every run added to the library that is not in the SQLite store yet
 * (runs of the run manager are recorded while they run; this catches the
 * others, and retries those whose recording failed), on a worker (one store
 * connection per write: SQLite handles are not shared across threads), and
 * records the store id back in the library.
 */
class RunSaver : public QObject
{
    Q_OBJECT
public:
    RunSaver(RunLibrary* runs, JobRunner* runner, QString databasePath, QObject* parent = nullptr);
    QString databasePath() const { return m_path; }
    /** Later runs go to this file (File > Run Database...). */
    void setDatabasePath(const QString& path) { m_path = path; }
    /** Held by every worker that opens the store: two connections opening the file at once would find it locked. */
    static std::mutex& storeMutex();
    /** Opens (creating it and its directory when missing) the store for writing, holding storeMutex(). */
    static store::RunStore openForWriting(const std::string& path);
    /**
     * Opens the store as the GUI reads stores; call it holding storeMutex() until the store is closed: read-only (it
     * works on a read-only mount and on a damaged store, and leaves runs of dead writers for the next writer to mark),
     * except that a store of an older schema is migrated once first, as saving a run would (the CLI leaves that to the
     * next `simulate --db`; the GUI has no such step to point to). A foreign or damaged file is refused with the
     * store's own message naming it.
     */
    static store::RunStore openForReading(const std::string& path);

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
