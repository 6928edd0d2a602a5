#include "sweep/finished_points.h"

namespace orrery::sweep {

FinishedPoints::FinishedPoints(std::size_t maxPoints, std::size_t maxRecords)
    : m_maxPoints(maxPoints), m_maxRecords(maxRecords)
{}

bool FinishedPoints::tryPush(FinishedPoint& point)
{
    const std::size_t records = point.run.records;
    std::lock_guard lock(m_mutex);
    if (!m_points.empty() && (m_points.size() >= m_maxPoints || m_records + records > m_maxRecords))
        return false;
    m_records += records;
    m_points.push_back(std::move(point));
    return true;
}

std::vector<FinishedPoint> FinishedPoints::take(std::size_t most)
{
    std::vector<FinishedPoint> out;
    std::lock_guard lock(m_mutex);
    while (!m_points.empty() && out.size() < most) {
        m_records -= m_points.front().run.records;
        out.push_back(std::move(m_points.front()));
        m_points.pop_front();
    }
    return out;
}

std::size_t FinishedPoints::size() const
{
    std::lock_guard lock(m_mutex);
    return m_points.size();
}

} // namespace orrery::sweep
