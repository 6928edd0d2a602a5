// The serving request simulator (core/serve): one million requests on 64 GPUs, the figure the placement
// search depends on (docs/performance.md, "Serving simulator").
#include "hardware/gpu_catalog.h"
#include "serve/arrivals.h"
#include "serve/placement.h"
#include "serve/request_simulator.h"

#include <benchmark/benchmark.h>

using namespace orrery;
using namespace orrery::serve;

namespace {

/** S1: 32 BERT-1.3B on 64 V100s, cut into groups of `groupGpus` GPUs (inter-op only), every model on every group
 * (as many as memory allows; BERT-1.3B fits several times on any of these groups). */
struct S1
{
    ServingProblem problem;
    Placement placement;
    Workload workload;
    std::vector<SimGroup> groups;
    SimOptions options;

    S1(int groupGpus, int modelsPerGroup, double totalRate)
        : problem(ServingProblem::fromCounts({{"bert-1.3b", 32}}, ServingLibrary::builtin(),
                                             hardware::GpuCatalog::builtin().at("v100-16gb"), 64))
    {
        ProfileCache cache(problem);
        for (int g = 0; g < 64 / groupGpus; ++g) {
            GroupPlacement group{{groupGpus, 1}, {}};
            for (int k = 0; k < modelsPerGroup; ++k)
                group.models.push_back((g * modelsPerGroup + k) % 32);
            placement.groups.push_back(group);
        }
        // 1,000,000 requests: 32 models sharing `totalRate` req/s, Gamma CV 3, for 10^6 / totalRate seconds.
        workload = gammaWorkload(std::vector<GammaProcess>(32, {totalRate / 32, 3.0}), 1e6 / totalRate, 1);
        groups = cache.simGroups(placement);
        options.sloS = cache.slos();
    }
};

void BM_ServeSimulate1M(benchmark::State& state)
{
    const S1 s1(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), double(state.range(2)));
    long long served = 0;
    for (auto _ : state) {
        const SimResult r = simulateRequests(s1.groups, s1.workload, s1.options);
        served = r.served;
        benchmark::DoNotOptimize(r.served);
    }
    state.counters["requests"] = double(s1.workload.requests.size());
    state.counters["attainment"] = double(served) / double(s1.workload.requests.size());
    state.SetItemsProcessed(state.iterations() * static_cast<long long>(s1.workload.requests.size()));
}
// Arguments: GPUs per group, models per group, total req/s. 64 one-GPU groups with 4 models each (every model
// on 8 groups), 16 four-stage groups with 8 models each, 8 eight-stage groups with 16; at 320 req/s (about
// three quarters of what 64 V100s serve of BERT-1.3B) and overloaded at 1,000 req/s.
BENCHMARK(BM_ServeSimulate1M)
    ->Args({1, 4, 320})
    ->Args({4, 8, 320})
    ->Args({8, 16, 320})
    ->Args({1, 4, 1000})
    ->Args({4, 8, 1000})
    ->Unit(benchmark::kMillisecond);

void BM_ServeGammaWorkload1M(benchmark::State& state)
{
    for (auto _ : state) {
        const Workload w = gammaWorkload(std::vector<GammaProcess>(32, {31.25, 3.0}), 1000, 1);
        benchmark::DoNotOptimize(w.requests.data());
    }
    state.SetItemsProcessed(state.iterations() * 1'000'000);
}
BENCHMARK(BM_ServeGammaWorkload1M)->Unit(benchmark::kMillisecond);

} // namespace

BENCHMARK_MAIN();
