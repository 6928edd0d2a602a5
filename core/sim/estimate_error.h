#pragma once

#include "io/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace orrery::sim {

/**
 * What the estimates policies read (View::estimatedWork and friends) miss the truth by: one factor per
 * job, estimate = truth x factor (docs/simulator.md, "Estimates versus truth"). `options.estimate_error`
 * picks the form and `options.estimate_error_scale` its size:
 *  - none (default): no factors; every estimate is the truth, bit for bit;
 *  - uniform: factor = 1 + U(-s, s), s < 1 (0.2: within +-20%);
 *  - lognormal: factor = exp(N(0, sigma)), median 1, always positive (sigma = s).
 * The factors are drawn in job order from a portable generator seeded from the run seed, so a run seed
 * gives the same errors on every platform and to every policy compared under it.
 */
std::vector<double> estimateErrorFactors(const io::ScenarioOptions& options, int jobs, std::uint64_t seed);

/** The forms options.estimate_error accepts, in documentation order. */
const std::vector<std::string>& estimateErrorModes();

} // namespace orrery::sim
