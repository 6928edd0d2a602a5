#pragma once

#include <chrono>

namespace orrery::opt {

/**
 * Wall seconds spent inside LP/MILP solves on the calling thread since it started. The engine reads it around a
 * policy's decision to record that decision's solver time (sim::DecisionTiming::solverS); a thread's count
 * is its own, so runs on parallel threads do not see each other's solves. Wall time is only ever reported,
 * never used to decide anything (solves are limited by counts, opt::Limits).
 */
double solverSecondsOnThisThread();

/** Adds the time from its construction to its destruction to this thread's solver seconds. */
class SolverTimer
{
public:
    SolverTimer() : m_start(std::chrono::steady_clock::now()) {}
    ~SolverTimer();
    SolverTimer(const SolverTimer&) = delete;
    SolverTimer& operator=(const SolverTimer&) = delete;
    /** Seconds since construction. */
    double elapsedS() const;

private:
    std::chrono::steady_clock::time_point m_start;
};

} // namespace orrery::opt
