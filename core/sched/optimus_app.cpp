// Optimus over apps, as Themis ran it (../shared/specs/themis-crius.md A.8: ideal aggregate throughput): each app
// reports its throughput scaling, its throughput with one more GPU of the free ones over its throughput without it,
// and the highest scaling takes that GPU; one GPU at a time. Throughput is the sum of its jobs' rates in the app
// scheduler's split (`View::rateOn`: min(n, demand) / S(G) under Themis' model, whatever the engine's model is).
// Pollux's job-level Optimus (remaining-time gain, no leases) is `optimus` (optimus.cpp).

#include "sched/app_greedy.h"

namespace orrery::sched {

namespace {

class OptimusApp final : public AppGreedyPolicy
{
public:
    explicit OptimusApp(const PolicyParams& params) : AppGreedyPolicy(params.number("lease_s")) {}
    std::string name() const override { return "optimus_app"; }

protected:
    double key(const sim::View& v, int a, const Round& round, const std::vector<int>& bundle) const override
    {
        const auto ua = static_cast<std::size_t>(a);
        std::vector<int> all = round.held[ua];
        all.insert(all.end(), round.won[ua].begin(), round.won[ua].end());
        const double without = throughput(v, a, all);
        all.insert(all.end(), bundle.begin(), bundle.end());
        const double with = throughput(v, a, all);
        // An app that runs nothing yet scales infinitely: every app's first GPU comes before anyone's second.
        return without > 0 ? -(with / without) : -kInf;
    }
    int bundleLimit() const override { return 1; }

private:
    double throughput(const sim::View& v, int a, const std::vector<int>& gpus) const
    {
        double sum = 0;
        for (const auto& [j, g] : split(v, a, gpus).jobGpus)
            sum += v.rateOn(j, g);
        return sum;
    }
};

} // namespace

std::unique_ptr<Policy> makeOptimusApp(const PolicyParams& params)
{
    return std::make_unique<OptimusApp>(params);
}

std::vector<ParamSpec> optimusAppParams()
{
    return {leaseParam()};
}

} // namespace orrery::sched
