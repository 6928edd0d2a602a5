#include "serve/stage_partition.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace orrery::serve {

namespace {

void check(const std::vector<double>& layerLatency, int stages)
{
    if (stages < 1)
        throw Error("", "stages", fmt::format("expected at least one stage, got {}", stages));
    if (static_cast<int>(layerLatency.size()) < stages)
        throw Error(
            "", "stages",
            fmt::format("{} stages need at least {} layers, the model has {}", stages, stages, layerLatency.size()));
    for (std::size_t i = 0; i < layerLatency.size(); ++i)
        if (!(layerLatency[i] >= 0))
            throw Error("", fmt::format("layer[{}]", i), "latency must be a non-negative number");
}

StagePartition fromBoundaries(const std::vector<double>& prefix, std::vector<int> first)
{
    StagePartition p;
    p.firstLayer = std::move(first);
    const int K = static_cast<int>(prefix.size()) - 1;
    for (std::size_t s = 0; s < p.firstLayer.size(); ++s) {
        const int end = s + 1 < p.firstLayer.size() ? p.firstLayer[s + 1] : K;
        p.stageLatency.push_back(prefix[end] - prefix[p.firstLayer[s]]);
    }
    p.maxStageLatency = *std::max_element(p.stageLatency.begin(), p.stageLatency.end());
    return p;
}

std::vector<double> prefixSums(const std::vector<double>& v)
{
    std::vector<double> prefix(v.size() + 1, 0.0);
    for (std::size_t i = 0; i < v.size(); ++i)
        prefix[i + 1] = prefix[i] + v[i];
    return prefix;
}

} // namespace

StagePartition partitionStages(const std::vector<double>& layerLatency, int stages)
{
    check(layerLatency, stages);
    const int K = static_cast<int>(layerLatency.size());
    const std::vector<double> prefix = prefixSums(layerLatency);
    constexpr double inf = std::numeric_limits<double>::infinity();
    // F[s][k]: layers [0, k) in s stages; arg[s][k]: where the last of those stages begins.
    std::vector<std::vector<double>> F(stages + 1, std::vector<double>(K + 1, inf));
    std::vector<std::vector<int>> arg(stages + 1, std::vector<int>(K + 1, -1));
    F[0][0] = 0;
    for (int s = 1; s <= stages; ++s)
        for (int k = s; k <= K; ++k)
            for (int i = s - 1; i < k; ++i) { // last stage is layers [i, k)
                const double v = std::max(F[s - 1][i], prefix[k] - prefix[i]);
                if (v <= F[s][k]) {
                    F[s][k] = v;
                    arg[s][k] = i;
                }
            }
    std::vector<int> first(stages);
    for (int s = stages, k = K; s >= 1; --s) {
        first[s - 1] = arg[s][k];
        k = arg[s][k];
    }
    return fromBoundaries(prefix, std::move(first));
}

StagePartition equalLayerStages(const std::vector<double>& layerLatency, int stages)
{
    check(layerLatency, stages);
    const int K = static_cast<int>(layerLatency.size());
    std::vector<int> first(stages);
    int next = 0;
    for (int s = 0; s < stages; ++s) {
        first[s] = next;
        next += K / stages + (s < K % stages ? 1 : 0);
    }
    return fromBoundaries(prefixSums(layerLatency), std::move(first));
}

} // namespace orrery::serve
