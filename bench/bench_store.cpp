// Run store cost against simulation cost: storing a run must not dominate making it.
// Figures and the command line: docs/performance.md, "Run store".
#include "synthetic_workload.h"

#include "io/scenario.h"
#include "sched/run_policies.h"
#include "sim/prepare_scenario.h"
#include "store/run_store.h"
#include "store/sqlite.h"

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>

using namespace orrery;

namespace {

/** 8x8 V100 + 4x4 K80, Poisson arrivals of 1/2/4-GPU jobs with Philly-like durations. */
io::Scenario scenarioOf(int jobs)
{
    return io::parseScenarioText(fmt::format(R"({{"format":"orrery-scenario","version":1,"name":"bench {0}",
        "cluster":{{"nodes":[{{"name":"v100","gpu":"v100","count":8,"gpus_per_node":8}},
                             {{"name":"k80","gpu":"k80","count":4,"gpus_per_node":4}}],
                   "network":{{"kind":"ethernet","bandwidth_gbit_s":25}}}},
        "workload":{{"generator":{{"jobs":{0},"rate_per_hour":120,"seed":1,"mix":[{{"gpus":[1,2,4]}}]}}}}}})",
                                             jobs),
                                 "bench");
}

struct Prepared
{
    io::Scenario scenario;
    sim::PreparedWorkload workload;
    sim::RunResult fifo; ///< one simulated run, the input of the store benchmarks
};

const Prepared& prepared(int jobs)
{
    static std::map<int, std::unique_ptr<Prepared>> cache;
    auto& p = cache[jobs];
    if (!p) {
        auto scenario = scenarioOf(jobs);
        auto workload = sim::prepareScenario(scenario);
        auto run = sched::runPolicies(workload, {"fifo"}, 1).front();
        p = std::make_unique<Prepared>(Prepared{std::move(scenario), std::move(workload), std::move(run)});
    }
    return *p;
}

store::RunInfo infoOf(const Prepared& p)
{
    store::RunInfo info;
    info.scenarioName = p.scenario.name;
    info.scenarioJson = io::scenarioToJsonText(p.scenario);
    info.policy = "fifo";
    store::setClusterOf(info, p.workload.cluster());
    return info;
}

std::string freshPath()
{
    const auto path = (std::filesystem::temp_directory_path() / "orrery_bench_store.sqlite").string();
    for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path + suffix);
    return path;
}

void setCounters(benchmark::State& state, const sim::RunResult& r)
{
    state.counters["jobs"] = static_cast<double>(r.jobs.size());
    state.counters["rows"] =
        static_cast<double>(r.jobs.size() + r.intervals.size() + r.utilization.size() + r.decisions.size());
}

/** The simulation alone, what storing is compared with (fifo), and a preemptive policy for scale (tiresias). */
void BM_Simulate(benchmark::State& state, const std::string& policy)
{
    const auto& p = prepared(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        auto runs = sched::runPolicies(p.workload, {policy}, 1);
        benchmark::DoNotOptimize(runs);
    }
    setCounters(state, p.fifo);
}

/** The timed loop of the store benchmarks: `run` stored in one go (RunStore::storeRun) into a new file. */
void storeEachIteration(benchmark::State& state, const store::RunInfo& info, const sim::RunResult& run)
{
    for (auto _ : state) {
        state.PauseTiming();
        const auto path = freshPath();
        state.ResumeTiming();
        store::RunStore db(path);
        benchmark::DoNotOptimize(db.storeRun(info, run));
    }
    setCounters(state, run);
}

/** Storing the small-cluster fifo run. */
void BM_StoreRun(benchmark::State& state)
{
    const auto& p = prepared(static_cast<int>(state.range(0)));
    storeEachIteration(state, infoOf(p), p.fifo);
}

