#pragma once

#include "sim/view.h"

#include <cmath>
#include <vector>

namespace orrery::sched {

/**
 * For policies that decide every `intervalS` seconds by wake-ups (Pollux's and Sia's 60 s rounds): true when now
 * is a round's tick; otherwise asks to be woken at the next tick and returns false. Under gavel_compat the
 * engine's own rounds are the schedule (it ignores wake-ups), so every decision is a tick.
 */
inline bool atRoundTick(sim::Decision& decision, double intervalS)
{
    const auto& view = decision.view();
    const double now = view.nowS();
    const double tick = std::round(now / intervalS) * intervalS;
    if (view.options().gavelCompat || std::abs(now - tick) <= 1e-6)
        return true;
    decision.wakeAt(std::ceil(now / intervalS) * intervalS);
    return false;
}

/** The jobs a round reallocates: running, then queued. */
inline std::vector<int> activeJobs(const sim::View& view)
{
    std::vector<int> active(view.running().begin(), view.running().end());
    active.insert(active.end(), view.queued().begin(), view.queued().end());
    return active;
}

} // namespace orrery::sched
