#include "provision/allocator.h"
#include "provision/iteration_time.h"
#include "provision/search_state.h"
#include "provision/strategies.h"

#include "io/error.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

namespace orrery::provision {

namespace {

/** Conservative cost of one stage order (its layer-split search) for the up-front estimate. */
constexpr double kSecondsPerOrder = 1e-4;

struct Candidate
{
    int model = 0; // index into the per-d models
    int k = 0;
    std::vector<int> counts; // stages per pool type
    double pricePerHour = 0; // all d*k GPUs
    double lowerIterS = 0;   // valid lower bound on T_iter for any order and split
    double lowerCost = 0;
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

double perLayerS(const PipelineModel& m, int t)
{
    return m.profile(t).layer.forwardS + m.profile(t).layer.backwardS;
}

struct Space
{
    std::vector<std::unique_ptr<PipelineModel>> models;
    std::vector<Candidate> candidates;
    double orders = 0;
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
            forEachMultiset(quota, k, [&](const std::vector<int>& counts) {
                Candidate c;
                c.model = static_cast<int>(space.models.size() - 1);
                c.k = k;
                c.counts = counts;
                double inverse = 0;
                for (std::size_t t = 0; t < counts.size(); ++t) {
                    c.pricePerHour += counts[t] * d * pool[t].pricePerHour;
                    const double u = perLayerS(model, static_cast<int>(t));
                    inverse += counts[t] * (u > 0 ? 1.0 / u : INFINITY);
                }
                // Some stage runs m forwards and m backwards of at least L / sum(1/u) layer-times.
                c.lowerIterS = model.microBatches() * model.layers() / inverse;
                c.lowerCost = job.iterations * c.lowerIterS * c.pricePerHour / 3600.0;
                space.orders += orders(counts);
                space.candidates.push_back(std::move(c));
            });
        }
    }
    return space;
}

/** Exact best order and split of one multiset, below `capS`. */
class SplitSearch
{
public:
    SplitSearch(const PipelineModel& model, int k, SearchState* state) : m_model(model), m_k(k), m_state(state) {}

    Placement run(std::vector<int> types, double capS)
    {
        m_cap = capS;
        m_best = {};
        std::sort(types.begin(), types.end());
        m_stages.assign(static_cast<std::size_t>(m_k), {});
        m_lm.assign(static_cast<std::size_t>(m_k), 0);
        m_inverseSuffix.assign(static_cast<std::size_t>(m_k) + 1, 0.0);
        do {
            if (m_state) {
                m_state->checkCancel();
                ++m_state->stats().expanded;
            }
            m_perm = types;
            for (int s = m_k - 1; s >= 0; --s) {
                const int t = m_perm[static_cast<std::size_t>(s)];
                m_lm[static_cast<std::size_t>(s)] = m_model.maxLayers(t, s, m_k);
                m_inverseSuffix[static_cast<std::size_t>(s)] =
                    m_inverseSuffix[static_cast<std::size_t>(s) + 1] + 1.0 / perLayerS(m_model, t);
            }
            dfs(0, m_model.layers(), 0, 0, 0);
        } while (std::next_permutation(types.begin(), types.end()));
        return m_best;
    }

private:
    void dfs(int s, int rest, double prefF, double prefB, double lower)
    {
        const int t = m_perm[static_cast<std::size_t>(s)];
        const int lm = m_lm[static_cast<std::size_t>(s)];
        const bool last = s == m_k - 1;
        const int lo = last ? rest : 1;
        const int hi = last ? rest : std::min(lm, rest - (m_k - 1 - s));
        if (lo < 1 || hi > lm)
            return;
        const int m = m_model.microBatches();
        for (int l = lo; l <= hi; ++l) {
            const double f = m_model.forwardS(t, l, s, m_k);
            const double b = m_model.backwardS(t, l, s, m_k);
            const double c = m_model.allReduceS(t, l, s, m_k);
            // Stage s starts micro-batch 0 after the earlier forwards, runs 2m passes, and its last
            // backward still has to flow back to stage 0 (or its own sync must finish).
            const double stageLower = prefF + m * (f + b) + std::max(prefB, c);
            if (stageLower >= m_cap)
                break; // grows with l
            const double bound = std::max(lower, stageLower);
            m_stages[static_cast<std::size_t>(s)] = {t, l};
            if (!last) {
                const double restLower =
                    prefF + f + m * (rest - l) / m_inverseSuffix[static_cast<std::size_t>(s) + 1];
                if (restLower >= m_cap)
                    continue; // shrinks as l grows
                dfs(s + 1, rest - l, prefF + f, prefB + b, bound);
                continue;
            }
            if (m_state)
                ++m_state->stats().placements;
            const double iter = iterationTimeOf();
            if (iter < m_cap) {
                m_cap = iter;
                m_best.valid = true;
                m_best.iterationS = iter;
                m_best.stages = m_stages;
            }
        }
    }

