// The Sweeps tab's table of a 1,000-point sweep: how long sweep::loadSweepTable takes to read every point's run and
// summarise it (docs/performance.md, "Sweeps"). The store is made first (the default scenario, the five
// event-driven policies x 200 seeds, as the 1,000-point figure there), or named by ORRERY_SWEEP_DB (with
// ORRERY_SWEEP_NAME) to measure another.
#include "metrics/metrics.h"
#include "store/run_store.h"
#include "store/sweep_records.h"
#include "sweep/sweep_plan.h"
#include "sweep/sweep_runner.h"
#include "sweep/sweep_spec.h"
#include "sweep/sweep_table.h"
#include "sweep/workload_cache.h"

#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

using namespace orrery;

namespace {

struct Fixture
{
    std::string path;
    std::string sweep;
};

const Fixture& fixture()
{
    static const Fixture f = [] {
        if (const char* db = std::getenv("ORRERY_SWEEP_DB")) {
            const char* name = std::getenv("ORRERY_SWEEP_NAME");
            return Fixture{db, name ? name : "perf-1000"};
        }
        const auto dir = std::filesystem::temp_directory_path() / "orrery-bench-sweep-table";
        std::filesystem::create_directories(dir);
        Fixture out{(dir / "sweep-1000.sqlite").string(), "perf-1000"};
        if (std::filesystem::exists(out.path))
            return out;
        nlohmann::json seeds = nlohmann::json::array();
        for (int s = 0; s < 200; ++s)
            seeds.push_back(s);
        const nlohmann::json doc = {{"format", "orrery-sweep"},
                                    {"version", 1},
                                    {"name", out.sweep},
                                    {"axes",
                                     {{{"kind", "policy"}, {"values", {"fifo", "fifo_perf", "sjf", "edf", "tiresias"}}},
                                      {{"kind", "seed"}, {"values", seeds}}}}};
        const auto plan = sweep::resolveSweep(sweep::parseSweepSpec(doc, "perf-1000.json"));
        store::RunStore db(out.path);
        sweep::WorkloadCache cache;
        sweep::SweepRunOptions options;
        options.jobs = 2;
        sweep::runSweep(plan, db, options, cache);
        return out;
    }();
    return f;
}

store::RunStore openReadOnly(const std::string& path)
{
    store::RunStore::Options options;
    options.access = store::RunStore::Access::ReadOnly;
    return store::RunStore(path, options);
}

/** What the Sweeps tab does when a sweep is selected. */
void BM_LoadSweepTable(benchmark::State& state)
{
    const auto& f = fixture();
    std::size_t points = 0;
    for (auto _ : state) {
        auto db = openReadOnly(f.path);
        const auto table = sweep::loadSweepTable(db, f.sweep);
        points = table.points.size();
        benchmark::DoNotOptimize(points);
    }
    state.counters["points"] = static_cast<double>(points);
}
BENCHMARK(BM_LoadSweepTable)->Unit(benchmark::kMillisecond)->Iterations(3);

/** The same points read whole (RunStore::loadRun) and summarised: what the table cost before it read only what it
 *  shows. */
void BM_LoadWholeRuns(benchmark::State& state)
{
    const auto& f = fixture();
    for (auto _ : state) {
        auto db = openReadOnly(f.path);
        double sum = 0;
        for (const auto& row : store::sweepPoints(db.connection(), f.sweep))
            if (row.status == "completed")
                sum += metrics::summarize(db.loadRun(row.runId).result).p95JctS;
        benchmark::DoNotOptimize(sum);
    }
}
BENCHMARK(BM_LoadWholeRuns)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

BENCHMARK_MAIN();
