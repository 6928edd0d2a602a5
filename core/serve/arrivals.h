#pragma once

// Request arrivals as the paper generates them (§6.1): a Gamma renewal process per model with a rate and a
// coefficient of variation, total rates split across models by a power law, seeded and identical on every
// platform (util::PortableRandom; the draws are written out here, not std::gamma_distribution's).

#include "serve/workload.h"

#include <cstdint>
#include <vector>

namespace orrery::serve {

/** Inter-arrival times ~ Gamma(shape 1/CV², mean 1/rate); CV = 1 is Poisson, CV = 0 is evenly spaced. */
struct GammaProcess
{
    double rate = 0; ///< requests per second
    double cv = 1;   ///< coefficient of variation of the inter-arrival times
};

/** Arrival times in [startS, startS + durationS) of one process (the first gap drawn from startS). */
std::vector<double> gammaArrivals(const GammaProcess& process, double startS, double durationS, std::uint64_t seed);

/** Model i draws from its own stream (seed mixed with i), so adding a model leaves the others' arrivals alone. */
Workload gammaWorkload(const std::vector<GammaProcess>& perModel, double durationS, std::uint64_t seed);

/**
 * Piecewise-stationary arrivals: window w (length windowS) of model m draws from windows[w][m]. This is how a
 * trace is replayed after its windows were fitted (maf_trace.h) and how Clockwork++'s windows are formed.
 */
Workload windowedGammaWorkload(const std::vector<std::vector<GammaProcess>>& windows, double windowS,
                               std::uint64_t seed);

/**
 * `total` split over n models with weights (i + 1)^(−exponent), i = 0..n−1: exponent 0 is an even split,
 * larger exponents skew it to the first models (the paper's S4: exponent 0.5). Throws orrery::Error on n < 1
 * or a negative exponent.
 */
std::vector<double> powerLawRates(double total, int n, double exponent);

} // namespace orrery::serve
