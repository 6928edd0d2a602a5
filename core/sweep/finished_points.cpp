#include "sweep/finished_points.h"

namespace orrery::sweep {

FinishedPoints::FinishedPoints(std::size_t maxPoints, std::size_t maxRecords)
    : m_maxPoints(maxPoints), m_maxRecords(maxRecords)
{}

void FinishedPoints::push(FinishedPoint point)
{
    const std::size_t records = point.run.records;
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] {
        return m_points.empty() || (m_points.size() < m_maxPoints && m_records + records <= m_maxRecords);
    });
    m_records += records;
    m_points.push_back(std::move(point));
    lock.unlock();
    m_changed.notify_all();
}

void FinishedPoints::close()
{
    {
        std::lock_guard lock(m_mutex);
        m_closed = true;
    }
    m_changed.notify_all();
}

std::vector<FinishedPoint> FinishedPoints::take(std::size_t most)
{
    std::vector<FinishedPoint> out;
    std::unique_lock lock(m_mutex);
    m_changed.wait(lock, [&] { return !m_points.empty() || m_closed; });
    while (!m_points.empty() && out.size() < most) {
        m_records -= m_points.front().run.records;
        out.push_back(std::move(m_points.front()));
        m_points.pop_front();
    }
    lock.unlock();
    m_changed.notify_all();
    return out;
}

} // namespace orrery::sweep
