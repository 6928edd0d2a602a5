// SLAQ as Themis ran it (../shared/specs/themis-crius.md A.8, "ideal aggregate model quality"): each app reports
// the loss decrease its jobs would make during one lease on its best bundle of the free GPUs, per GPU of the
// bundle; the largest decrease goes first. Orrery's jobs carry no loss curves: every job follows the spec's
// l(k) = a / (k + b) + c, normalised as SLAQ normalises losses (1 at the start, 0 at the job's last iteration),
// which leaves one shape parameter, the curvature beta = (iterations of the job) / b.

#include "sched/app_greedy.h"

#include <algorithm>

namespace orrery::sched {

namespace {

class Slaq final : public AppGreedyPolicy
{
public:
    explicit Slaq(const PolicyParams& params)
        : AppGreedyPolicy(params.number("lease_s")), m_beta(params.number("loss_curvature"))
    {}
    std::string name() const override { return "slaq"; }

protected:
    double key(const sim::View& v, int a, const Round& round, const std::vector<int>& bundle) const override
    {
        const auto ua = static_cast<std::size_t>(a);
        std::vector<int> all = round.held[ua];
        all.insert(all.end(), round.won[ua].begin(), round.won[ua].end());
        const double before = lossDrop(v, a, all);
        all.insert(all.end(), bundle.begin(), bundle.end());
        return -(lossDrop(v, a, all) - before) / static_cast<double>(bundle.size());
    }

private:
    double m_beta;

    /** Normalised loss at progress p in [0, 1]: (1 / (1 + beta p) - 1 / (1 + beta)) / (1 - 1 / (1 + beta)). */
    double loss(double p) const
    {
        const double end = 1 / (1 + m_beta);
        return (1 / (1 + m_beta * std::clamp(p, 0.0, 1.0)) - end) / (1 - end);
    }

    /** The loss the app's jobs shed in one lease on `gpus`, as its scheduler would split them. */
    double lossDrop(const sim::View& v, int a, const std::vector<int>& gpus) const
    {
        if (gpus.empty())
            return 0;
        double drop = 0;
        for (const auto& [j, g] : split(v, a, gpus).jobGpus) {
            const double work = v.estimatedWork(j);
            if (work <= 0)
                continue;
            const double p = 1 - v.estimatedRemainingWork(j) / work;
            drop += loss(p) - loss(p + v.rateOn(j, g) * leaseS() / work);
        }
        return drop;
    }
};

} // namespace

std::unique_ptr<Policy> makeSlaq(const PolicyParams& params)
{
    return std::make_unique<Slaq>(params);
}

std::vector<ParamSpec> slaqParams()
{
    return {leaseParam(),
            {"loss_curvature",
             ParamType::Number,
             "10",
             1e-3,
             1e6,
             {},
             1,
             16,
             false,
             "beta of the normalised loss curve 1/(1 + beta p): 10 sheds half the loss in the first 10% of training"}};
}

} // namespace orrery::sched