    double iterationTimeOf() const;

    const PipelineModel& m_model;
    int m_k;
    SearchState* m_state;
    double m_cap = INFINITY;
    Placement m_best;
    std::vector<int> m_perm;
    std::vector<int> m_lm;
    std::vector<double> m_inverseSuffix;
    std::vector<Stage> m_stages;
};

double SplitSearch::iterationTimeOf() const { return iterationTimeS(m_model, m_stages, m_cap); }

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
        std::vector<int> types;
        for (std::size_t t = 0; t < c->counts.size(); ++t)
            types.insert(types.end(), static_cast<std::size_t>(c->counts[t]), static_cast<int>(t));
        if (seekFastest) {
            const ProvisionPlan* fastest = state.fastest();
            const double cap = fastest ? fastest->iterationS : INFINITY;
            if (c->lowerIterS >= cap)
                break;
            SplitSearch search(model, c->k, &state);
            state.offer(search.run(types, cap), model.dp());
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
        SplitSearch search(model, c->k, &state);
        state.offer(search.run(types, cap), model.dp());
    }
}

} // namespace

Placement exhaustivePlace(const PipelineModel& model, const std::vector<int>& types, double cutoffS)
{
    SplitSearch search(model, static_cast<int>(types.size()), nullptr);
    return search.run(types, cutoffS);
}

OptimalEstimate estimateOptimal(const ProvisionJob& job, const std::vector<PoolGpu>& pool, const ProfileSource& source)
{
    const Space space = buildSpace(job, pool, source);
    return {space.orders, space.orders * kSecondsPerOrder};
}

ProvisionResult provisionOptimal(const ProvisionJob& job, const std::vector<PoolGpu>& pool,
                                 const ProfileSource& source, const ProvisionOptions& options,
                                 const std::atomic<bool>* cancel)
{
    const Space space = buildSpace(job, pool, source);
    const double seconds = space.orders * kSecondsPerOrder;
    if (seconds > options.optimalBudgetS)
        throw Error("", "strategy",
                    fmt::format("optimal: the exhaustive search may visit {:.3g} GPU orders (up to about {:.1f} h, "
                                "budget {:.0f} s); use espresso, or lower the quotas or the number of layers",
                                space.orders, seconds / 3600.0, options.optimalBudgetS));
    SearchState state(job, pool, options, cancel);
    runOptimal(space, job, state, false);
    ProvisionResult result = state.finish();
    if (!result.hasPlan && job.sloS > 0) {
        ProvisionJob relaxed = job;
        relaxed.sloS = 0;
        ProvisionOptions quiet = options;
        quiet.recordEvaluated = false;
        SearchState second(relaxed, pool, quiet, cancel);
        runOptimal(space, relaxed, second, true);
        if (const ProvisionPlan* fastest = second.fastest()) {
            result.hasPlan = true;
            result.plan = *fastest;
        }
        result.stats.wallS += second.finish().stats.wallS;
    }
    return result;
}

} // namespace orrery::provision
