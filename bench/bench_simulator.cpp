// Simulator throughput: 100,000 synthetic jobs on 10,000 GPUs (FIFO and Tiresias' LAS), and Gavel's
// 1,000-job Poisson trace under gavel_compat per policy. Figures in docs/performance.md ("## Simulator").
//
//   cmake --preset release -DORRERY_BUILD_BENCH=ON -DORRERY_WITH_GUI=OFF && cmake --build build-release -j2
//   build-release/bench/bench_simulator --benchmark_filter=Synthetic/fifo   (one per process for peak memory)
#include "synthetic_workload.h"

#include "io/scenario.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "sim/reference_scaling.h"
#include "sim/simulator.h"

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>

#include <sys/resource.h>

#include <cmath>
#include <filesystem>
#include <memory>
#include <random>

using namespace orrery;

namespace {

double peakRssMiB()
{
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    return static_cast<double>(usage.ru_maxrss) / 1024.0; // KiB on Linux
}

void report(benchmark::State& state, const sim::RunResult& r)
{
    state.counters["events"] = static_cast<double>(r.events);
    state.counters["events_per_s"] = r.wallS > 0 ? static_cast<double>(r.events) / r.wallS : 0;
    state.counters["decisions"] = static_cast<double>(r.decisions.size());
    state.counters["peak_rss_mib"] = peakRssMiB();
    double jct = 0;
    int n = 0;
    for (const auto& j : r.jobs)
        if (j.finished() && !j.excludedFromAverage) {
            jct += j.jctS();
            ++n;
        }
    state.counters["avg_jct_s"] = n ? jct / n : 0;
}

void BM_Synthetic(benchmark::State& state, const std::string& policyName)
{
    const auto& w = bench::syntheticWorkload();
    sim::RunResult last;
    for (auto _ : state) {
        auto policy = sched::makePolicy(policyName);
        last = sim::simulate(w, *policy, 0);
        benchmark::DoNotOptimize(last.makespanS);
    }
    report(state, last);
}

void BM_GavelTrace(benchmark::State& state, const std::string& policyName)
{
    const std::string dir = ORRERY_SHARED_DATA_DIR "/gavel/";
    if (!std::filesystem::exists(dir + "simulation_throughputs.json")) {
        state.SkipWithError("shared Gavel data not present");
        return;
    }
    nlohmann::json doc = {
        {"format", "orrery-scenario"},
        {"version", 1},
        {"name", "gavel"},
        {"cluster",
         {{"nodes",
           {{{"name", "v"}, {"gpu", "v100"}, {"count", 36}, {"gpus_per_node", 1}},
            {{"name", "p"}, {"gpu", "p100"}, {"count", 36}, {"gpus_per_node", 1}},
            {{"name", "k"}, {"gpu", "k80"}, {"count", 36}, {"gpus_per_node", 1}}}}}},
        {"workload", {{"trace", {{"format", "gavel"}, {"path", dir + "traces/poisson1000_1gpu_lam150_seed0.trace"}}}}},
        {"policies", {policyName}},
        {"options", {{"gavel_compat", true}, {"throughputs", dir + "simulation_throughputs.json"}}}};
    const auto w = sim::prepareScenario(io::parseScenario(doc, "gavel.json"));
    sim::RunResult last;
    for (auto _ : state) {
        auto policy = sched::makePolicy(policyName);
        last = sim::simulate(w, *policy, 0);
        benchmark::DoNotOptimize(last.makespanS);
    }
    report(state, last);
}

} // namespace

BENCHMARK_CAPTURE(BM_Synthetic, fifo, std::string("fifo"))->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_Synthetic, tiresias, std::string("tiresias"))->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK_CAPTURE(BM_GavelTrace, fifo, std::string("fifo"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GavelTrace, fifo_perf, std::string("fifo_perf"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GavelTrace, max_min_fairness, std::string("max_min_fairness"))->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_GavelTrace, max_min_fairness_perf, std::string("max_min_fairness_perf"))
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
