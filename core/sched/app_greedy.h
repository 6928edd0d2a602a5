#pragma once

// The baselines as Themis (Mahajan et al., NSDI'20) implemented them (../shared/specs/themis-crius.md A.8): at every
// resource-available event each app with unmet demand reports a policy-specific key for the offered GPUs, and the
// best app takes its bundle; repeat while GPUs and apps that can use them remain. Leases, apps and the app scheduler
// are Themis' own (AppLeasePolicy), with the same lease length (choice 15). One policy file per key: gandiva.cpp,
// tiresias_app.cpp, slaq.cpp, srtf.cpp, srsf.cpp, optimus_app.cpp; docs/simulator.md, "Themis' baselines".

#include "sched/app_leases.h"

#include <optional>
#include <vector>

namespace orrery::sched {

class AppGreedyPolicy : public AppLeasePolicy
{
public:
    using AppLeasePolicy::AppLeasePolicy;

protected:
    /** App a's key for taking `bundle` (usable by it, from the free GPUs) on top of what it holds and has won;
     *  the smallest key goes first (ties: earlier arrival, then app order). */
    virtual double key(const sim::View& v, int a, const Round& round, const std::vector<int>& bundle) const = 0;
    /** GPUs an app asks for at once: 0 for its whole unmet demand (the default), SRSF 1. */
    virtual int bundleLimit() const { return 0; }
    /** Whether bundles follow locality (the tightest node, then rack, near the app's own GPUs) or, for a
     *  placement-unaware scheme, the free GPUs in id order. */
    virtual bool localityAware() const { return true; }

    void allocate(sim::Decision& d, Round& round) final;

    /** The GPUs app a's jobs run on now or hold under live leases (its "own" nodes for packing). */
    std::vector<int> ownGpus(const sim::View& v, int a, const Round& round) const;
    /** Placement score 1/S (the locality model's factor) of the worst-placed job that `bundle` would reach in the
     *  app's split of what it holds, has won and the bundle: Gandiva's placement preference. */
    double placementScore(const sim::View& v, int a, const Round& round, const std::vector<int>& bundle) const;

private:
    /** App a's bundle from `free`: n GPUs (bundleLimit, else its unmet demand; more when n GPUs are not enough for
     *  any of its jobs), then only those its jobs would use. Empty when it can use none of them. */
    std::vector<int> bundleFor(const sim::View& v, int a, const Round& round, const std::vector<int>& free) const;
    /** `count` GPUs of `free`: the tightest node that holds them (own nodes first), else rack, else packed. */
    std::vector<int> bestPlaced(const sim::View& v, const std::vector<int>& free, const std::set<int>& own,
                                int count) const;
};

} // namespace orrery::sched
