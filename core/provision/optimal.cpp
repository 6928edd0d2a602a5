#include "provision/allocator.h"
#include "provision/cmr_placer.h"
#include "provision/iteration_time.h"
#include "provision/pipeline_bounds.h"
#include "provision/search_state.h"
#include "provision/strategies.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <memory>

namespace orrery::provision {

namespace {

/** Conservative cost of one stage order (its layer-split search) for the up-front estimate. */
constexpr double kSecondsPerOrder = 1e-4;

struct Candidate
{
    int model = 0;  // index into the per-d models
    int bounds = 0; // index into the per-(d, k) bounds
    int k = 0;
    std::vector<int> counts; // stages per pool type
    double pricePerHour = 0; // all d*k GPUs
    double lowerIterS = 0;   // valid lower bound on T_iter for any order and split (PipelineBounds)
    double lowerCost = 0;
    double orders = 0; // distinct stage orders, k! / prod(c!)
};

void forEachMultiset(const std::vector<int>& quota, int k, const std::function<void(const std::vector<int>&)>& fn)
{
    std::vector<int> counts(quota.size(), 0);
    std::function<void(std::size_t, int)> rec = [&](std::size_t t, int left) {
        if (t == quota.size()) {
            if (left == 0)
                fn(counts);
            return;
        }
        for (int c = 0; c <= std::min(left, quota[t]); ++c) {
            counts[t] = c;
            rec(t + 1, left - c);
        }
        counts[t] = 0;
    };
    rec(0, k);
}

double orders(const std::vector<int>& counts)
{
    // k! / prod(c!), as a double (only an estimate).
    double lg = 0;
    int k = 0;
    for (int c : counts) {
        k += c;
        lg -= std::lgamma(c + 1.0);
    }
    return std::exp(lg + std::lgamma(k + 1.0));
}

struct Space
{
    std::vector<std::unique_ptr<PipelineModel>> models;
    std::vector<std::unique_ptr<PipelineBounds>> bounds;
    std::vector<Candidate> candidates; // multisets that can hold the model
    long long multisets = 0;           // all multisets within quota, held or not
};

Space buildSpace(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source)
{
    Space space;
    for (int d : powerOfTwoSizes(totalQuota(pool))) {
        if (!PipelineModel::validDp(job, d))
            continue;
        space.models.push_back(std::make_unique<PipelineModel>(job, pool, source, d));
        const PipelineModel& model = *space.models.back();
        const auto [kLo, kHi] = pipelineRange(model, true);
        std::vector<int> quota;
        for (const auto& g : pool)
            quota.push_back(stageQuota(g, d));
        for (int k = kLo; k <= kHi; ++k) {
            space.bounds.push_back(std::make_unique<PipelineBounds>(model, k));
            const PipelineBounds& bounds = *space.bounds.back();
            forEachMultiset(quota, k, [&](const std::vector<int>& counts) {
                ++space.multisets;
                Candidate c;
                c.lowerIterS = bounds.lowerIterS(counts);
                if (c.lowerIterS == INFINITY)
                    return; // no split of these stages holds the model
                c.model = static_cast<int>(space.models.size() - 1);
                c.bounds = static_cast<int>(space.bounds.size() - 1);
                c.k = k;
                c.counts = counts;
                for (std::size_t t = 0; t < counts.size(); ++t)
                    c.pricePerHour += counts[t] * d * pool[t].pricePerHour;
                c.lowerCost = job.iterations * c.lowerIterS * c.pricePerHour / 3600.0;
                c.orders = orders(counts);
                space.candidates.push_back(std::move(c));
            });
        }
    }
    return space;
}

/**
 * Exact best order and split of one multiset below a cut-off: a depth-first
 * search that picks the type and the layers of each stage in pipeline order,
 * so orders sharing a prefix share its work, and cuts a prefix only when a
 * PipelineBounds bound or the 1F1B bound of a placed stage reaches the cut-off.
 */
class OrderSearch
{
public:
    OrderSearch(const PipelineModel& model, const PipelineBounds& bounds, int k, SearchState* state)
        : m_model(model), m_bounds(bounds), m_k(k), m_state(state)
    {}

