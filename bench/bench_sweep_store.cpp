// What storing a sweep's point costs beyond its simulation (issue 18: under 5 ms a point), and what the sweep writer's
// batches save: a default-scenario run (60 jobs, the 1,000-point figure of docs/performance.md, "Sweeps") stored one
// transaction per run against 64 runs per transaction, into a store that grows as a sweep's does. The connection's
// kept statements serve both. Then the split a sweep makes: preparing a point (its simulating thread) and storing
// prepared points (its one writer), and what merging a shard of points costs (the alternative to one writer: a store
// per thread, merged after). Figures and the command line: docs/performance.md, "Sweeps".
#include "io/run_info.h"
#include "io/scenario.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "sim/simulator.h"
#include "store/prepared_run.h"
#include "store/run_merge.h"
#include "store/run_store.h"
#include "store/wal_checkpointer.h"

#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

using namespace orrery;

namespace {

struct Point
{
    store::RunInfo info;
    sim::RunResult result;
};

/** One simulated point of the default scenario (fifo), tagged as a sweep's point; keys made distinct per store. */
const Point& point()
{
    static const Point p = [] {
        const io::Scenario scenario = io::defaultScenario();
        const auto workload = sim::prepareScenario(scenario);
        auto policy = sched::makePolicy("fifo");
        Point out{io::runInfoOf(scenario, "fifo", 1), sim::simulate(workload, *policy, 1)};
        out.info.sweep = store::SweepTag{"bench", "", "{\"policy\":\"fifo\",\"seed\":1}"};
        return out;
    }();
    return p;
}

std::unique_ptr<store::RunStore> freshStore(const std::string& name)
{
    const auto path = std::filesystem::temp_directory_path() / ("orrery-bench-sweep-store-" + name + ".sqlite");
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path.string() + suffix);
    return std::make_unique<store::RunStore>(path.string());
}

/** Stores state.range(0) runs per transaction, 64 runs per iteration (items: runs). */
void BM_StoreSweepPoints(benchmark::State& state)
{
    const auto perTransaction = static_cast<std::size_t>(state.range(0));
    auto db = freshStore(fmt::format("batch-{}", perTransaction));
    constexpr std::size_t kRunsPerIteration = 64;
    std::vector<store::RunInfo> infos(kRunsPerIteration, point().info);
    std::size_t stored = 0;
    for (auto _ : state) {
        for (auto& info : infos)
            info.sweep->pointKey = fmt::format("{:016x}", stored++);
        for (std::size_t first = 0; first < kRunsPerIteration; first += perTransaction) {
            if (perTransaction == 1) {
                db->storeRun(infos[first], point().result);
                continue;
            }
            std::vector<store::RunStore::RunToStore> batch;
            for (std::size_t i = first; i < first + perTransaction && i < kRunsPerIteration; ++i)
                batch.push_back({&infos[i], &point().result});
            benchmark::DoNotOptimize(db->storeRuns(batch));
        }
    }
    // Per run: the time per iteration / 64.
    state.SetItemsProcessed(static_cast<std::int64_t>(stored));
}
BENCHMARK(BM_StoreSweepPoints)->Arg(1)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

/** What a sweep's simulating thread now does for the store per point (store::prepareRun: the summary, the chunks
 *  encoded, the scenario hashed), off the writer. */
void BM_PrepareSweepPoint(benchmark::State& state)
{
    for (auto _ : state)
        benchmark::DoNotOptimize(store::prepareRun("bench.sqlite", point().info, point().result));
}
BENCHMARK(BM_PrepareSweepPoint)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

/** What is left to the sweep's one writer: storeRuns of prepared runs, state.range(0) per transaction (items:
 *  runs). */
