#include "opt/solver_clock.h"

namespace orrery::opt {

namespace {
thread_local double t_solverSeconds = 0;
} // namespace

double solverSecondsOnThisThread()
{
    return t_solverSeconds;
}

double SolverTimer::elapsedS() const
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
}

SolverTimer::~SolverTimer()
{
    t_solverSeconds += elapsedS();
}

} // namespace orrery::opt