    Placement run(const std::vector<int>& counts, double capS)
    {
        m_cap = capS;
        m_best = {};
        m_left = counts;
        m_stages.assign(static_cast<std::size_t>(m_k), {});
        if (m_k >= 1)
            dfs(0, m_model.layers(), 0, 0, 0, -INFINITY, -INFINITY, -INFINITY);
        return m_best;
    }

private:
    void dfs(int s, int rest, double prefF, double prefB, double maxB, double idleBase, double maxSync, double pairs)
    {
        if (m_state) {
            m_state->checkCancel();
            ++m_state->stats().expanded;
        }
        const bool last = s == m_k - 1;
        const int later = m_k - 1 - s;
        const int m = m_model.microBatches();
        // Forwards stage s runs before its first backward, less the first one.
        const int early = std::min(m_k - s, m) - 1;
        const double p2p = m_model.p2pS();
        const double hops = s * p2p; // boundary crossings of micro-batch 0 to reach stage s
        for (int t = 0; t < m_model.types(); ++t) {
            auto& left = m_left[static_cast<std::size_t>(t)];
            if (left == 0)
                continue;
            --left;
            const int lm = m_model.maxLayers(t, s, m_k);
            const int lo = last ? rest : std::max(1, rest - m_bounds.capacity(m_left));
            const int hi = last ? rest : std::min(lm, rest - later);
            for (int l = lo; l <= std::min(hi, lm); ++l) {
                const double f = m_model.forwardS(t, l, s, m_k);
                const double b = m_model.backwardS(t, l, s, m_k);
                const double c = m_model.allReduceS(t, l, s, m_k);
                // Stage s starts micro-batch 0 after the earlier forwards and crossings, runs 2m passes,
                // and its last backward still has to flow back to stage 0 (or its own sync must finish).
                const double stageLower = prefF + hops + m * (f + b) + std::max(prefB + hops, c);
                if (stageLower >= m_cap)
                    break; // grows with l
                m_stages[static_cast<std::size_t>(s)] = {t, l};
                if (last) {
                    leaf();
                    continue;
                }
                // It also idles until micro-batch 0 returns from the later stages. That holds for every
                // placed stage j: T >= idle_j + (work of all placed stages) + (least work of the rest),
                // idle_j = stageLower_j - early_j f_j + 2 (k - 1 - j) p - W_{<=j}; keep the largest.
                const double after = m_bounds.minWorkS(rest - l, m_left, later);
                if (stageLower + std::max(0.0, after + 2 * later * p2p - early * f) >= m_cap)
                    continue;
                const double placedW = prefF + prefB + f + b;
                const double idle = std::max(idleBase, stageLower - early * f + 2 * later * p2p - placedW);
                // A stage j syncs after its last backward, which waits for the last backward of every
                // later stage i, itself after i idled as above: for j <= i,
                //   T >= sync_j + W_total + (m - 1) W_i - early_i f_i,
                //   sync_j = w_j + F_{<j} - W_{<j} + (2k - 2 - j) p.
                const double sync = std::max(maxSync, c - prefB + (2 * m_k - 2 - s) * p2p);
                const double pair = std::max(pairs, sync + (m - 1) * (f + b) - early * f);
                const double restPair =
                    sync + (m - 1) * m_bounds.maxBackwardLowerS(rest - l, m_left); // i among the later stages
                if (std::max({idle, pair, restPair}) + placedW + after >= m_cap)
                    continue;
                if (m_bounds.restLowerS(prefF + f, placedW, std::max(maxB, b), rest - l, m_left, later) >= m_cap)
                    continue;
                dfs(s + 1, rest - l, prefF + f, prefB + b, std::max(maxB, b), idle, sync, pair);
            }
            ++left;
        }
    }

