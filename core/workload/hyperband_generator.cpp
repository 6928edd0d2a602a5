#include "workload/hyperband_generator.h"

#include "util/portable_random.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace orrery::workload {

namespace {

struct TableModel
{
    const char* name;
    const char* arch; ///< the name the locality classes know it by (docs/simulator.md, "Locality")
    double iterS;     ///< serial seconds per iteration on a K80: illustrative, rho reads only ratios
};

// Themis' Table 4 by category; the iteration times are scripts/gen-themis-scenarios' constants.
constexpr std::array<TableModel, 5> kCv = {{{"inception_v3", "inception_v3", 0.9},
                                            {"alexnet", "alexnet", 0.3},
                                            {"resnet50", "resnet50", 0.8},
                                            {"vgg16", "vgg16", 1.0},
                                            {"vgg19", "vgg19", 1.1}}};
constexpr std::array<TableModel, 4> kNlp = {{{"bidaf", "bi-att-flow", 0.5},
                                             {"langmodel", "langmodel", 0.2},
                                             {"gnmt", "gnmt", 0.6},
                                             {"transformer", "transformer", 0.7}}};
constexpr std::array<TableModel, 2> kSpeech = {{{"wavenet", "wavenet", 0.4}, {"deepspeech", "deepspeech", 0.9}}};

template <typename T, std::size_t N> const T& pick(const std::array<T, N>& models, double u)
{
    return models[std::min(static_cast<std::size_t>(u * N), N - 1)];
}

const TableModel& tableModel(double categoryU, double modelU)
{
    if (categoryU < 0.1)
        return pick(kCv, modelU);
    if (categoryU < 0.7)
        return pick(kNlp, modelU);
    return pick(kSpeech, modelU);
}

// The same models by placement sensitivity, as the locality classes sort them (Themis spec, choice 10).
constexpr std::array<const TableModel*, 6> kNetwork = {&kCv[1], &kCv[3], &kCv[4], &kNlp[1], &kNlp[2], &kNlp[3]};
constexpr std::array<const TableModel*, 5> kCompute = {&kCv[0], &kCv[2], &kNlp[0], &kSpeech[0], &kSpeech[1]};

/** Per app, whether it is network-intensive: the round(share x apps) apps of the lowest category draws, so the
 *  share is exact and a larger share keeps the smaller one's network apps (the sweep changes only models). */
std::vector<char> networkApps(const std::vector<double>& categoryU, double share)
{
    std::vector<std::size_t> order(categoryU.size());
    for (std::size_t a = 0; a < order.size(); ++a)
        order[a] = a;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t x, std::size_t y) { return categoryU[x] < categoryU[y]; });
    const auto count = static_cast<std::size_t>(std::lround(share * static_cast<double>(categoryU.size())));
    std::vector<char> out(categoryU.size(), 0);
    for (std::size_t i = 0; i < count; ++i)
        out[order[i]] = 1;
    return out;
}

} // namespace

std::vector<Job> generateHyperbandApps(const HyperbandSpec& spec, std::uint64_t seed)
{
    util::PortableRandom rng(seed);
    int maxExponent = 1;
    while ((2 << maxExponent) <= spec.maxConfigs)
        ++maxExponent;
    const double meanGapS = spec.appsPerHour > 0 ? 3600.0 / spec.appsPerHour : 0;
    // Five draws per app in a fixed order: app k's values do not depend on what earlier apps drew.
    struct Draws
    {
        double gap, category, model, config, budget;
    };
    std::vector<Draws> draws(static_cast<std::size_t>(spec.apps));
    std::vector<double> categoryU;
    for (auto& d : draws) {
        d = {rng.uniform(), rng.uniform(), rng.uniform(), rng.uniform(), rng.uniform()};
        categoryU.push_back(d.category);
    }
    const std::vector<char> network =
        spec.networkShare ? networkApps(categoryU, *spec.networkShare) : std::vector<char>();
    std::vector<Job> jobs;
    double t = 0;
    for (int a = 0; a < spec.apps; ++a) {
        const Draws& d = draws[static_cast<std::size_t>(a)];
        if (a > 0 && meanGapS > 0)
            t += util::PortableRandom::exponential(meanGapS, d.gap);
        const TableModel& m = network.empty()                        ? tableModel(d.category, d.model)
                              : network[static_cast<std::size_t>(a)] ? *pick(kNetwork, d.model)
                                                                     : *pick(kCompute, d.model);
        const int exponent = 1 + std::min(static_cast<int>(d.config * maxExponent), maxExponent - 1);
        const int n = 1 << exponent;
        const int phases = exponent + 1;
        const double budgetS = spec.budgetGpuHours * 3600 * (0.5 + 1.5 * d.budget);
        // Iterations per surviving job in phase p (1-based), at least one.
        std::vector<double> iterations(static_cast<std::size_t>(phases));
        for (int p = 1; p <= phases; ++p)
            iterations[static_cast<std::size_t>(p - 1)] =
                std::max(1.0, std::floor(budgetS / (phases * (n >> (p - 1)) * m.iterS)));
        const std::string app = spec.prefix + std::to_string(a);
        for (int r = 0; r < n; ++r) {
            int last = 1;
            while (last < phases && r < (n >> last))
                ++last;
            double work = 0;
            for (int p = 0; p < last; ++p)
                work += iterations[static_cast<std::size_t>(p)];
            const int cap = 1 << (last - 1);
            Job job;
            job.id = app + "-c" + std::to_string(r);
            job.app = app;
            job.user = "u" + std::to_string(a % 17);
            job.arrivalS = t;
            job.kind = JobKind::Fixed;
            job.gpus = cap;
            job.minGpus = 1;
            job.maxGpus = cap;
            job.durationS = work * m.iterS / cap;
            job.referenceGpu = spec.referenceGpu;
            job.arch = m.arch;
            jobs.push_back(std::move(job));
        }
    }
    return jobs;
}

} // namespace orrery::workload
