#include "sweep/finished_points.h"

#include <algorithm>

namespace orrery::sweep {

namespace {
/** Room reserved for queued points at most: beyond it (a queue of thousands) the vector grows as it must. */
constexpr std::size_t kMaxReserved = 1024;
} // namespace

FinishedPoints::FinishedPoints(std::size_t maxPoints, std::size_t maxRecords)
    : m_maxPoints(maxPoints), m_maxRecords(maxRecords)
{
    m_points.reserve(std::min(std::max<std::size_t>(maxPoints, 1), kMaxReserved));
}

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
    out.reserve(std::min(most, kMaxReserved)); // outside the lock
    std::lock_guard lock(m_mutex);
    const std::size_t n = std::min(most, m_points.size());
    for (std::size_t i = 0; i < n; ++i) {
        m_records -= m_points[i].run.records;
        out.push_back(std::move(m_points[i]));
    }
    // What is moved from holds no memory, so erasing frees nothing; the rest moves to the front.
    m_points.erase(m_points.begin(), m_points.begin() + static_cast<std::ptrdiff_t>(n));
    return out;
}

std::size_t FinishedPoints::size() const
{
    std::lock_guard lock(m_mutex);
    return m_points.size();
}

} // namespace orrery::sweep
