#include "sim/estimate_error.h"

#include "util/portable_random.h"

#include <cmath>
#include <numbers>

namespace orrery::sim {

namespace {

// SplitMix64's finaliser: the estimate stream must not be the stream other users of the run seed draw
// (Gavel's shuffles, generators), or changing one would shift the other.
std::uint64_t mixSeed(std::uint64_t seed)
{
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * 0x45535449ULL; // "ESTI"
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

} // namespace

const std::vector<std::string>& estimateErrorModes()
{
    static const std::vector<std::string> modes = {"none", "uniform", "lognormal"};
    return modes;
}

std::vector<double> estimateErrorFactors(const io::ScenarioOptions& options, int jobs, std::uint64_t seed)
{
    if (options.estimateError == "none" || jobs <= 0)
        return {};
    util::PortableRandom rng(mixSeed(seed));
    const double s = options.estimateErrorScale;
    std::vector<double> factors(static_cast<std::size_t>(jobs));
    for (double& f : factors) {
        if (options.estimateError == "uniform") {
            f = 1 + s * (2 * rng.uniform() - 1);
        } else {
            // Box-Muller from two draws per job (the second normal is discarded, so job j's factor depends
            // on j alone, not on how many draws earlier jobs took).
            const double u1 = 1 - rng.uniform(); // (0, 1]: log is finite
            const double u2 = rng.uniform();
            f = std::exp(s * std::sqrt(-2 * std::log(u1)) * std::cos(2 * std::numbers::pi * u2));
        }
    }
    return factors;
}

} // namespace orrery::sim
