#include "sched/gavel_lp.h"
#include "sched/max_min_round_policy.h"
#include "sched/registry.h"

namespace orrery::sched {

namespace {

/**
 * Gavel's Isolated policy (policies/isolated.py): no optimisation, every active job gets an equal 1/m slice
 * of each GPU type (divided by its demand, scaled so that its time adds up to at most 1). It is the baseline
 * finish-time fairness compares against, and, as a policy, a static equal split run through Gavel's rounds.
 * Its name has no "Perf", so Gavel shuffles the type order each round.
 */
class Isolated : public MaxMinRoundPolicy
{
public:
    Isolated() : MaxMinRoundPolicy(true, &isolatedAllocation) {}
    std::string name() const override { return "isolated"; }
};

} // namespace

std::unique_ptr<Policy> makeIsolated()
{
    return std::make_unique<Isolated>();
}

} // namespace orrery::sched
