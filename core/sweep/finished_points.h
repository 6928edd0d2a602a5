#pragma once

#include "store/prepared_run.h"

#include <cstddef>
#include <mutex>
#include <vector>

namespace orrery::sweep {

/** A point simulated to its end, prepared for the store by the thread that simulated it (store::prepareRun). */
struct FinishedPoint
{
    std::size_t index = 0; ///< into SweepPlan::points
    store::PreparedRun run;
    /** The simulating thread that prepared it (sweep_runner.cpp's worker number), which also frees it. */
    std::size_t producer = 0;
};

/**
 * The hand-off between the sweep runner's simulating threads and the store (sweep_runner.cpp): a thread that
 * finishes a point queues it, and whichever thread takes its turn at the store's one connection takes what has
 * finished since the last write and stores it in one transaction, so that the store keeps up with several
 * simulations.
 *
 * Bounded by points, so that a stop stores at most that many more finished points, and by records (jobs,
 * intervals, samples, decisions, events of the queued runs, store::PreparedRun::records), so that simulations that
 * get ahead of the store write it rather than holding run after run in memory (a Philly run is ~21 MB stored). A
 * point is always queued when the queue is empty, however large. Nothing waits: a thread that finds the queue full
 * writes (or waits for the thread writing) instead.
 */
class FinishedPoints
{
public:
    FinishedPoints(std::size_t maxPoints, std::size_t maxRecords);

    /** Queues the point (moved from) unless the queue is full; false, the point untouched, when it is. */
    bool tryPush(FinishedPoint& point);
    /** Takes up to `most` of the queued points, oldest first; empty when none is queued. */
    std::vector<FinishedPoint> take(std::size_t most);
    std::size_t size() const;
    std::size_t maxPoints() const { return m_maxPoints; }

private:
    mutable std::mutex m_mutex;
    /** Oldest first. Its room is taken once, so that nothing under m_mutex allocates or frees: a deque's nodes,
     *  allocated by the thread that queued and freed by the one that took, waited for one another's malloc arena
     *  while holding the queue (docs/performance.md, "Sweeps"). */
    std::vector<FinishedPoint> m_points;
    std::size_t m_records = 0;
    std::size_t m_maxPoints;
    std::size_t m_maxRecords;
};

} // namespace orrery::sweep
