// Shortest remaining service first over apps, as Themis ran it (../shared/specs/themis-crius.md A.8: minimise
// average JCT, fairness secondary; an approximation of Tiresias' Gittins index with known service): the app with
// the fewest serial GPU-seconds left takes one GPU at a time.

#include "sched/app_greedy.h"

namespace orrery::sched {

namespace {

class Srsf final : public AppGreedyPolicy
{
public:
    explicit Srsf(const PolicyParams& params) : AppGreedyPolicy(params.number("lease_s")) {}
    std::string name() const override { return "srsf"; }

protected:
    double key(const sim::View& v, int a, const Round&, const std::vector<int>&) const override
    {
        double service = 0;
        for (int j : liveJobs(v, a))
            service += serialLeftS(v, j);
        return service;
    }
    int bundleLimit() const override { return 1; }
};

} // namespace

std::unique_ptr<Policy> makeSrsf(const PolicyParams& params)
{
    return std::make_unique<Srsf>(params);
}

std::vector<ParamSpec> srsfParams()
{
    return {leaseParam()};
}

} // namespace orrery::sched
