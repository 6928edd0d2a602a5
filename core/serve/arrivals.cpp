#include "serve/arrivals.h"

#include "io/error.h"
#include "util/portable_random.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace orrery::serve {

namespace {

std::uint64_t mix(std::uint64_t seed, std::uint64_t stream)
{
    // splitmix64 of the pair, so neighbouring streams are unrelated
    std::uint64_t z = seed + 0x9e3779b97f4a7c15ULL * (stream + 1);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

double normal(util::PortableRandom& rng)
{
    // Box-Muller; 1 - u keeps the logarithm finite.
    const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
}

/** Gamma(shape, 1), Marsaglia and Tsang (2000); shapes below 1 boosted by U^(1/shape). */
double gammaDraw(double shape, util::PortableRandom& rng)
{
    if (shape < 1.0) {
        const double u = 1.0 - rng.uniform();
        return gammaDraw(shape + 1.0, rng) * std::pow(u, 1.0 / shape);
    }
    const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
    for (;;) {
        double x, v;
        do {
            x = normal(rng);
            v = 1.0 + c * x;
        } while (v <= 0);
        v = v * v * v;
        const double u = 1.0 - rng.uniform();
        if (u < 1.0 - 0.0331 * x * x * x * x || std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v)))
            return d * v;
    }
}

void checkProcess(const GammaProcess& p)
{
    if (!(p.rate >= 0) || !std::isfinite(p.rate))
        throw Error("", "rate", fmt::format("expected a non-negative request rate, got {}", p.rate));
    if (!(p.cv >= 0) || !std::isfinite(p.cv))
        throw Error("", "cv", fmt::format("expected a non-negative coefficient of variation, got {}", p.cv));
}

void appendArrivals(const GammaProcess& process, double startS, double durationS, util::PortableRandom& rng, int model,
                    std::vector<Request>& out)
{
    if (process.rate <= 0 || durationS <= 0)
        return;
    const double mean = 1.0 / process.rate;
    const double shape = process.cv > 0 ? 1.0 / (process.cv * process.cv) : 0.0;
    const double end = startS + durationS;
    double t = startS;
    for (;;) {
        t += shape > 0 ? gammaDraw(shape, rng) * mean / shape : mean;
        if (t >= end)
            return;
        out.push_back({t, model});
    }
}

void sortRequests(std::vector<Request>& requests)
{
    std::stable_sort(requests.begin(), requests.end(),
                     [](const Request& a, const Request& b) { return a.arrivalS < b.arrivalS; });
}

} // namespace

std::vector<double> gammaArrivals(const GammaProcess& process, double startS, double durationS, std::uint64_t seed)
{
    checkProcess(process);
    util::PortableRandom rng(seed);
    std::vector<Request> requests;
    appendArrivals(process, startS, durationS, rng, 0, requests);
    std::vector<double> times;
    times.reserve(requests.size());
    for (const Request& r : requests)
        times.push_back(r.arrivalS);
    return times;
}

Workload gammaWorkload(const std::vector<GammaProcess>& perModel, double durationS, std::uint64_t seed)
{
    return windowedGammaWorkload({perModel}, durationS, seed);
}

Workload windowedGammaWorkload(const std::vector<std::vector<GammaProcess>>& windows, double windowS,
                               std::uint64_t seed)
{
    if (!(windowS > 0))
        throw Error("", "window", fmt::format("expected a positive window length, got {}", windowS));
    Workload w;
    w.models = windows.empty() ? 0 : static_cast<int>(windows.front().size());
    w.durationS = windowS * double(windows.size());
    for (std::size_t m = 0; m < static_cast<std::size_t>(w.models); ++m) {
        util::PortableRandom rng(mix(seed, m));
        for (std::size_t k = 0; k < windows.size(); ++k) {
            if (windows[k].size() != static_cast<std::size_t>(w.models))
                throw Error("", fmt::format("windows[{}]", k), "every window needs one process per model");
            checkProcess(windows[k][m]);
            appendArrivals(windows[k][m], windowS * double(k), windowS, rng, static_cast<int>(m), w.requests);
        }
    }
    sortRequests(w.requests);
    return w;
}

std::vector<double> powerLawRates(double total, int n, double exponent)
{
    if (n < 1)
        throw Error("", "models", "a power-law split needs at least one model");
    if (!(exponent >= 0))
        throw Error("", "exponent", fmt::format("expected a non-negative exponent, got {}", exponent));
    if (!(total >= 0))
        throw Error("", "rate", fmt::format("expected a non-negative total rate, got {}", total));
    std::vector<double> w(static_cast<std::size_t>(n));
    double sum = 0;
    for (int i = 0; i < n; ++i)
        sum += w[static_cast<std::size_t>(i)] = std::pow(double(i + 1), -exponent);
    for (double& x : w)
        x *= total / sum;
    return w;
}

} // namespace orrery::serve