/** What `simulate --db` does: simulate while a RunWriter stores partial results every 0.25 s, then finish. */
void BM_SimulateFifoStoringIncrementally(benchmark::State& state)
{
    const auto& p = prepared(static_cast<int>(state.range(0)));
    const auto info = infoOf(p);
    for (auto _ : state) {
        state.PauseTiming();
        const auto path = freshPath();
        state.ResumeTiming();
        store::RunStore db(path);
        auto writer = db.beginRun(info);
        auto last = std::chrono::steady_clock::now();
        auto runs = sched::runPolicies(p.workload, {"fifo"}, 1, 1, {}, [&](std::size_t, const sim::RunResult& r) {
            const auto now = std::chrono::steady_clock::now();
            if (now - last >= std::chrono::milliseconds(250)) {
                writer.sync(r);
                last = now;
            }
        });
        writer.finish(runs.front(), store::RunStatus::Completed);
    }
    setCounters(state, p.fifo);
}

/** The simulator benchmark's 100,000 jobs on 10,000 GPUs (bench_simulator), simulated once with `policy`. */
const sim::RunResult& bigRun(const std::string& policy)
{
    static std::map<std::string, sim::RunResult> runs;
    auto it = runs.find(policy);
    if (it == runs.end())
        it = runs.emplace(policy, sched::runPolicies(bench::syntheticWorkload(), {policy}, 0).front()).first;
    return it->second;
}

store::RunInfo bigInfo(const std::string& policy)
{
    const auto& w = bench::syntheticWorkload();
    store::RunInfo info;
    info.scenarioName = "bench 10k GPUs";
    info.scenarioJson = "{}";
    info.policy = policy;
    store::setClusterOf(info, w.cluster());
    return info;
}

/** Simulating the 10,000-GPU workload (as bench_simulator's BM_Synthetic), for comparison with storing it. */
void BM_SimulateBig(benchmark::State& state, const std::string& policy)
{
    const auto& w = bench::syntheticWorkload();
    for (auto _ : state) {
        auto runs = sched::runPolicies(w, {policy}, 0);
        benchmark::DoNotOptimize(runs);
    }
    setCounters(state, bigRun(policy));
}

/** Storing that run (its 10,000 GPUs included) in a new file. */
void BM_StoreBig(benchmark::State& state, const std::string& policy)
{
    storeEachIteration(state, bigInfo(policy), bigRun(policy));
}

/** Creating an empty store (schema and migrations): the fixed part of the store benchmarks above. */
void BM_CreateStore(benchmark::State& state)
{
    for (auto _ : state) {
        state.PauseTiming();
        const auto path = freshPath();
        state.ResumeTiming();
        store::RunStore db(path);
        benchmark::DoNotOptimize(db.path());
    }
}

/** Reading a run back (what the GUI does when a run is opened). */
void BM_LoadRun(benchmark::State& state)
{
    const auto& p = prepared(static_cast<int>(state.range(0)));
    const auto path = freshPath();
    store::RunStore db(path);
    const auto id = db.storeRun(infoOf(p), p.fifo);
    for (auto _ : state)
        benchmark::DoNotOptimize(db.loadRun(id));
    setCounters(state, p.fifo);
}

/**
 * The design schema 4 decided against (docs/database.md, "Why chunks"): the small-cluster run's
 * 100,000 job records as one plain SQL row each, 17 columns, bound and inserted 64 rows per
 * statement in one transaction, WAL, closed (checkpointed) at the end; nothing else is stored.
 * Arg 1: the `(run_id, job_index)` primary key schema 3 had; arg 0: a rowid table with no key.
 */
