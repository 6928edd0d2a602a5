#pragma once

// Algorithm 2 of AlpaServe (§4.2): bucket the models by latency, give each bucket devices, cut each bucket's
// devices into equal groups with one parallel configuration, run Algorithm 1 in each, keep the best; and the
// Selective Replication baseline, the same search without model parallelism (docs/serving.md, "Placement").

#include "serve/greedy_placement.h"
#include "util/progress.h"

namespace orrery::serve {

struct SearchOptions
{
    GreedyOptions greedy;
    /** false: Selective Replication (each group the fewest GPUs its largest model needs, inter-op only). */
    bool modelParallel = true;
    /** Two models whose base latencies differ by more than this factor never share a bucket. */
    double bucketLatencyRatio = 2.0;
    int maxBuckets = 2;
    /** Device assignments to buckets tried per bucket partition, the best balanced first (the paper's pruning). */
    int deviceSplitsPerPartition = 3;
    /** Largest group tried (0: the whole cluster). */
    int maxGroupGpus = 0;
    /**
     * End the search at the first whole placement whose attainment reaches this. A threshold search asks only
     * whether the best placement meets its target, and the best is never worse than one already found that does,
     * so stopping there changes no answer (above 1: never stop early).
     */
    double stopAt = 2.0;
};

struct SearchResult
{
    Placement placement;
    double attainment = 0;
    int simulations = 0;
    int candidates = 0; ///< (bucket, devices, group size, configuration) choices evaluated by Algorithm 1
};

/** Throws orrery::Error when a model fits on no group of the cluster. */
SearchResult searchPlacement(ProfileCache& cache, const Workload& workload, const SearchOptions& options = {},
                             const util::Progress* progress = nullptr);

/** Selective Replication: searchPlacement with modelParallel = false. */
SearchResult selectiveReplication(ProfileCache& cache, const Workload& workload, SearchOptions options = {},
                                  const util::Progress* progress = nullptr);

/** `gpus` cut into equal groups of `size` GPUs with `config`, and a last group of the remainder (its own config). */
std::vector<ParallelConfig> equalGroups(int gpus, int size, const ParallelConfig& config);

/** The parallel configurations (stages, intra) of a group of `gpus` GPUs that the search tries. */
std::vector<ParallelConfig> groupConfigs(int gpus, int gpusPerNode);

/**
 * Contiguous partitions of `latencies` (sorted ascending) into at most maxBuckets buckets, none holding two
 * latencies more than `ratio` apart; each partition as the index where each bucket starts.
 */
std::vector<std::vector<int>> bucketPartitions(const std::vector<double>& latencies, double ratio, int maxBuckets);

} // namespace orrery::serve