void BM_StorePreparedSweepPoints(benchmark::State& state)
{
    const auto perTransaction = static_cast<std::size_t>(state.range(0));
    auto db = freshStore(fmt::format("prepared-{}", perTransaction));
    constexpr std::size_t kRunsPerIteration = 64;
    std::vector<store::PreparedRun> runs(kRunsPerIteration,
                                         store::prepareRun(db->path(), point().info, point().result));
    std::size_t stored = 0;
    for (auto _ : state) {
        for (auto& run : runs)
            run.info.sweep->pointKey = fmt::format("{:016x}", stored++);
        for (std::size_t first = 0; first < kRunsPerIteration; first += perTransaction) {
            std::vector<const store::PreparedRun*> batch;
            for (std::size_t i = first; i < first + perTransaction && i < kRunsPerIteration; ++i)
                batch.push_back(&runs[i]);
            benchmark::DoNotOptimize(db->storeRuns(batch));
        }
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(stored));
}
BENCHMARK(BM_StorePreparedSweepPoints)->Arg(1)->Arg(64)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

/** The sweep's serial part as a sweep has it: the same 64-point transactions with the WAL checkpointed between them
 *  (store::WalCheckpointer, as the sweep's threads do after their turn), outside the timing. The checkpoints' own
 *  CPU is then in BM_StorePreparedSweepPoints/64 less this (items: runs). */
void BM_StorePreparedSweepPointsCheckpointedApart(benchmark::State& state)
{
    auto db = freshStore("prepared-apart");
    std::mutex lock;
    store::WalCheckpointer checkpointer(db->connection(), lock);
    constexpr std::size_t kRunsPerIteration = 64;
    std::vector<store::PreparedRun> runs(kRunsPerIteration,
                                         store::prepareRun(db->path(), point().info, point().result));
    std::vector<const store::PreparedRun*> batch;
    for (const auto& run : runs)
        batch.push_back(&run);
    std::size_t stored = 0;
    for (auto _ : state) {
        for (auto& run : runs)
            run.info.sweep->pointKey = fmt::format("{:016x}", stored++);
        {
            std::lock_guard guard(lock);
            benchmark::DoNotOptimize(db->storeRuns(batch));
        }
        state.PauseTiming();
        checkpointer.checkpoint();
        state.ResumeTiming();
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(stored));
}
BENCHMARK(BM_StorePreparedSweepPointsCheckpointedApart)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

/** What a store per simulating thread, merged after (issue 18), would add to the sweep's serial part: the merge of a
 *  shard of state.range(0) points into a new store (`orrery-cli runs merge`'s code), per point (items: runs). Its
 *  cost against BM_StorePreparedSweepPoints/64 decides whether shards pay: docs/performance.md, "Sweeps". */
void BM_MergeSweepPoints(benchmark::State& state)
{
    const auto points = static_cast<std::size_t>(state.range(0));
    auto shard = freshStore(fmt::format("shard-{}", points));
    {
        const auto prepared = store::prepareRun(shard->path(), point().info, point().result);
        std::vector<store::PreparedRun> runs(points, prepared);
        std::vector<const store::PreparedRun*> batch;
        for (std::size_t i = 0; i < points; ++i) {
            runs[i].info.sweep->pointKey = fmt::format("{:016x}", i);
            batch.push_back(&runs[i]);
        }
        shard->storeRuns(batch);
    }
    const std::string shardPath = shard->path();
    shard.reset(); // closed, its WAL checkpointed, as a finished worker's shard would be
    std::size_t merged = 0;
    for (auto _ : state) {
        state.PauseTiming();
        auto destination = freshStore(fmt::format("merged-{}", points));
        state.ResumeTiming();
        benchmark::DoNotOptimize(store::mergeRunStores(*destination, {shardPath}));
        merged += points;
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(merged));
}
BENCHMARK(BM_MergeSweepPoints)->Arg(512)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

/** The simulation of the same point, for scale. */
void BM_SimulateSweepPoint(benchmark::State& state)
{
    const io::Scenario scenario = io::defaultScenario();
    const auto workload = sim::prepareScenario(scenario);
    for (auto _ : state) {
        auto policy = sched::makePolicy("fifo");
        benchmark::DoNotOptimize(sim::simulate(workload, *policy, 1));
    }
}
BENCHMARK(BM_SimulateSweepPoint)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();

} // namespace

BENCHMARK_MAIN();
