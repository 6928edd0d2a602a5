#include "provision/provision_types.h"

#include "io/error.h"
#include "util/text.h"

namespace orrery::provision {

std::vector<int> ProvisionPlan::gpuCounts(std::size_t poolSize) const
{
    std::vector<int> counts(poolSize, 0);
    for (const auto& s : stages)
        counts.at(static_cast<std::size_t>(s.gpu)) += dp;
    return counts;
}

std::string toString(Strategy s)
{
    switch (s) {
    case Strategy::Espresso:
        return "espresso";
    case Strategy::SiaPlus:
        return "sia+";
    case Strategy::WhalePlus:
        return "whale+";
    case Strategy::HphPlus:
        return "hph+";
    case Strategy::Optimal:
        return "optimal";
    }
    return "espresso";
}

Strategy strategyFromString(const std::string& s)
{
    const std::string v = util::toLower(s);
    for (Strategy st :
         {Strategy::Espresso, Strategy::SiaPlus, Strategy::WhalePlus, Strategy::HphPlus, Strategy::Optimal})
        if (v == toString(st))
            return st;
    throw Error("", "strategy", "unknown strategy '" + s + "' (expected espresso, sia+, whale+, hph+ or optimal)");
}

double planCost(const std::vector<PoolGpu>& pool, const std::vector<Stage>& stages, int dp, double iterationS,
                int iterations)
{
    double pricePerHour = 0;
    for (const auto& s : stages)
        pricePerHour += dp * pool.at(static_cast<std::size_t>(s.gpu)).pricePerHour;
    return iterations * iterationS * pricePerHour / 3600.0;
}

} // namespace orrery::provision
