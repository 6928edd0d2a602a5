#pragma once
// Sweep specs for the sweep tests: a spec over the default scenario from its axes, resolved to a plan.

#include "sweep/sweep_plan.h"
#include "sweep/sweep_spec.h"

#include <nlohmann/json.hpp>

#include <string>

namespace orrery::test {

inline sweep::SweepPlan sweepPlan(const nlohmann::json& spec, const std::string& label = "t.json")
{
    return sweep::resolveSweep(sweep::parseSweepSpec(spec, label));
}

/** The sweep "t" over the default scenario along `axes`. */
inline nlohmann::json sweepSpec(nlohmann::json axes)
{
    return {{"format", "orrery-sweep"}, {"version", 1}, {"name", "t"}, {"scenario", "default"}, {"axes", axes}};
}

/** A small, quick sweep over the default scenario: 10 jobs, two policies, `seeds` seeds. */
inline nlohmann::json quickSweepSpec(int seeds)
{
    nlohmann::json seedValues = nlohmann::json::array();
    for (int i = 0; i < seeds; ++i)
        seedValues.push_back(i);
    return sweepSpec({{{"kind", "job_limit"}, {"values", {10}}},
                      {{"kind", "policy"}, {"values", {"fifo", "sjf"}}},
                      {{"kind", "seed"}, {"values", seedValues}}});
}

} // namespace orrery::test
