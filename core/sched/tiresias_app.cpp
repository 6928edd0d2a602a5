// Tiresias at app level as Themis ran it (../shared/specs/themis-crius.md A.8, "ideal fairness"): least attained
// service first, the service of an app being the GPU-seconds all its jobs have held; placement-unaware. Orrery's
// `tiresias` is the job-level discretised 2D-LAS of Tiresias' paper; this is Themis' reading (plain LAS over apps,
// with Themis' leases instead of queue thresholds and preemption).

#include "sched/app_greedy.h"

namespace orrery::sched {

namespace {

class TiresiasApp final : public AppGreedyPolicy
{
public:
    explicit TiresiasApp(const PolicyParams& params) : AppGreedyPolicy(params.number("lease_s")) {}
    std::string name() const override { return "tiresias_app"; }

protected:
    double key(const sim::View& v, int a, const Round&, const std::vector<int>&) const override
    {
        double service = 0;
        for (int j : app(a).jobs)
            if (v.status(j) != sim::JobStatus::Future)
                service += v.attainedGpuS(j);
        return service;
    }
    bool localityAware() const override { return false; }
};

} // namespace

std::unique_ptr<Policy> makeTiresiasApp(const PolicyParams& params)
{
    return std::make_unique<TiresiasApp>(params);
}

std::vector<ParamSpec> tiresiasAppParams()
{
    return {leaseParam()};
}

} // namespace orrery::sched
