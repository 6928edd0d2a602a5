#include "results/run_library.h"

#include <algorithm>

namespace orrery::gui {

RunLibrary::RunLibrary(QObject* parent) : QObject(parent)
{}

const RunEntry* RunLibrary::find(int id) const
{
    for (const auto& r : m_runs)
        if (r.id == id)
            return &r;
    return nullptr;
}

int RunLibrary::add(RunEntry entry)
{
    entry.id = m_nextId++;
    const int id = entry.id;
    m_runs.push_back(std::move(entry));
    emit runAdded(id);
    setCurrent(id);
    return id;
}

void RunLibrary::setStoreId(int id, const QString& storePath, qint64 storeId)
{
    for (auto& r : m_runs)
        if (r.id == id) {
            r.storeId = storeId;
            r.storePath = storePath;
            emit runChanged(id);
        }
}

const RunEntry* RunLibrary::findStored(const QString& storePath, qint64 storeId) const
{
    for (const auto& r : m_runs)
        if (r.storeId == storeId && r.storePath == storePath)
            return &r;
    return nullptr;
}

void RunLibrary::remove(int id)
{
    const auto it = std::find_if(m_runs.begin(), m_runs.end(), [id](const RunEntry& r) { return r.id == id; });
    if (it == m_runs.end())
        return;
    m_runs.erase(it);
    emit runRemoved(id);
    if (m_compared.removeAll(id) > 0)
        emit comparedChanged();
    if (m_current == id)
        setCurrent(m_runs.isEmpty() ? -1 : m_runs.back().id);
}

void RunLibrary::setCurrent(int id)
{
    if (id == m_current)
        return;
    m_current = id;
    emit currentChanged(id);
}

QVector<const RunEntry*> RunLibrary::comparedRuns() const
{
    QVector<const RunEntry*> out;
    for (int id : m_compared)
        if (const RunEntry* r = find(id))
            out.push_back(r);
    return out;
}

void RunLibrary::setCompared(QVector<int> ids)
{
    if (ids == m_compared)
        return;
    m_compared = std::move(ids);
    emit comparedChanged();
}

} // namespace orrery::gui
