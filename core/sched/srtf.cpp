// Shortest remaining time first over apps, as Themis ran it (../shared/specs/themis-crius.md A.8: minimise average
// JCT, efficiency secondary): each app reports its remaining time were it given its best bundle of the free GPUs,
// the app scheduler's estimate (so a better placement shortens it); shortest first.

#include "sched/app_greedy.h"

namespace orrery::sched {

namespace {

class Srtf final : public AppGreedyPolicy
{
public:
    explicit Srtf(const PolicyParams& params) : AppGreedyPolicy(params.number("lease_s")) {}
    std::string name() const override { return "srtf"; }

protected:
    double key(const sim::View& v, int a, const Round& round, const std::vector<int>& bundle) const override
    {
        const auto ua = static_cast<std::size_t>(a);
        std::vector<int> all = round.held[ua];
        all.insert(all.end(), round.won[ua].begin(), round.won[ua].end());
        all.insert(all.end(), bundle.begin(), bundle.end());
        return split(v, a, all).remainingS;
    }
};

} // namespace

std::unique_ptr<Policy> makeSrtf(const PolicyParams& params)
{
    return std::make_unique<Srtf>(params);
}

std::vector<ParamSpec> srtfParams()
{
    return {leaseParam()};
}

} // namespace orrery::sched
