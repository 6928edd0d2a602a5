// Espresso's 56-GPU provisioning search (the paper's Table I quotas and the
// four Table IV models at their SLOs), per strategy. Figures: docs/performance.md.

#include "hardware/gpu_catalog.h"
#include "provision/estimator_profile.h"
#include "provision/provision.h"
#include "provision/strategies.h"
#include "workload/model_library.h"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

using namespace orrery;
using namespace orrery::provision;

namespace {

const std::string kDir = std::string(ORRERY_SOURCE_DIR) + "/docs/experiments/espresso/";

struct Case
{
    const char* model;
    double sloS;
    int seq;
    int batch;
};
const Case kCases[] = {{"llama-1.3b", 500, 4096, 32},
                       {"llama-3b", 3700, 4096, 32},
                       {"llama-7b", 5500, 4096, 32},
                       {"vit-70", 1200, 197, 256}};

std::vector<PoolGpu> juchiPool()
{
    const auto catalog = hardware::GpuCatalog::fromFile(kDir + "juchi-gpus.json");
    std::vector<PoolGpu> pool;
    for (const auto& [name, quota] :
         std::vector<std::pair<std::string, int>>{{"a6000", 8}, {"a30", 16}, {"rtx3090", 16}, {"a4000", 16}})
        pool.push_back({catalog.at(name), quota, catalog.at(name).priceUsdPerHour});
    return pool;
}

void runCase(benchmark::State& state, Strategy strategy, double bandwidthGbitS)
{
    const Case& c = kCases[state.range(0)];
    ProvisionJob job;
    job.model = workload::resolveModel(kDir + c.model + ".json");
    job.training.globalBatch = c.batch;
    job.training.seq = c.seq;
    job.training.recompute = workload::Recompute::Full;
    job.iterations = 100;
    job.sloS = c.sloS;
    job.interBandwidthGbitS = bandwidthGbitS;
    const auto pool = juchiPool();
    const EstimatorProfileSource source({{"a30", 0.43}, {"a6000", 0.47}, {"a4000", 0.55}, {"rtx3090", 0.45}});
    ProvisionOptions options;
    options.strategy = strategy;
    long long expanded = 0;
    for (auto _ : state) {
        const auto r = provisionGpus(job, pool, source, options);
        expanded = r.stats.expanded;
        benchmark::DoNotOptimize(r.plan.cost);
    }
    state.SetLabel(c.model);
    state.counters["expanded"] = static_cast<double>(expanded);
}

/** Optimal, with what Espresso's plan leaves it to search (estimateOptimal) as counters. */
void runOptimal(benchmark::State& state, double bandwidthGbitS)
{
    runCase(state, Strategy::Optimal, bandwidthGbitS);
    const Case& c = kCases[state.range(0)];
    ProvisionJob job;
    job.model = workload::resolveModel(kDir + c.model + ".json");
    job.training.globalBatch = c.batch;
    job.training.seq = c.seq;
    job.training.recompute = workload::Recompute::Full;
    job.iterations = 100;
    job.sloS = c.sloS;
    job.interBandwidthGbitS = bandwidthGbitS;
    const EstimatorProfileSource source({{"a30", 0.43}, {"a6000", 0.47}, {"a4000", 0.55}, {"rtx3090", 0.45}});
    const auto e = estimateOptimal(job, juchiPool(), source);
    state.counters["multisets"] = static_cast<double>(e.multisets);
    state.counters["surviving"] = static_cast<double>(e.candidates);
    state.counters["orders"] = e.orders;
}

void BM_Espresso(benchmark::State& s)
{
    runCase(s, Strategy::Espresso, 2.5);
}
void BM_Optimal(benchmark::State& s)
{
    runOptimal(s, 2.5);
}
void BM_OptimalCodeBandwidth(benchmark::State& s)
{
    runOptimal(s, 2.5 * 8 * 1.073741824);
}
void BM_EspressoCodeBandwidth(benchmark::State& s)
{
    runCase(s, Strategy::Espresso, 2.5 * 8 * 1.073741824);
}
void BM_WhalePlus(benchmark::State& s)
{
    runCase(s, Strategy::WhalePlus, 2.5);
}
void BM_HphPlus(benchmark::State& s)
{
    runCase(s, Strategy::HphPlus, 2.5);
}
void BM_SiaPlus(benchmark::State& s)
{
    runCase(s, Strategy::SiaPlus, 2.5);
}

} // namespace

BENCHMARK(BM_Espresso)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EspressoCodeBandwidth)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WhalePlus)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HphPlus)->DenseRange(0, 3)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_SiaPlus)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Optimal)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OptimalCodeBandwidth)->DenseRange(0, 3)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
