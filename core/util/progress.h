#pragma once

#include <functional>
#include <stop_token>

namespace orrery::util {

/**
 * How a long computation reports progress and learns it should stop. The GUI
 * maps it to its worker threads, the CLI to a progress bar and Ctrl-C; core
 * never sees either. Both members are optional.
 */
struct Progress
{
    /** Called with the fraction done in [0, 1]; may be called from a worker thread. */
    std::function<void(double fraction)> report;
    /** When stop is requested the computation ends early (a simulation returns a result marked cancelled). */
    std::stop_token stop;

    bool stopRequested() const { return stop.stop_requested(); }
    void operator()(double fraction) const
    {
        if (report)
            report(fraction);
    }
};

} // namespace orrery::util
