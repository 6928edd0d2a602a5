#include "sweep/finished_points.h"

namespace orrery::sweep {

FinishedPoints::FinishedPoints(std::size_t maxPoints, std::size_t maxRecords)
    : m_maxPoints(maxPoints), m_maxRecords(maxRecords)
{}

std::size_t FinishedPoints::recordsOf(const sim::RunResult& r)
{
    return r.jobs.size() + r.intervals.size() + r.utilization.size() + r.decisions.size() + r.jobEvents.size() +
           r.rateSegments.size();
}

void FinishedPoints::push(FinishedPoint point)
{
    const std::size_t records = recordsOf(point.result);
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
        m_records -= recordsOf(m_points.front().result);
        out.push_back(std::move(m_points.front()));
        m_points.pop_front();
    }
    lock.unlock();
    m_changed.notify_all();
    return out;
}

} // namespace orrery::sweep