    void leaf()
    {
        if (m_state)
            ++m_state->stats().placements;
        const double iter = iterationTimeS(m_model, m_stages, m_cap);
        if (iter < m_cap) {
            m_cap = iter;
            m_best.valid = true;
            m_best.iterationS = iter;
            m_best.stages = m_stages;
        }
    }

    const PipelineModel& m_model;
    const PipelineBounds& m_bounds;
    int m_k;
    SearchState* m_state;
    double m_cap = INFINITY;
    Placement m_best;
    std::vector<int> m_left;
    std::vector<Stage> m_stages;
};

/** Cheapest plan meeting the SLO or, with `seekFastest`, the fastest plan regardless of cost. */
void runOptimal(const Space& space, const ProvisionJob& job, SearchState& state, bool seekFastest)
{
    std::vector<const Candidate*> order;
    for (const auto& c : space.candidates)
        order.push_back(&c);
    std::stable_sort(order.begin(), order.end(), [seekFastest](const Candidate* a, const Candidate* b) {
        return seekFastest ? a->lowerIterS < b->lowerIterS : a->lowerCost < b->lowerCost;
    });
    const double slo = state.iterationSloS();
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Candidate* c = order[i];
        const PipelineModel& model = *space.models[static_cast<std::size_t>(c->model)];
        const PipelineBounds& bounds = *space.bounds[static_cast<std::size_t>(c->bounds)];
        OrderSearch search(model, bounds, c->k, &state);
        if (seekFastest) {
            const ProvisionPlan* fastest = state.fastest();
            const double cap = fastest ? fastest->iterationS : INFINITY;
            if (c->lowerIterS >= cap) {
                state.stats().prunedTcp += static_cast<long long>(order.size() - i);
                break;
            }
            state.offer(search.run(c->counts, cap), model.dp());
            continue;
        }
        if (c->lowerCost >= state.bestCost()) {
            // Sorted by the lower bound: nothing after this can be cheaper.
            state.stats().prunedCp += static_cast<long long>(order.size() - i);
            break;
        }
        if (c->lowerIterS > slo) {
            ++state.stats().prunedTcp;
            continue;
        }
        double cap = slo * (1 + 1e-12);
        if (state.hasFeasible())
            cap = std::min(cap, state.bestCost() * 3600.0 / (job.iterations * c->pricePerHour));
        state.offer(search.run(c->counts, cap), model.dp());
    }
}

/**
 * Espresso's plan for the same job: a plan of Optimal's space (BP's (d, k), the quotas) that starts
 * the search as its incumbent, so candidates whose lower bound cannot beat it are never searched.
 */
ProvisionResult espressoSeed(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                             const std::atomic<bool>* cancel)
{
    ProvisionOptions options;
    options.strategy = Strategy::Espresso;
    return allocate(
        job, pool, source, options,
        [](const PipelineModel& m, const std::vector<int>& types, double cut) {
            return cmrPlace(m, types, nullptr, cut);
        },
        cancel);
}

/** Offers the seed to `state` as a placement of Optimal's own model for its d (re-simulated, not trusted). */
void offerSeed(const Space& space, const ProvisionResult& seed, SearchState& state)
{
    if (!seed.hasPlan)
        return;
    for (const auto& model : space.models)
        if (model->dp() == seed.plan.dp) {
            Placement p;
            p.stages = seed.plan.stages;
            p.iterationS = iterationTimeS(*model, p.stages);
            p.valid = p.iterationS < INFINITY;
            state.offer(p, model->dp());
        }
}

/** What the search may still have to visit once the seed bounds it: surviving multisets and their orders. */
OptimalEstimate survivors(const Space& space, const ProvisionJob& job, const ProvisionResult& seed)
{
    OptimalEstimate e;
    e.multisets = space.multisets;
    e.held = static_cast<long long>(space.candidates.size());
    const double slo = job.sloS > 0 ? job.sloS / job.iterations : INFINITY;
    const double seedCost = seed.feasible ? seed.plan.cost : INFINITY;
    const double seedIter = seed.hasPlan ? seed.plan.iterationS : INFINITY;
    for (const auto& c : space.candidates) {
        // Pass one (cheapest meeting the SLO) and, when Espresso found no such plan, pass two (fastest).
        const bool first = c.lowerIterS <= slo && c.lowerCost < seedCost;
        const bool second = !seed.feasible && c.lowerIterS < seedIter;
        if (first || second) {
            ++e.candidates;
            e.orders += c.orders;
        }
    }
    e.seconds = e.orders * kSecondsPerOrder;
    return e;
}

} // namespace

