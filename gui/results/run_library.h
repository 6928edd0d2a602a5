#pragma once

#include "results/run_entry.h"

#include <QObject>
#include <QVector>

namespace orrery::gui {

/**
 * The runs known to this window (finished here or loaded from the store), the
 * one shown in the single-run views, and the set being compared.
 */
class RunLibrary : public QObject
{
    Q_OBJECT
public:
    explicit RunLibrary(QObject* parent = nullptr);

    const QVector<RunEntry>& runs() const { return m_runs; }
    const RunEntry* find(int id) const;
    /** Adds a run (assigns its id) and makes it current. */
    int add(RunEntry entry);
    /** The run is row `storeId` of the store at `storePath`. */
    void setStoreId(int id, const QString& storePath, qint64 storeId);
    /** The run loaded from (or saved as) row `storeId` of the store at `storePath`; ids repeat across stores. */
    const RunEntry* findStored(const QString& storePath, qint64 storeId) const;
    void remove(int id);

    int currentId() const { return m_current; }
    const RunEntry* current() const { return find(m_current); }
    void setCurrent(int id);

    const QVector<int>& compared() const { return m_compared; }
    QVector<const RunEntry*> comparedRuns() const;
    void setCompared(QVector<int> ids);

signals:
    void runAdded(int id);
    void runRemoved(int id);
    void runChanged(int id);
    void currentChanged(int id);
    void comparedChanged();

private:
    QVector<RunEntry> m_runs;
    QVector<int> m_compared;
    int m_current = -1;
    int m_nextId = 1;
};

} // namespace orrery::gui
