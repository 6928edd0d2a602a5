#pragma once

#include "sched/gavel_rounds.h"
#include "sim/policy.h"

#include <memory>

namespace orrery::sched {

/**
 * The shared shape of Gavel's max-min fairness policies: a round-based policy
 * whose allocation (`allocate`) is recomputed through Gavel's round mechanism.
 * `shuffleTypes` is Gavel's per-round type shuffle, used by the policies
 * without "Perf"; gavel_compat adds the 1,920 s reset interval and quirks.
 */
class MaxMinRoundPolicy : public sim::Policy
{
public:
    MaxMinRoundPolicy(bool shuffleTypes, GavelRounds::AllocateFn allocate)
        : m_shuffleTypes(shuffleTypes), m_allocate(std::move(allocate))
    {}

    double roundS(const sim::PolicyOptions& options) const override { return options.roundS; }
    void onArrival(const sim::View& view, int j) override { rounds(view).onArrival(view, j); }
    void onCompletion(const sim::View& view, int j) override { rounds(view).onCompletion(view, j); }
    void schedule(sim::Decision& decision) override { rounds(decision.view()).schedule(decision); }

private:
    GavelRounds& rounds(const sim::View& view)
    {
        if (!m_rounds) {
            const bool compat = view.options().gavelCompat;
            m_rounds = std::make_unique<GavelRounds>(
                GavelRounds::Config{compat ? 1920.0 : 0.0, false, m_shuffleTypes, compat}, m_allocate);
        }
        return *m_rounds;
    }

    bool m_shuffleTypes;
    GavelRounds::AllocateFn m_allocate;
    std::unique_ptr<GavelRounds> m_rounds;
};

} // namespace orrery::sched