Placement exhaustivePlace(const PipelineModel& model, const std::vector<int>& types, double cutoffS)
{
    const int k = static_cast<int>(types.size());
    std::vector<int> counts(static_cast<std::size_t>(model.types()), 0);
    for (int t : types)
        ++counts[static_cast<std::size_t>(t)];
    const PipelineBounds bounds(model, k);
    OrderSearch search(model, bounds, k, nullptr);
    return search.run(counts, cutoffS);
}

OptimalEstimate estimateOptimal(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source)
{
    return survivors(buildSpace(job, pool, source), job, espressoSeed(job, pool, source, nullptr));
}

ProvisionResult provisionOptimal(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source,
                                 const ProvisionOptions& options, const std::atomic<bool>* cancel)
{
    const auto start = std::chrono::steady_clock::now();
    const Space space = buildSpace(job, pool, source);
    const ProvisionResult seed = espressoSeed(job, pool, source, cancel);
    const OptimalEstimate estimate = survivors(space, job, seed);
    if (estimate.seconds > options.optimalBudgetS)
        throw Error("", "strategy",
                    fmt::format("optimal: {} of {} GPU multisets survive the lower bounds against Espresso's plan, "
                                "with up to {:.3g} stage orders (up to about {:.1f} h, budget {:.0f} s); use "
                                "espresso, or lower the quotas or the number of layers",
                                estimate.candidates, estimate.held, estimate.orders, estimate.seconds / 3600.0,
                                options.optimalBudgetS));
    SearchState state(job, pool, options, cancel);
    // The limit counts from the start of the call, the seed and the estimate included.
    state.setTimeLimit(options.optimalTimeLimitS, start);
    offerSeed(space, seed, state);
    SearchStats fastStats;
    if (!seed.feasible && job.sloS > 0) {
        // Espresso misses the SLO. The fastest plan of the space comes first: when even it misses,
        // that proves no plan meets the SLO (and it is the answer); otherwise it is a feasible
        // incumbent for the cost search, which then never runs without a cost cut-off.
        ProvisionJob relaxed = job;
        relaxed.sloS = 0;
        ProvisionOptions quiet = options;
        quiet.recordEvaluated = false;
        SearchState fast(relaxed, pool, quiet, cancel);
        fast.setTimeLimit(options.optimalTimeLimitS, start);
        offerSeed(space, seed, fast);
        runOptimal(space, relaxed, fast, true);
        const ProvisionPlan* fastest = fast.fastest();
        if (fastest)
            state.offer({true, fastest->stages, fastest->iterationS}, fastest->dp);
        fastStats = fast.finish().stats;
    }
    // When even the fastest plan misses the SLO, finish() returns it (already offered).
    const bool provenInfeasible = !seed.feasible && job.sloS > 0 && !state.hasFeasible();
    if (!provenInfeasible)
        runOptimal(space, job, state, false);
    ProvisionResult result = state.finish();
    result.stats.expanded += fastStats.expanded;
    result.stats.placements += fastStats.placements;
    result.stats.prunedTcp += fastStats.prunedTcp;
    result.stats.wallS = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return result;
}

} // namespace orrery::provision
