#pragma once

#include "hardware/gpu_type.h"
#include "workload/model_spec.h"
#include "workload/training_config.h"

#include <map>
#include <string>
#include <vector>

namespace orrery::provision {

/** One GPU type a user may rent in the cloud: datasheet, quota Lim_t and unit price c_t. */
struct PoolGpu
{
    hardware::GpuType gpu;
    int quota = 0;           ///< Lim_t, in GPUs
    double pricePerHour = 0; ///< c_t per GPU (any currency; the cost is reported in the same one)
};

/** Espresso's job J: the model, how it trains, and the SLO (total time for z iterations). */
struct ProvisionJob
{
    workload::ModelSpec model;
    workload::TrainingConfig training; ///< globalBatch, seq, precision, optimizer, recompute
    int microBatches = 4;              ///< m, per pipeline and iteration
    int iterations = 100;              ///< z
    double sloS = 0;                   ///< T_SLO for all z iterations; <= 0 means no deadline
    double interBandwidthGbitS = 2.5;  ///< between instances (every GPU is its own instance)

    int layers() const { return model.layers; }
    int seq() const { return training.seq > 0 ? training.seq : model.seq; }
};

/** One pipeline stage: a GPU type (index into the pool) and its contiguous layers. */
struct Stage
{
    int gpu = 0;
    int layers = 0;
    bool operator==(const Stage&) const = default;
};

/** A complete provisioning plan: k stages, each replicated on dp GPUs of its type. */
struct ProvisionPlan
{
    int dp = 0;
    std::vector<Stage> stages; ///< pipeline order
    double iterationS = 0;
    double totalS = 0; ///< z * iterationS
    double cost = 0;   ///< z * iterationS * sum(c_t n_t) / 3600

    int pp() const { return static_cast<int>(stages.size()); }
    int gpuCount() const { return dp * pp(); }
    /** n_t per pool index. */
    std::vector<int> gpuCounts(std::size_t poolSize) const;
};

/** A complete plan the search evaluated (for the cost-vs-time scatter, the paper's Fig. 2). */
struct EvaluatedPlan
{
    std::vector<int> gpuCounts; ///< n_t per pool index
    int dp = 0;
    int pp = 0;
    double iterationS = 0;
    double totalS = 0;
    double cost = 0;
    bool meetsSlo = false;
};

/** Search counters for the pruning ablation (Fig. 10a). */
struct SearchStats
{
    long long expanded = 0;   ///< cost-tree nodes popped (or candidates visited by a baseline)
    long long prunedBp = 0;   ///< (d, k) pairs the boundaries removed from the unbounded grid
    long long prunedCp = 0;   ///< partial plans cut by cost pruning
    long long prunedTcp = 0;  ///< partial plans cut by time-and-capacity pruning
    long long placements = 0; ///< complete plans handed to the stage placer
    double wallS = 0;
};

enum class Strategy { Espresso, SiaPlus, WhalePlus, HphPlus, Optimal };
std::string toString(Strategy s);
/** Accepts espresso, sia+, whale+, hph+, optimal; throws orrery::Error otherwise. */
Strategy strategyFromString(const std::string& s);

struct ProvisionOptions
{
    Strategy strategy = Strategy::Espresso;
    bool boundaryPruning = true;     ///< BP
    bool costPruning = true;         ///< CP
    bool timeCapacityPruning = true; ///< TCP
    double fragmentation = 0.8;      ///< beta, the usable share of memory in CP
    /**
     * false (default): CP and TCP as the paper defines them (c_lower from the
     * beta-fragmented layers, t_lower from Eq. 5 with its bubble ratio, m_lower
     * from an even split): heuristics that can cut a plan cheaper than the one
     * returned. true: provably valid bounds instead (no bubble, all L layers at
     * the best reachable price per FLOP, the least memory any split needs):
     * never cuts a better plan, but prunes far less.
     */
    bool validBounds = false;
    bool recordEvaluated = false; ///< keep every complete plan evaluated (scatter)
    /** Optimal refuses to start when its worst-case estimate exceeds this (seconds). */
    double optimalBudgetS = 3600;
    /**
     * Optimal stops with an error once its search has run this long (seconds): the up-front estimate
     * counts stage orders, and the work per order varies by three orders of magnitude, so some
     * searches it lets through (far tighter SLOs than the paper's) would otherwise run for hours.
     * Zero or less: no limit.
     */
    double optimalTimeLimitS = 3600;
};

/** The answer: the cheapest plan meeting the SLO, or (feasible == false) the fastest plan found. */
struct ProvisionResult
{
    Strategy strategy = Strategy::Espresso;
    bool feasible = false;
    bool hasPlan = false; ///< false only when not even an SLO-violating plan was found
    ProvisionPlan plan;
    SearchStats stats;
    /**
     * Espresso and the placer baselines: when no plan met the SLO, a second search without the deadline
     * looked for the fastest plan; its counters are here (stats keeps the first search's, which the
     * pruning ablation compares) and the plans it placed are in `evaluated`, all missing the SLO.
     */
    bool relaxed = false;
    SearchStats relaxedStats;
    std::vector<EvaluatedPlan> evaluated; ///< when ProvisionOptions::recordEvaluated
};

/** Monetary cost of a plan: Eq. (1) with hourly prices, z * T_iter * sum(c_t n_t) / 3600. */
double planCost(const std::vector<PoolGpu>& pool, const std::vector<Stage>& stages, int dp, double iterationS,
                int iterations);

} // namespace orrery::provision
