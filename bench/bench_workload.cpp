// Workload expansion and trace import speed: the generator at 100,000 jobs, and
// the readers on the real traces. Figures: docs/performance.md "Trace import".
#include "io/scenario.h"
#include "io/workload_loader.h"
#include "workload/duration_distribution.h"
#include "workload/generator.h"
#include "workload/openb_trace.h"
#include "workload/philly_trace.h"

#include <benchmark/benchmark.h>

#include <fstream>

using namespace orrery::workload;

namespace {

std::string shared(const char* relative)
{
    const std::string path = std::string(ORRERY_SHARED_DATA_DIR) + "/" + relative;
    return std::ifstream(path) ? path : std::string();
}

void BM_Generate(benchmark::State& state)
{
    GeneratorSpec g;
    g.jobs = static_cast<int>(state.range(0));
    g.ratePerHour = 600;
    g.mix = {MixEntry{1.0, "gpt2-350m", {8, 16, 32}, {}}, MixEntry{1.0, "", {}, {1, 2, 4, 8}}};
    const auto durations = DurationDistribution::philly();
    for (auto _ : state)
        benchmark::DoNotOptimize(generateJobs(g, 1, ModelLibrary::builtin(), durations));
    state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Generate)->Arg(100000)->Unit(benchmark::kMillisecond);

// The whole path a simulation takes: parse a scenario of a few lines, expand, order, check ids.
void BM_LoadJobsGenerator(benchmark::State& state)
{
    const auto s = orrery::io::parseScenarioText(R"({"format": "orrery-scenario", "version": 1, "name": "g",
        "cluster": {"nodes": [{"gpu": "a100", "count": 1250, "gpus_per_node": 8}]},
        "workload": {"generator": {"jobs": 100000, "rate_per_hour": 600, "durations": "philly",
          "mix": [{"weight": 3, "model": "gpt2-350m", "batches": [8, 16, 32]}, {"gpus": [1, 2, 4, 8]}]}}})",
                                                 "g.json");
    for (auto _ : state)
        benchmark::DoNotOptimize(orrery::io::loadJobs(s));
    state.SetItemsProcessed(state.iterations() * 100000);
}
BENCHMARK(BM_LoadJobsGenerator)->Unit(benchmark::kMillisecond);

void BM_ReadPhillyCsv(benchmark::State& state)
{
    const std::string path = shared("pollux/philly.csv");
    if (path.empty()) {
        state.SkipWithError("shared data not present");
        return;
    }
    for (auto _ : state)
        benchmark::DoNotOptimize(readPhillyTrace(path));
    state.SetItemsProcessed(state.iterations() * 82247);
}
BENCHMARK(BM_ReadPhillyCsv)->Unit(benchmark::kMillisecond);

void BM_ReadOpenb(benchmark::State& state)
{
    const std::string path = shared("alibaba/openb_pod_list_default.csv");
    if (path.empty()) {
        state.SkipWithError("shared data not present");
        return;
    }
    for (auto _ : state)
        benchmark::DoNotOptimize(readOpenbPods(path));
    state.SetItemsProcessed(state.iterations() * 8152);
}
BENCHMARK(BM_ReadOpenb)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
