#pragma once

#include "workload/goodput_profile.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace orrery::workload {

/**
 * Pollux's iteration-time model (docs/models/goodput.md): compute time linear in the per-GPU batch, network
 * time a constant plus a retrogression term in the replicas (intra-node or inter-node constants), overlapped
 * by a gamma-norm.
 */
struct PerfParams
{
    double alphaC = 0, betaC = 0; ///< compute: alphaC + betaC x atomic batch
    double alphaN = 0, betaN = 0; ///< network over several nodes: alphaN + betaN x max(replicas - 2, 0)
    double alphaR = 0, betaR = 0; ///< network inside one node (replicas > 1)
    double gamma = 1;             ///< overlap: (compute^gamma + network^gamma)^(1/gamma), gamma in [1, 10]
};

/** Seconds of one forward/backward pass on `atomicBsz` samples per GPU. */
double accumTimeS(const PerfParams& p, double atomicBsz);
/** Seconds of the gradient exchange among `replicas` GPUs on `nodes` nodes (0 for one GPU). */
double networkTimeS(const PerfParams& p, int nodes, int replicas);
/** Seconds per iteration: accumSteps extra passes, then a pass overlapped with the exchange. */
double iterationTimeS(const PerfParams& p, int nodes, int replicas, double atomicBsz, int accumSteps);

/** A fit of PerfParams to profile rows and how well it reproduces them. */
struct PerfFit
{
    PerfParams params;
    int rows = 0;               ///< rows fitted
    int computeRowsSkipped = 0; ///< rows whose sync time is not below the step time (no compute time)
    double rmsle = 0;           ///< root mean squared log error of the step time over the rows
    double meanAbsRelError = 0; ///< mean |predicted / measured - 1| of the step time
    double maxAbsRelError = 0;
};

/** Fits PerfParams to measured rows (docs/models/goodput.md, "Fitting"); deterministic. Needs at least one row. */
PerfFit fitPerfParams(const std::vector<ProfileRow>& rows);

/**
 * Statistical efficiency of a global batch `batch` against the initial batch `initBatch`, from the gradient
 * statistics (Pollux's gradient noise scale form): gain / scale with scale = batch / initBatch and gain =
 * (var + sqr) / (var / scale + sqr). In (0, 1]; non-increasing in the batch; 1 at or below the initial batch.
 */
double statisticalEfficiency(double gradSqr, double gradVar, double batch, double initBatch);

/** How a job runs a global batch on some replicas: per-GPU (atomic) batch and gradient-accumulation steps. */
struct BatchConfig
{
    int atomicBsz = 1;
    int accumSteps = 0;
    int batch = 0; ///< what it actually runs: replicas x atomicBsz x (accumSteps + 1)
};

/**
 * One application's goodput model over the GPU types it was profiled on: the fitted iteration time per profile
 * suffix, the statistical efficiency from its validation runs as training progresses, and its work (the
 * progress to reach, in samples).
 */
class GoodputModel
{
public:
    /** `maxEpochs` 0: the artifacts' value for the application, else the shortest validation run. */
    explicit GoodputModel(const GoodputProfile& profile, int maxEpochs = 0);

    const std::string& application() const { return m_app; }
    /** The smallest validated global batch (the batch progress is counted in). */
    int initBatch() const { return m_initBatch; }
    /** The largest validated global batch. */
    int maxBatch() const { return m_maxBatch; }
    int maxEpochs() const { return m_maxEpochs; }
    /** Progress to reach, in iterations at the initial batch (Pollux's get_progress(max_epochs)). */
    double targetProgress() const { return m_targetProgress; }
    /** The job's work: samples of progress (targetProgress x initBatch). */
    double workSamples() const { return m_targetProgress * m_initBatch; }

    /** Whether it was profiled on this suffix ("aws", "rtx", ...). */
    bool hasType(const std::string& suffix) const { return m_types.count(suffix) > 0; }
    const PerfFit& fit(const std::string& suffix) const { return type(suffix).fit; }
    int minLocalBsz(const std::string& suffix) const { return type(suffix).minLocalBsz; }
    int maxLocalBsz(const std::string& suffix) const { return type(suffix).maxLocalBsz; }
    std::vector<std::string> suffixes() const;

    /** Pollux's split of a global batch (clamped to [initBatch, maxBatch]) over `replicas` GPUs of a type. */
    BatchConfig configFor(const std::string& suffix, int replicas, int batch) const;
    /** Samples per second of the split of `batch` on (nodes, replicas) of a type. */
    double throughputSamplesS(const std::string& suffix, int nodes, int replicas, int batch) const;
    /** Statistical efficiency of `batch` at a fraction `progress` of the work. */
    double efficiencyAt(int batch, double progress) const;
    /** The largest efficiency of `batch` over the epochs of the run (an upper bound at any progress). */
    double maxEfficiency(int batch) const;
    /** Samples of progress per second: throughput x efficiency at the batch actually run. */
    double goodput(const std::string& suffix, int nodes, int replicas, int batch, double progress) const;
    /** The goodput-maximising global batch on (nodes, replicas) at `progress`, over 50 geometrically spaced
     *  batches from max(initBatch, minLocalBsz x replicas) to maxBatch (Pollux's optimize). Remembered per
     *  (type, nodes, replicas, epoch), all it depends on: Sia asks it for every configuration of every job each
     *  round, tens of thousands of times at 2,048 GPUs (docs/performance.md, "Sia at scale"). Thread-safe. */
    int bestBatch(const std::string& suffix, int nodes, int replicas, double progress) const;
    /** The epoch whose gradient statistics hold at a fraction `progress` of the work. */
    int epochAt(double progress) const;

private:
    struct Type
    {
        PerfFit fit;
        int minLocalBsz = 1;
        int maxLocalBsz = 1;
    };
    const Type& type(const std::string& suffix) const;
    void gradStats(int batch, int epoch, double& sqr, double& var) const;
    double efficiencyInEpoch(int batch, int epoch) const;
    int searchBestBatch(const Type& t, int nodes, int replicas, int epoch) const;

    /** bestBatch's answers; shared by copies of the model (same data, same answers), locked for the threads that
     *  simulate policies side by side on one prepared workload. */
    struct BestBatchMemo
    {
        std::mutex mutex;
        std::map<std::tuple<const Type*, int, int, int>, int> batch;
    };
    std::shared_ptr<BestBatchMemo> m_bestBatch = std::make_shared<BestBatchMemo>();

    std::string m_app;
    std::map<std::string, Type> m_types;
    std::map<int, std::vector<ValidationRow>> m_validation;
    int m_initBatch = 1;
    int m_maxBatch = 1;
    int m_maxEpochs = 1;
    double m_targetProgress = 0;
};

/** Pollux's and Sia's max_epochs per application (applications.py), 0 for an application they do not name. */
int defaultMaxEpochs(const std::string& application);

} // namespace orrery::workload
