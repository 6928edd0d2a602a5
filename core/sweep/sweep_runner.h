#pragma once

#include "store/run_store.h"
#include "sweep/shard.h"
#include "sweep/sweep_estimate.h"
#include "sweep/sweep_plan.h"
#include "sweep/workload_cache.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <unordered_set>
#include <vector>

namespace orrery::sweep {

struct SweepProgress
{
    std::size_t done = 0;  ///< points ended (stored or failed) in this run
    std::size_t total = 0; ///< points this run has to do
    std::size_t failed = 0;
    double elapsedS = 0;
};

struct PointFailure
{
    std::size_t index = 0;
    std::string key;
    std::string error;
    std::int64_t runId = 0; ///< the failed run stored for it (0 when it could not be stored)
};

struct SweepRunOptions
{
    int jobs = 1; ///< threads simulating and, one at a time, storing points (the busy threads of the sweep)
    Shard shard;
    std::stop_token stop; ///< asked: running points are abandoned (not stored), no new one starts
    /** Called after each point ends (stored, or failed), one call at a time, from the thread that stored it or whose
     *  simulation threw: the calling thread at jobs 1, a worker thread otherwise. */
    std::function<void(const SweepProgress&)> onProgress;
    /** Held around every use of the store's connection instead of a lock of the runner's own: the GUI shares one
     *  lock between every worker that opens the store (RunSaver::storeMutex). Null: the runner's own. */
    std::mutex* storeMutex = nullptr;
    /** Finished points waiting for the store at most (more wait to be queued): what a stop request still stores
     *  beyond the points being written. */
    std::size_t maxWaitingPoints = 64;
};

struct SweepRunSummary
{
    std::size_t inShard = 0;       ///< points of this shard
    std::size_t alreadyStored = 0; ///< of those, completed in the store before: skipped
    std::size_t ran = 0;           ///< stored completed now (sampled points included)
    std::size_t failed = 0;        ///< stored failed now
    std::size_t notRun = 0;        ///< left for a later run (stopped)
    bool stopped = false;
    double wallS = 0;
    double simulateS = 0; ///< wall seconds inside sim::simulate, summed over points
    double prepareS = 0;  ///< wall seconds getting prepared workloads, summed over points
    double storeS = 0;    ///< wall seconds of the writer storing runs (waiting for the store's lock included)
    double encodeS = 0;   ///< wall seconds preparing finished points for the store (run info, rows, chunks), summed
    double otherS = 0;    ///< the rest of each point's time (policy creation), summed
    std::size_t storeBatches = 0; ///< transactions the stored points took (several points each when the store lags)
    std::vector<PointFailure> failures;
};

/** Indices of the shard's points whose keys are not in `done`, in plan order. */
std::vector<std::size_t> pointsToRun(const SweepPlan& plan, const Shard& shard,
                                     const std::unordered_set<std::string>& done);

/**
 * Runs a sweep's points into `store` (`orrery-cli sweep run`, docs/sweeps.md): records the sweep (name, axes,
 * spec), skips the shard's points already stored completed, stores `samples` (points an estimate simulated) and
 * simulates the rest on `options.jobs` threads. Each point is a normal run tagged with the sweep, its key and its
 * axis values. The thread that simulated a point prepares it for the store (store::prepareRun: its rows built and
 * chunks encoded); the same threads take turns at the store's one connection (the calling thread is one of them at
 * jobs 1; no other thread writes), each storing whatever has finished since the last write in one transaction
 * (RunStore::storeRuns), binding and stepping only, while the other threads simulate; each run is all or nothing, so a
 * crash loses at most the batch being written and leaves no half-written run. A point that throws, or whose run cannot
 * be stored, is stored failed with the error and the sweep goes on. A stop request abandons the running points (not
 * stored: a resumed sweep runs them) and stores every finished one.
 */
SweepRunSummary runSweep(const SweepPlan& plan, store::RunStore& store, const SweepRunOptions& options,
                         WorkloadCache& cache, std::vector<SampledPoint> samples = {});

/** The store::RunInfo of a point: its resolved scenario, policy, seed, workload edits and sweep tag. */
store::RunInfo pointRunInfo(const SweepPlan& plan, const SweepPoint& point);

} // namespace orrery::sweep
