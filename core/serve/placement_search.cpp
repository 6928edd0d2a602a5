#include "serve/placement_search.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

namespace orrery::serve {

std::vector<ParallelConfig> groupConfigs(int gpus, int gpusPerNode)
{
    std::vector<ParallelConfig> configs;
    for (int intra = 1; intra <= std::min(gpus, gpusPerNode); intra *= 2)
        if (gpus % intra == 0)
            configs.push_back({gpus / intra, intra});
    return configs;
}

std::vector<ParallelConfig> equalGroups(int gpus, int size, const ParallelConfig& config)
{
    std::vector<ParallelConfig> groups(static_cast<std::size_t>(gpus / size), config);
    const int rest = gpus % size;
    if (rest > 0) {
        const int intra = std::gcd(config.intra, rest);
        groups.push_back({rest / intra, intra});
    }
    return groups;
}

std::vector<std::vector<int>> bucketPartitions(const std::vector<double>& latencies, double ratio, int maxBuckets)
{
    std::vector<int> cuts; // where a new latency level begins
    for (std::size_t i = 1; i < latencies.size(); ++i)
        if (latencies[i] > latencies[i - 1])
            cuts.push_back(static_cast<int>(i));
    std::vector<std::vector<int>> out;
    std::vector<int> chosen{0};
    const int n = static_cast<int>(latencies.size());
    const auto valid = [&](const std::vector<int>& starts) {
        for (std::size_t b = 0; b < starts.size(); ++b) {
            const int end = b + 1 < starts.size() ? starts[b + 1] : n;
            if (latencies[static_cast<std::size_t>(end - 1)] > ratio * latencies[static_cast<std::size_t>(starts[b])])
                return false;
        }
        return true;
    };
    std::function<void(std::size_t)> extend = [&](std::size_t from) {
        if (valid(chosen))
            out.push_back(chosen);
        if (static_cast<int>(chosen.size()) >= maxBuckets)
            return;
        for (std::size_t c = from; c < cuts.size(); ++c) {
            chosen.push_back(cuts[c]);
            extend(c + 1);
            chosen.pop_back();
        }
    };
    if (n > 0)
        extend(0);
    return out;
}

namespace {

struct Bucket
{
    std::vector<int> models; // instance indices
    double demand = 0;       // GPU-seconds of work per second (rate x base latency)
    int minGpus = 1;         // the fewest GPUs a group needs to hold the bucket's largest model
};

/** Device counts per bucket summing to `total`, each >= the bucket's minimum, most balanced first. */
std::vector<std::vector<int>> deviceSplits(const std::vector<Bucket>& buckets, int total, int keep)
{
    std::vector<std::pair<double, std::vector<int>>> all;
    std::vector<int> split(buckets.size(), 0);
    std::function<void(std::size_t, int)> rec = [&](std::size_t b, int left) {
        if (b + 1 == buckets.size()) {
            if (left < buckets[b].minGpus)
                return;
            split[b] = left;
            // Imbalance: the most loaded bucket's demand per GPU over the least loaded's.
            double hi = 0, lo = std::numeric_limits<double>::infinity();
            for (std::size_t k = 0; k < buckets.size(); ++k) {
                const double load = buckets[k].demand / split[k];
                hi = std::max(hi, load);
                lo = std::min(lo, load);
            }
            all.emplace_back(lo > 0 ? hi / lo : hi, split);
            return;
        }
        for (int n = buckets[b].minGpus; n <= left; ++n) {
            split[b] = n;
            rec(b + 1, left - n);
        }
    };
    if (!buckets.empty())
        rec(0, total);
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::vector<int>> out;
    for (std::size_t i = 0; i < all.size() && static_cast<int>(i) < keep; ++i)
        out.push_back(all[i].second);
    return out;
}

/**
 * Higher attainment wins; [CHOICE] equal attainments go to the lower mean latency (the paper names no
 * tie-break; at 100% this picks, e.g., S4's intra-op-heavy (4, 8) groups over (32, 1) ones).
 */
bool better(double attainment, double latency, double bestAttainment, double bestLatency)
{
    if (attainment != bestAttainment)
        return attainment > bestAttainment;
    return latency < bestLatency;
}

} // namespace

SearchResult searchPlacement(ProfileCache& cache, const Workload& workload, const SearchOptions& options,
                             const util::Progress* progress)
{
    const ServingProblem& problem = cache.problem();
    if (workload.models != problem.models())
        throw Error("", "workload",
                    fmt::format("the workload has {} models, the problem {}", workload.models, problem.models()));
    const int gpusPerNode = problem.latency.gpusPerNode;
    const int maxGroup = options.maxGroupGpus > 0 ? std::min(options.maxGroupGpus, problem.gpus) : problem.gpus;

    // Instances by base latency.
    std::vector<int> order(static_cast<std::size_t>(problem.models()));
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> base(order.size());
    for (int m : order) {
        const int kind = problem.instances[static_cast<std::size_t>(m)].kind;
        if (cache.minimalGpus(kind) == 0)
            throw Error("", "models",
                        fmt::format("{} fits on no group of the cluster within the memory budget",
                                    problem.instances[static_cast<std::size_t>(m)].name));
        base[static_cast<std::size_t>(m)] = cache.baseLatencyS(kind);
    }
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return base[static_cast<std::size_t>(a)] < base[static_cast<std::size_t>(b)];
    });
    std::vector<double> sorted;
    for (int m : order)
        sorted.push_back(base[static_cast<std::size_t>(m)]);
    const std::vector<long long> counts = workload.countsPerModel();
    const double span = workload.durationS > 0 ? workload.durationS : 1.0;

    SearchResult best;
    best.attainment = -1;
    double bestLatency = 0;
    const auto partitions = bucketPartitions(sorted, options.bucketLatencyRatio, options.maxBuckets);
    // Per (bucket models, devices): the best greedy result, shared by the device splits that repeat it.
    std::map<std::pair<std::vector<int>, int>, GreedyResult> solved;
    std::size_t done = 0;
    // Algorithm 1 gets the stop token only: it reports its best attainment, which is no fraction of this search.
    util::Progress stopOnly;
    if (progress)
        stopOnly.stop = progress->stop;
    const util::Progress* greedyProgress = progress ? &stopOnly : nullptr;
    for (const auto& starts : partitions) {
        std::vector<Bucket> buckets;
        for (std::size_t b = 0; b < starts.size(); ++b) {
            Bucket bucket;
            const int end = b + 1 < starts.size() ? starts[b + 1] : static_cast<int>(order.size());
            for (int i = starts[b]; i < end; ++i) {
                const int m = order[static_cast<std::size_t>(i)];
                bucket.models.push_back(m);
                bucket.demand += double(counts[static_cast<std::size_t>(m)]) / span * base[static_cast<std::size_t>(m)];
                bucket.minGpus =
                    std::max(bucket.minGpus, cache.minimalGpus(problem.instances[static_cast<std::size_t>(m)].kind));
            }
            std::sort(bucket.models.begin(), bucket.models.end());
            buckets.push_back(std::move(bucket));
        }
        for (const auto& split : deviceSplits(buckets, problem.gpus, options.deviceSplitsPerPartition)) {
            Placement combined;
            for (std::size_t b = 0; b < buckets.size(); ++b) {
                const auto key = std::make_pair(buckets[b].models, split[b]);
                auto it = solved.find(key);
                if (it == solved.end()) {
                    GreedyResult bucketBest;
                    bucketBest.attainment = -1;
                    const auto tryGroups = [&](const std::vector<ParallelConfig>& groups) {
                        GreedyResult r =
                            greedyPlacement(cache, buckets[b].models, groups, workload, options.greedy, greedyProgress);
                        best.simulations += r.simulations;
                        ++best.candidates;
                        if (better(r.attainment, r.meanLatencyS, bucketBest.attainment, bucketBest.meanLatencyS))
                            bucketBest = std::move(r);
                    };
                    if (!options.modelParallel) {
                        const int size = buckets[b].minGpus;
                        tryGroups(equalGroups(split[b], size, {size, 1}));
                    } else {
                        for (int size = 1; size <= std::min(split[b], maxGroup); size *= 2) {
                            if (size < buckets[b].minGpus)
                                continue;
                            for (const ParallelConfig& config : groupConfigs(size, gpusPerNode))
                                tryGroups(equalGroups(split[b], size, config));
                        }
                        // A bucket whose minimum is not a power of two still gets its minimal groups.
                        if ((buckets[b].minGpus & (buckets[b].minGpus - 1)) != 0 && buckets[b].minGpus <= split[b])
                            tryGroups(equalGroups(split[b], buckets[b].minGpus, {buckets[b].minGpus, 1}));
                    }
                    it = solved.emplace(key, std::move(bucketBest)).first;
                }
                for (const auto& g : it->second.placement.groups)
                    combined.groups.push_back(g);
            }
            const SimResult sim = evaluatePlacement(cache, combined, workload);
            ++best.simulations;
            if (better(sim.attainment(), sim.meanLatencyS(), best.attainment, bestLatency)) {
                best.attainment = sim.attainment();
                bestLatency = sim.meanLatencyS();
                best.placement = std::move(combined);
            }
            if (best.attainment >= options.stopAt)
                return best;
        }
        ++done;
        if (progress)
            (*progress)(double(done) / double(partitions.size()));
    }
    if (best.attainment < 0)
        best.attainment = 0;
    return best;
}

SearchResult selectiveReplication(ProfileCache& cache, const Workload& workload, SearchOptions options,
                                  const util::Progress* progress)
{
    options.modelParallel = false;
    return searchPlacement(cache, workload, options, progress);
}

} // namespace orrery::serve