void BM_PlainJobRows(benchmark::State& state)
{
    const bool keyed = state.range(0) != 0;
    const auto& jobs = prepared(100000).fifo.jobs;
    constexpr int kColumns = 17, kRowsPerStatement = 64;
    const auto insertSql = [](int rows) {
        std::string sql = "INSERT INTO jobs VALUES ";
        for (int r = 0; r < rows; ++r) {
            sql += r ? ", (" : "(";
            for (int c = 0; c < kColumns; ++c)
                sql += c ? ", ?" : "?";
            sql += ')';
        }
        return sql;
    };
    for (auto _ : state) {
        state.PauseTiming();
        const auto path = freshPath();
        state.ResumeTiming();
        store::Connection db(path, store::Connection::Mode::ReadWriteCreate);
        db.exec("PRAGMA page_size = 16384; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; "
                "PRAGMA cache_size = -32768");
        db.exec(fmt::format("CREATE TABLE jobs (run_id INTEGER NOT NULL, job_index INTEGER NOT NULL, job_id TEXT NOT "
                            "NULL, model TEXT NOT NULL, user TEXT NOT NULL, arrival_s REAL NOT NULL, start_s REAL, "
                            "end_s REAL, gpus INTEGER NOT NULL, gpu_type TEXT NOT NULL, restarts INTEGER NOT NULL, "
                            "gpu_seconds REAL NOT NULL, cost_usd REAL NOT NULL, ideal_s REAL NOT NULL, nodes INTEGER "
                            "NOT NULL, demand INTEGER NOT NULL, excluded_from_average INTEGER NOT NULL{}",
                            keyed ? ", PRIMARY KEY (run_id, job_index)) WITHOUT ROWID" : ")"));
        store::Statement many(db, insertSql(kRowsPerStatement)), one(db, insertSql(1));
        store::Transaction tx(db);
        std::size_t i = 0;
        while (i < jobs.size()) {
            const int rows = jobs.size() - i >= kRowsPerStatement ? kRowsPerStatement : 1;
            store::Statement& s = rows == 1 ? one : many;
            for (int r = 0; r < rows; ++r, ++i) {
                const auto& j = jobs[i];
                const int b = r * kColumns;
                s.bind(b + 1, std::int64_t(1))
                    .bind(b + 2, static_cast<std::int64_t>(i))
                    .bindStatic(b + 3, j.id)
                    .bindStatic(b + 4, j.model)
                    .bindStatic(b + 5, j.user)
                    .bind(b + 6, j.arrivalS)
                    .bind(b + 7, j.startS >= 0 ? std::optional<double>(j.startS) : std::nullopt)
                    .bind(b + 8, j.finished() ? std::optional<double>(j.endS) : std::nullopt)
                    .bind(b + 9, j.gpus)
                    .bindStatic(b + 10, j.gpuType)
                    .bind(b + 11, j.restarts)
                    .bind(b + 12, j.gpuSeconds)
                    .bind(b + 13, j.costUsd)
                    .bind(b + 14, j.idealS)
                    .bind(b + 15, j.nodes)
                    .bind(b + 16, j.demand)
                    .bind(b + 17, j.excludedFromAverage ? 1 : 0);
            }
            s.run();
        }
        tx.commit();
    }
    state.counters["jobs"] = static_cast<double>(jobs.size());
}

} // namespace

BENCHMARK_CAPTURE(BM_Simulate, fifo, std::string("fifo"))
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
BENCHMARK_CAPTURE(BM_Simulate, tiresias, std::string("tiresias"))
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(1.0);
BENCHMARK(BM_StoreRun)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_SimulateFifoStoringIncrementally)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_PlainJobRows)->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_LoadRun)->Arg(100000)->Unit(benchmark::kMillisecond)->MinTime(1.0);

BENCHMARK_CAPTURE(BM_SimulateBig, fifo, std::string("fifo"))->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_StoreBig, fifo, std::string("fifo"))->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_SimulateBig, tiresias, std::string("tiresias"))->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK_CAPTURE(BM_StoreBig, tiresias, std::string("tiresias"))->Unit(benchmark::kMillisecond)->MinTime(1.0);

BENCHMARK(BM_CreateStore)->Unit(benchmark::kMillisecond)->MinTime(1.0);

BENCHMARK_MAIN();
