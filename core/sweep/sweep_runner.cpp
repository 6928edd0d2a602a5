#include "sweep/sweep_runner.h"

#include "io/error.h"
#include "io/run_info.h"
#include "sched/registry.h"
#include "sim/simulator.h"
#include "store/sqlite.h"
#include "store/sweep_records.h"
#include "store/wal_checkpointer.h"
#include "sweep/finished_points.h"
#include "util/run_workers.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

namespace orrery::sweep {

namespace {

using Clock = std::chrono::steady_clock;

/** Most points stored in one transaction: a batch holds the store's lock (shared with the GUI's other store users)
 *  for its whole write, ~30 ms for 64 default-scenario runs. */
constexpr std::size_t kMaxBatch = 64;
/** Records (store::PreparedRun::records) simulated and waiting for the store at most: ~40 MB of encoded runs. */
constexpr std::size_t kMaxQueuedRecords = std::size_t{1} << 20;
/** Finished points wait this long at most for a turn at the store while others simulate (when they are few). */
constexpr auto kMaxStoreDelay = std::chrono::milliseconds(100);
/**
 * The store's page cache while a sweep writes (KiB). The store keeps 32 MiB for the large transactions of single big
 * runs; a sweep's batches need a few MiB, and a sweep that writes tens of MB would otherwise fill the whole 32 MiB
 * with pages it never reads again, each 16 KiB page first touched at four page faults (15-20 us each on this VM):
 * 6,300 faults, a quarter of a 1,000-point default-scenario sweep's CPU, and all of it in the serial store's turns
 * (docs/performance.md, "Sweeps").
 */
constexpr int kSweepCacheKiB = 4096;

/** The store connection's page cache at kSweepCacheKiB while it lives, what it was after. */
class SweepPageCache
{
public:
    SweepPageCache(store::Connection& db, std::mutex& lock) : m_db(db), m_lock(lock)
    {
        std::lock_guard guard(m_lock);
        m_was = m_db.queryInt("PRAGMA cache_size");
        m_db.exec(fmt::format("PRAGMA cache_size = -{}", kSweepCacheKiB));
    }
    ~SweepPageCache()
    {
        try {
            std::lock_guard guard(m_lock);
            m_db.exec(fmt::format("PRAGMA cache_size = {}", m_was));
        } catch (const std::exception&) {
            // A closed or failed connection keeps the sweep's setting; nothing stored depends on it.
        }
    }
    SweepPageCache(const SweepPageCache&) = delete;
    SweepPageCache& operator=(const SweepPageCache&) = delete;

private:
    store::Connection& m_db;
    std::mutex& m_lock;
    std::int64_t m_was = 0;
};

/** FinishedPoint::producer of a point no simulating thread prepared (an estimate's sample). */
constexpr std::size_t kNoProducer = static_cast<std::size_t>(-1);

double seconds(Clock::duration d)
{
    return std::chrono::duration<double>(d).count();
}

} // namespace

store::RunInfo pointRunInfo(const SweepPlan& plan, const SweepPoint& point)
{
    nlohmann::json extra = nlohmann::json::object();
    if (!point.scenario->edits.empty())
        extra["sweep_workload_edits"] = point.scenario->edits.toJson();
    store::RunInfo info =
        io::runInfoOf(point.scenario->scenario, point.scenario->text, point.policy, point.seed, extra);
    info.sweep = store::SweepTag{plan.spec.name, point.key, point.axes.dump()};
    return info;
}

std::vector<std::size_t> pointsToRun(const SweepPlan& plan, const Shard& shard,
                                     const std::unordered_set<std::string>& done)
{
    std::vector<std::size_t> out;
    for (std::size_t i = shard.begin(plan.points.size()); i < shard.end(plan.points.size()); ++i)
        if (!done.count(plan.points[i].key))
            out.push_back(i);
    return out;
}

SweepRunSummary runSweep(const SweepPlan& plan, store::RunStore& store, const SweepRunOptions& options,
                         WorkloadCache& cache, std::vector<SampledPoint> samples)
{
    const auto start = Clock::now();
    SweepRunSummary summary;
    std::mutex ownMutex; // the store's one connection serves every worker, one at a time
    std::mutex& storeMutex = options.storeMutex ? *options.storeMutex : ownMutex;
    std::unordered_set<std::string> done;
    {
        std::lock_guard lock(storeMutex);
        store::saveSweep(store.connection(), plan.spec.name, nlohmann::json(plan.axisNames()).dump(),
                         plan.spec.document.dump());
        done = store::completedPointKeys(store.connection(), plan.spec.name);
    }
    summary.inShard = options.shard.end(plan.points.size()) - options.shard.begin(plan.points.size());
    std::vector<std::size_t> toRun = pointsToRun(plan, options.shard, done);
    summary.alreadyStored = summary.inShard - toRun.size();

    SweepProgress progress;
    progress.total = toRun.size();
    std::mutex progressMutex;
    const auto ended = [&](bool failed) {
        std::lock_guard lock(progressMutex);
        ++progress.done;
        progress.failed += failed ? 1 : 0;
        progress.elapsedS = seconds(Clock::now() - start);
        if (options.onProgress)
            options.onProgress(progress);
    };

    // The run info of a resolved scenario is built once (its scenario text is the costly part) and copied per point.
    std::mutex infoMutex;
    std::unordered_map<const ResolvedScenario*, store::RunInfo> infos;
    // Built and copied outside the lock (a map's entries stay where they are; none is erased during the sweep): a
    // seed axis makes a scenario per seed, and building its run info under the lock held the other threads' points.
    const auto infoOf = [&](const SweepPoint& p) {
        const store::RunInfo* base = nullptr;
        {
            std::lock_guard lock(infoMutex);
            const auto it = infos.find(p.scenario.get());
            if (it != infos.end())
                base = &it->second;
        }
        if (!base) {
            store::RunInfo built = io::runInfoOf(p.scenario->scenario, p.scenario->text, p.policy, p.seed);
            std::lock_guard lock(infoMutex);
            base = &infos.try_emplace(p.scenario.get(), std::move(built)).first->second;
        }
        store::RunInfo info = *base;
        if (!p.scenario->edits.empty()) {
            nlohmann::json opts = nlohmann::json::parse(info.optionsJson);
            opts["sweep_workload_edits"] = p.scenario->edits.toJson();
            info.optionsJson = opts.dump();
        }
        info.policy = p.policy;
        info.seed = p.seed;
        info.sweep = store::SweepTag{plan.spec.name, p.key, p.axes.dump()};
        return info;
    };

    std::mutex summaryMutex;
    const auto storeFailure = [&](const SweepPoint& p, const std::string& error) {
        PointFailure f{p.index, p.key, error, 0};
        try {
            const store::RunInfo info = infoOf(p);
            std::lock_guard lock(storeMutex);
            store::RunWriter writer = store.beginRun(info);
            writer.fail(error);
            f.runId = writer.runId();
        } catch (const std::exception&) {
            // The failure is still reported; the point runs again on resume.
        }
        std::lock_guard lock(summaryMutex);
        ++summary.failed;
        summary.failures.push_back(std::move(f));
    };

    // A finished point is prepared for the store (its rows built, its chunks encoded) by the thread that has it, so
    // that the store's turn only binds and steps statements: writing is the sweep's serial part. A point the store
    // cannot keep is stored failed with the reason, as one whose simulation throws. Returns the time it took.
    const auto prepare = [&](const SweepPoint& p, const sim::RunResult& result, std::vector<FinishedPoint>& to,
                             std::size_t producer) -> std::optional<double> {
        const auto t0 = Clock::now();
        try {
            to.push_back({p.index, store::prepareRun(store.path(), infoOf(p), result), producer});
        } catch (const Error& e) {
            storeFailure(p, e.what());
            ended(true);
            return std::nullopt;
        }
        return seconds(Clock::now() - t0);
    };

    // Finished points are stored one thread at a time, as many as have finished since the last write in one
    // transaction (RunStore::storeRuns): when the store falls behind the simulations, its batches grow instead of
    // its queue of commits. A point that cannot be stored is stored failed with the reason, as one that throws.
    const auto storeBatch = [&](std::vector<FinishedPoint>& batch) {
        std::vector<const store::PreparedRun*> runs;
        runs.reserve(batch.size());
        for (const auto& f : batch)
            runs.push_back(&f.run);
        std::vector<store::RunStore::StoredOutcome> outcomes;
        std::string batchError;
        const auto t0 = Clock::now();
        try {
            std::lock_guard lock(storeMutex);
            outcomes = store.storeRuns(runs);
        } catch (const std::exception& e) {
            batchError = e.what(); // none of the batch was stored
        }
        {
            std::lock_guard lock(summaryMutex);
            summary.storeS += seconds(Clock::now() - t0);
            ++summary.storeBatches;
        }
        for (std::size_t i = 0; i < batch.size(); ++i) {
            const std::string& error = batchError.empty() ? outcomes[i].error : batchError;
            if (error.empty()) {
                {
                    std::lock_guard lock(summaryMutex);
                    ++summary.ran;
                }
                ended(false);
            } else {
                storeFailure(plan.points[batch[i].index], error);
                ended(true);
            }
        }
    };

    // The log is copied into the file between turns at the store, not during them (wal_checkpointer.h).
    store::WalCheckpointer checkpointer(store.connection(), storeMutex);
    const SweepPageCache pageCache(store.connection(), storeMutex);

    // Points an estimate already simulated are stored as they are.
    std::unordered_map<std::size_t, SampledPoint*> sampled;
    for (auto& s : samples)
        sampled[s.index] = &s;
    std::vector<std::size_t> simulate;
    std::vector<FinishedPoint> sampledBatch;
    for (const std::size_t i : toRun) {
        const auto it = sampled.find(i);
        if (it == sampled.end()) {
            simulate.push_back(i);
            continue;
        }
        if (const auto encodeS = prepare(plan.points[i], it->second->result, sampledBatch, kNoProducer))
            summary.encodeS += *encodeS;
        if (sampledBatch.size() == kMaxBatch) {
            storeBatch(sampledBatch);
            sampledBatch.clear();
            checkpointer.checkpoint();
        }
    }
    if (!sampledBatch.empty())
        storeBatch(sampledBatch);

    // Points sharing a prepared workload run one after another, so that it is prepared once and freed after.
    std::map<std::string, std::size_t> firstOfWorkload;
    for (const std::size_t i : simulate)
        firstOfWorkload.emplace(plan.points[i].scenario->workloadKey, firstOfWorkload.size());
    std::stable_sort(simulate.begin(), simulate.end(), [&](std::size_t a, std::size_t b) {
        return firstOfWorkload[plan.points[a].scenario->workloadKey] <
               firstOfWorkload[plan.points[b].scenario->workloadKey];
    });
    for (const std::size_t i : simulate)
        cache.expect(*plan.points[i].scenario);

    FinishedPoints finished(std::max<std::size_t>(1, options.maxWaitingPoints), kMaxQueuedRecords);
    // No thread of its own writes the store: the simulating threads take turns at its one connection, so that
    // `jobs` threads are busy, the writing included (a writer thread beside them made --jobs 1 use two cores and
    // --jobs 2 three, and a default-scenario point costs the writer about what it costs its simulation:
    // docs/sweeps.md, "Thread pool").
    std::mutex writing;
    std::exception_ptr writerError; // both under `writing`
    auto lastWrite = Clock::now();
    // A stored point goes back to the thread that prepared it, to be freed there: glibc serves each thread from its
    // own arena and locks a block's arena to free it, so a writer freeing another thread's points took that arena's
    // lock against the thread's own allocations, hundreds of futex waits in a default-scenario sweep at --jobs 2
    // (docs/performance.md, "Sweeps").
    struct Spent
    {
        std::mutex mutex;
        std::vector<FinishedPoint> points;
    };
    std::deque<Spent> spent(static_cast<std::size_t>(std::max(1, options.jobs)));
    const auto giveBack = [&](std::vector<FinishedPoint>& batch, std::size_t self) {
        for (auto& point : batch)
            if (point.producer != self && point.producer < spent.size()) {
                std::lock_guard lock(spent[point.producer].mutex);
                spent[point.producer].points.push_back(std::move(point));
            }
    };
    // A simulating thread (`self`) writes one batch per turn: one that went on writing while another kept finishing
    // points became a writer that never simulated, storing a few points a transaction (docs/performance.md,
    // "Sweeps"). The sweep's last flush (kNoProducer, after every worker has ended) drains the queue and frees here.
    const auto writeFinished = [&](std::size_t self) { // holding `writing`
        const bool last = self == kNoProducer;
        for (auto batch = finished.take(kMaxBatch); !batch.empty();
             batch = last ? finished.take(kMaxBatch) : std::vector<FinishedPoint>{}) {
            if (writerError)
                continue; // dropped: the sweep ends with the error, and no thread may wait for room meanwhile
            try {
                storeBatch(batch);
            } catch (...) {
                writerError = std::current_exception(); // from the progress callback: the caller's to see
            }
            if (!last)
                giveBack(batch, self);
        }
        lastWrite = Clock::now();
    };
    // Batches of about half the queue, or what finished in the last kMaxStoreDelay when points are slow: large
    // enough that a commit is shared by many points, small enough that progress and a kill lose little.
    const std::size_t writeAt = std::max<std::size_t>(1, finished.maxPoints() / 2);
    const auto handOver = [&](FinishedPoint& point, std::size_t self) {
        while (!finished.tryPush(point)) {
            {
                std::lock_guard lock(writing); // full: write it, or wait for the thread writing it
                writeFinished(self);
            }
            checkpointer.checkpoint();
        }
        std::unique_lock lock(writing, std::try_to_lock);
        if (lock && (finished.size() >= writeAt || Clock::now() - lastWrite >= kMaxStoreDelay)) {
            writeFinished(self);
            lock.unlock(); // the next turn may start while this thread checkpoints
            checkpointer.checkpoint();
        }
    };
    std::atomic<std::size_t> next{0};
    std::atomic<std::size_t> notRun{0};
    std::atomic<std::size_t> workers{0};
    const auto worker = [&] {
        const std::size_t self = workers++;
        double simS = 0, prepS = 0, otherS = 0, encodeS = 0;
        std::vector<FinishedPoint> prepared, stored;
        const auto freeStored = [&] {
            {
                std::lock_guard lock(spent[self].mutex);
                stored.swap(spent[self].points);
            }
            stored.clear();
        };
        for (std::size_t n = next++; n < simulate.size(); n = next++) {
            freeStored();
            const SweepPoint& p = plan.points[simulate[n]];
            if (options.stop.stop_requested()) {
                cache.release(*p.scenario);
                ++notRun;
                continue;
            }
            const auto t0 = Clock::now();
            bool released = false;
            const auto release = [&] {
                if (!released)
                    cache.release(*p.scenario);
                released = true;
            };
            try {
                const auto workload = cache.get(*p.scenario);
                const auto t1 = Clock::now();
                auto policy = sched::makePolicy(p.policy);
                util::Progress progress;
                progress.stop = options.stop;
                const auto t2 = Clock::now();
                sim::RunResult result = sim::simulate(*workload, *policy, p.seed, progress);
                const auto t3 = Clock::now();
                release();
                if (result.cancelled) {
                    ++notRun; // abandoned: a resumed sweep runs it whole
                    continue;
                }
                prepS += seconds(t1 - t0);
                otherS += seconds(t2 - t1);
                simS += seconds(t3 - t2);
                const auto encoded = prepare(p, result, prepared, self);
                if (!encoded)
                    continue;
                encodeS += *encoded;
                // A finished point is stored even when a stop comes now: only running points are abandoned.
                handOver(prepared.back(), self);
                prepared.clear();
            } catch (const std::exception& e) {
                release();
                storeFailure(p, e.what());
                ended(true);
            }
        }
        freeStored();
        std::lock_guard lock(summaryMutex);
        summary.simulateS += simS;
        summary.prepareS += prepS;
        summary.otherS += otherS;
        summary.encodeS += encodeS;
    };
    util::runWorkers(options.jobs, simulate.size(), worker);
    {
        std::lock_guard lock(writing);
        writeFinished(kNoProducer);
        if (writerError)
            std::rethrow_exception(writerError);
    }
    summary.notRun = notRun;
    summary.stopped = options.stop.stop_requested();
    std::sort(summary.failures.begin(), summary.failures.end(),
              [](const PointFailure& a, const PointFailure& b) { return a.index < b.index; });
    summary.wallS = seconds(Clock::now() - start);
    return summary;
}

} // namespace orrery::sweep
