// Gandiva as Themis ran it (../shared/specs/themis-crius.md A.8, "ideal efficiency"): apps report placement
// preferences and the app whose best bundle of the free GPUs places best goes first; jobs move to better placements
// at lease boundaries. No time-slicing or packing of jobs onto shared GPUs (Themis models neither for any scheme).

#include "sched/app_greedy.h"

namespace orrery::sched {

namespace {

class Gandiva final : public AppGreedyPolicy
{
public:
    explicit Gandiva(const PolicyParams& params) : AppGreedyPolicy(params.number("lease_s")) {}
    std::string name() const override { return "gandiva"; }

protected:
    // The highest placement score 1/S first: greedy on placement preference maximises the average preference.
    double key(const sim::View& v, int a, const Round& round, const std::vector<int>& bundle) const override
    {
        return -placementScore(v, a, round, bundle);
    }
};

} // namespace

std::unique_ptr<Policy> makeGandiva(const PolicyParams& params)
{
    return std::make_unique<Gandiva>(params);
}

std::vector<ParamSpec> gandivaParams()
{
    return {leaseParam()};
}

} // namespace orrery::sched
