#pragma once

#include "store/prepared_run.h"

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <vector>

namespace orrery::sweep {

/** A point simulated to its end, prepared for the store by the thread that simulated it (store::prepareRun). */
struct FinishedPoint
{
    std::size_t index = 0; ///< into SweepPlan::points
    store::PreparedRun run;
};

/**
 * The hand-off between the sweep runner's simulating threads and its one store writer (sweep_runner.cpp): the
 * writer takes whatever has finished since its last write and stores it in one transaction, so the store keeps up
 * with several simulations and a point is simulated while the one before is written.
 *
 * Bounded by points, so that a stop stores at most that many more finished points, and by records (jobs,
 * intervals, samples, decisions, events of the queued runs, store::PreparedRun::records), so that a simulation that
 * gets ahead of the store waits rather than holding run after run in memory (a Philly run is ~21 MB stored). A point is
 * always taken when the queue is empty, however large.
 */
class FinishedPoints
{
public:
    FinishedPoints(std::size_t maxPoints, std::size_t maxRecords);

    /** Queues a point, waiting while the queue is full. */
    void push(FinishedPoint point);
    /** No more points will be pushed: take() returns what is left, then nothing. */
    void close();
    /** Waits for a point (or close()) and takes up to `most` of the queued points, oldest first; empty once closed
     *  and drained. */
    std::vector<FinishedPoint> take(std::size_t most);

private:
    std::mutex m_mutex;
    std::condition_variable m_changed;
    std::deque<FinishedPoint> m_points;
    std::size_t m_records = 0;
    std::size_t m_maxPoints;
    std::size_t m_maxRecords;
    bool m_closed = false;
};

} // namespace orrery::sweep
