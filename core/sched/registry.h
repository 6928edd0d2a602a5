#pragma once

#include "sched/policy.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace orrery::sched {

struct PolicyInfo
{
    std::string name;
    std::string description; ///< one line, for `orrery-cli policies`
    std::function<std::unique_ptr<Policy>()> make;
};

/** Every registered policy, in a stable order. */
const std::vector<PolicyInfo>& registeredPolicies();
/** A fresh instance; throws orrery::Error with a "did you mean" suggestion for unknown names. */
std::unique_ptr<Policy> makePolicy(const std::string& name);

// One factory per policy file.
std::unique_ptr<Policy> makeFifo();
std::unique_ptr<Policy> makeFifoPerf();
std::unique_ptr<Policy> makeSjf();
std::unique_ptr<Policy> makeTiresias();
std::unique_ptr<Policy> makeMaxMinFairness();
std::unique_ptr<Policy> makeMaxMinFairnessPerf();
std::unique_ptr<Policy> makeFrenzy();
std::unique_ptr<Policy> makeFrenzyExact();
std::unique_ptr<Policy> makeFrenzyStrict();
std::unique_ptr<Policy> makeOpportunistic();

} // namespace orrery::sched
