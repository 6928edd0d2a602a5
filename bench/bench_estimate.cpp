// Plan enumeration (MARP) for one job over 20 GPU types; target < 1 ms.
#include "estimate/plan.h"
#include "hardware/gpu_catalog.h"
#include "workload/model_library.h"

#include <benchmark/benchmark.h>

#include <algorithm>

using namespace orrery;

namespace {

std::vector<estimate::PlanTarget> twentyTypes()
{
    const auto& types = hardware::GpuCatalog::builtin().types();
    auto targets = estimate::targetsFromTypes(types, 64, {hardware::LinkKind::InfiniBand, 25, 5});
    // The 20 newest of the catalog's 25 (the 5 oldest fit almost nothing).
    targets.erase(targets.begin(), targets.end() - std::min<std::ptrdiff_t>(20, std::ssize(targets)));
    return targets;
}

void runPlans(benchmark::State& state, const char* modelName, int batch, int seq, bool pipeline)
{
    const auto targets = twentyTypes();
    const auto& model = workload::ModelLibrary::builtin().at(modelName);
    workload::TrainingConfig config;
    config.globalBatch = batch;
    config.seq = seq;
    config.microBatch = 1; // gradient accumulation: many layouts fit, so the ranking has work to do
    config.flashAttention = true;
    estimate::PlanOptions options;
    options.allowPipeline = pipeline;
    std::size_t plans = 0;
    for (auto _ : state) {
        auto result = estimate::rankPlans(model, config, targets, options);
        plans = result.size();
        benchmark::DoNotOptimize(result);
    }
    state.counters["types"] = double(targets.size());
    state.counters["plans"] = double(plans);
}

void BM_PlansLlama2_13B(benchmark::State& state)
{
    runPlans(state, "llama2-13b", 64, 4096, false);
}
void BM_PlansGpt2_7B(benchmark::State& state)
{
    runPlans(state, "gpt2-7b", 512, 1024, false);
}
void BM_PlansLlama2_70B_Pipeline(benchmark::State& state)
{
    runPlans(state, "llama2-70b", 256, 4096, true);
}

void BM_MemoryEstimate(benchmark::State& state)
{
    const auto& model = workload::ModelLibrary::builtin().at("llama2-13b");
    workload::TrainingConfig config;
    config.globalBatch = 64;
    for (auto _ : state)
        benchmark::DoNotOptimize(estimate::estimateMemory(model, config, {8, 4, 2}));
}

void BM_ThroughputEstimate(benchmark::State& state)
{
    const auto& model = workload::ModelLibrary::builtin().at("llama2-13b");
    workload::TrainingConfig config;
    config.globalBatch = 64;
    config.microBatch = 1;
    config.flashAttention = true;
    estimate::PlanTarget target;
    target.gpu = &hardware::GpuCatalog::builtin().at("h100-sxm");
    target.intraNode = target.gpu->intraLink;
    target.interNode = {hardware::LinkKind::InfiniBand, 25, 5};
    for (auto _ : state)
        benchmark::DoNotOptimize(estimate::estimateThroughput(model, config, {8, 4, 2}, target));
}

// rankPlans over every type of the catalog (the 25 of data/gpus.json), no pipelines.
/** rankPlans of `modelName` (global batch 64, sequence 4096, micro-batch 1, flash attention) over the whole catalog. */
void plansWholeCatalog(benchmark::State& state, const std::string& modelName, int zeroStage)
{
    const auto& types = hardware::GpuCatalog::builtin().types();
    const auto targets = estimate::targetsFromTypes(types, 64, {hardware::LinkKind::InfiniBand, 25, 5});
    const auto& model = workload::ModelLibrary::builtin().at(modelName);
    workload::TrainingConfig config;
    config.globalBatch = 64;
    config.seq = 4096;
    config.microBatch = 1;
    config.flashAttention = true;
    config.zeroStage = zeroStage;
    std::size_t plans = 0;
    for (auto _ : state) {
        auto result = estimate::rankPlans(model, config, targets);
        plans = result.size();
        benchmark::DoNotOptimize(result);
    }
    state.counters["types"] = double(targets.size());
    state.counters["plans"] = double(plans);
}

void BM_PlansWholeCatalog(benchmark::State& state)
{
    plansWholeCatalog(state, "llama2-13b", workload::TrainingConfig{}.zeroStage);
}

// Mixtral 8x7B (MoE): one estimate with expert parallelism, and rankPlans over the whole catalog, which
// enumerates ep too (every ep dividing dp and the 8 experts).
void BM_ThroughputEstimateMixtral(benchmark::State& state)
{
    const auto& model = workload::ModelLibrary::builtin().at("mixtral-8x7b");
    workload::TrainingConfig config;
    config.globalBatch = 256;
    config.microBatch = 1;
    config.flashAttention = true;
    config.virtualStages = 8;
    estimate::PlanTarget target;
    target.gpu = &hardware::GpuCatalog::builtin().at("h100-sxm");
    target.intraNode = target.gpu->intraLink;
    target.interNode = {hardware::LinkKind::InfiniBand, 50, 5};
    for (auto _ : state)
        benchmark::DoNotOptimize(estimate::estimateThroughput(model, config, {16, 1, 4, 8}, target));
}

void BM_PlansMixtralWholeCatalog(benchmark::State& state)
{
    plansWholeCatalog(state, "mixtral-8x7b", 1);
}

} // namespace

BENCHMARK(BM_ThroughputEstimate)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_PlansWholeCatalog)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlansLlama2_13B)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlansGpt2_7B)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_PlansLlama2_70B_Pipeline)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_MemoryEstimate)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_ThroughputEstimateMixtral)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_PlansMixtralWholeCatalog)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
