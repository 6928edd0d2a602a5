// Frenzy's HAS decision cost: one scheduling pass (HAS for every queued job, backfilling) as the
// queue and the cluster grow. Figures in docs/performance.md ("## Frenzy HAS").
//
// A "decision" is what the policy does on one event: scan the whole pending queue once. States:
// - busy: the steady state of a loaded cluster just after a completion: one node's 8 GPUs freed,
//   plus a few stray idle GPUs; most queued jobs find nothing and stay.
// - idle25: a quarter of the GPUs idle, scattered; many jobs start within the pass.
// - stuck: the worst case for a pass: GPUs are idle (one on each 11 GB node) but every queued plan
//   needs more memory, so HAS is called for every queued job and none starts.
// The GPUs a pass hands out are given back untimed before the next pass, so every iteration sees
// the same state.
#include "sched/has.h"
#include "sched/has_index.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <span>
#include <vector>

using namespace orrery::sched;

namespace {

constexpr double kSizesGiB[] = {11, 24, 40, 80};

std::vector<HasNode> makeNodes(int nodes, int gpusPerNode, double idleFraction, bool freshNode, std::mt19937& rng)
{
    std::vector<HasNode> out;
    std::bernoulli_distribution idle(idleFraction);
    for (int i = 0; i < nodes; ++i) {
        HasNode n{i, 0, kSizesGiB[i % 4]};
        for (int g = 0; g < gpusPerNode; ++g) {
            n.idleGpus += idle(rng) ? 1 : 0;
        }
        out.push_back(n);
    }
    if (freshNode) {
        out[static_cast<std::size_t>(nodes / 2)].idleGpus = gpusPerNode;
    }
    return out;
}

// MARP-like plan lists: 1-4 plans, GPU counts doubling and the per-GPU requirement falling with
// each fallback, as tensor parallelism splits the static memory.
std::vector<std::vector<HasPlan>> makeQueue(int jobs, double minReqGiB, std::mt19937& rng)
{
    std::uniform_int_distribution<int> firstN(0, 4); // 1..16 GPUs
    std::uniform_int_distribution<int> count(1, 4);
    std::uniform_real_distribution<double> req(6, 70);
    std::vector<std::vector<HasPlan>> q(static_cast<std::size_t>(jobs));
    for (auto& plans : q) {
        int n = 1 << firstN(rng);
        double r = req(rng);
        for (int k = count(rng); k > 0; --k) {
            plans.push_back({n, std::max(r, minReqGiB)});
            n *= 2;
            r *= 0.6;
        }
    }
    return q;
}

struct Setup
{
    std::vector<HasNode> nodes;
    std::vector<std::vector<HasPlan>> queue;
    std::vector<std::span<const HasPlan>> views;
};

enum class State { Busy, Idle25, Stuck };

Setup makeSetup(int nodes, int jobs, State state)
{
    std::mt19937 rng(42);
    Setup s;
    switch (state) {
    case State::Busy:
        s.nodes = makeNodes(nodes, 8, 0.01, true, rng);
        break;
    case State::Idle25:
        s.nodes = makeNodes(nodes, 8, 0.25, false, rng);
        break;
    case State::Stuck:
        s.nodes = makeNodes(nodes, 8, 0.0, false, rng);
        for (HasNode& n : s.nodes) {
            n.idleGpus = n.gpuMemoryGiB == kSizesGiB[0] ? 1 : 0;
        }
        break;
    }
    s.queue = makeQueue(jobs, state == State::Stuck ? kSizesGiB[0] + 1 : 0, rng);
    for (const auto& p : s.queue) {
        s.views.emplace_back(p);
    }
    return s;
}

void runPasses(benchmark::State& state, State which)
{
    const Setup s = makeSetup(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), which);
    HasIndex index(s.nodes);
    std::size_t started = 0;
    for (auto _ : state) {
        auto decisions = hasScheduleQueue(index, s.views);
        benchmark::DoNotOptimize(decisions.data());
        state.PauseTiming();
        started = decisions.size();
        for (const auto& d : decisions) {
            index.release(d.placement);
        }
        state.ResumeTiming();
    }
    state.counters["started"] = static_cast<double>(started);
    state.counters["idleGpus"] = index.totalIdleGpus();
}

void BM_HasPassBusy(benchmark::State& state)
{
    runPasses(state, State::Busy);
}

void BM_HasPassIdle25(benchmark::State& state)
{
    runPasses(state, State::Idle25);
}

void BM_HasPassStuck(benchmark::State& state)
{
    runPasses(state, State::Stuck);
}

// The literal Algorithm 1 (hasPlace) called for every queued job, for comparison: it rereads every
// node for every job. Only the busy state: its placements are not committed between jobs.
void BM_HasLiteralPassBusy(benchmark::State& state)
{
    const Setup s = makeSetup(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)), State::Busy);
    for (auto _ : state) {
        int placed = 0;
        for (const auto& plans : s.queue) {
            placed += hasPlace(s.nodes, plans).has_value() ? 1 : 0;
        }
        benchmark::DoNotOptimize(placed);
    }
}

// One job's HAS call on its own (plan retrieval + placement + release), 1,000-node cluster.
void BM_HasSingleJob(benchmark::State& state)
{
    const Setup s = makeSetup(static_cast<int>(state.range(0)), 1, State::Idle25);
    HasIndex index(s.nodes);
    const std::vector<HasPlan> plans{{16, 60}, {32, 30}};
    for (auto _ : state) {
        auto p = index.allocate(plans);
        benchmark::DoNotOptimize(p);
        if (p) {
            index.release(*p);
        }
    }
}

void queueCurve(benchmark::internal::Benchmark* b)
{
    for (int nodes : {6, 1000}) {
        for (int jobs : {10, 100, 1000, 10000}) {
            b->Args({nodes, jobs});
        }
    }
    b->ArgNames({"nodes", "queued"})->Unit(benchmark::kMicrosecond);
}

} // namespace

BENCHMARK(BM_HasPassBusy)->Apply(queueCurve);
BENCHMARK(BM_HasPassIdle25)->Apply(queueCurve);
BENCHMARK(BM_HasPassStuck)->Apply(queueCurve);
BENCHMARK(BM_HasLiteralPassBusy)->Args({1000, 1000})->ArgNames({"nodes", "queued"})->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_HasSingleJob)->Arg(1000)->ArgNames({"nodes"})->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
