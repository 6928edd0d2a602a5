#include "sched/sia_ilp.h"

#include "opt/linear_model.h"
#include "opt/milp.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace orrery::sched {

double siaWeight(const SiaJob& job, int config, const SiaIlpOptions& options)
{
    const auto& c = job.configs[static_cast<std::size_t>(config)];
    const double v = config == job.current ? c.value : c.value * job.restartFactor;
    // sia.py __power_up_speedup_matrix: values of 1e-4 stand for "no gain" (ZERO_ALLOC_GAIN), rounded to 2 decimals
    // and clipped; a restart factor of 0 lands there too.
    const double pup = std::pow(std::max(v, 1e-4), options.p);
    return std::min(options.clip, std::round(pup * 100.0) / 100.0);
}

namespace {

/** A configuration offered to the ILP: its index in the job's list, its type, GPUs and cost. */
struct Offer
{
    int config;
    int type;
    int gpus;
    /** Its objective term less leaving the job without GPUs, in the minimising sense: below 0 it beats none. */
    double cost;
};

std::vector<Offer> offersOf(const SiaJob& job, const SiaIlpOptions& options)
{
    std::vector<Offer> all;
    for (int c = 0; c < static_cast<int>(job.configs.size()); ++c) {
        const auto& cfg = job.configs[static_cast<std::size_t>(c)];
        const double coef = siaWeight(job, c, options) - options.lambdaN;
        all.push_back({c, cfg.type, cfg.gpus, options.p < 0 ? coef : -coef});
    }
    if (!options.prune)
        return all;
    // Dominance: an offer that costs no less than one of the same type with no more GPUs (or than none, which
    // uses no GPUs) can be swapped for it in any feasible assignment without raising the objective, so some
    // optimum avoids it. Scanning a type by GPUs, an offer stays only if it is strictly cheaper than all before.
    std::vector<std::size_t> order(all.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        if (all[a].type != all[b].type)
            return all[a].type < all[b].type;
        if (all[a].gpus != all[b].gpus)
            return all[a].gpus < all[b].gpus;
        return all[a].cost < all[b].cost;
    });
    std::vector<char> keep(all.size(), 0);
    double cheapest = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        const Offer& o = all[order[i]];
        if (i == 0 || o.type != all[order[i - 1]].type)
            cheapest = 0;
        if (o.cost < cheapest) {
            keep[order[i]] = 1;
            cheapest = o.cost;
        }
    }
    std::vector<Offer> kept;
    for (std::size_t i = 0; i < all.size(); ++i) // in the job's own order, so ties break as without pruning
        if (keep[i])
            kept.push_back(all[i]);
    return kept;
}

/** Offer indices per job (-1: none) with the GPUs they use per type and their total cost. */
struct Assignment
{
    std::vector<int> choice;
    std::vector<long long> used;
    double cost = 0;

    Assignment(std::size_t jobs, std::size_t types) : choice(jobs, -1), used(types, 0) {}
    void take(const std::vector<std::vector<Offer>>& offers, std::size_t j, int k)
    {
        if (choice[j] >= 0) {
            const Offer& o = offers[j][static_cast<std::size_t>(choice[j])];
            used[static_cast<std::size_t>(o.type)] -= o.gpus;
            cost -= o.cost;
        }
        choice[j] = k;
        if (k >= 0) {
            const Offer& o = offers[j][static_cast<std::size_t>(k)];
            used[static_cast<std::size_t>(o.type)] += o.gpus;
            cost += o.cost;
        }
    }
};

/** Moves each job in turn to its cheapest offer that fits beside the others, over passes until none moves. */
void improveByMoves(const std::vector<std::vector<Offer>>& offers, const std::vector<int>& capacity, Assignment& a)
{
    // Each pass lowers the cost or ends the loop; on the rounds measured (docs/models/goodput.md) two or three
    // passes reach the fixed point, and the cap only bounds the work.
    constexpr int kMaxPasses = 8;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
        bool moved = false;
        for (std::size_t j = 0; j < offers.size(); ++j) {
            const Offer* now = a.choice[j] >= 0 ? &offers[j][static_cast<std::size_t>(a.choice[j])] : nullptr;
            double bestCost = now ? now->cost : 0;
            int best = a.choice[j];
            for (std::size_t k = 0; k < offers[j].size(); ++k) {
                const Offer& o = offers[j][k];
                const long long freed = now && now->type == o.type ? now->gpus : 0;
                if (o.cost < bestCost && a.used[static_cast<std::size_t>(o.type)] - freed + o.gpus <=
                                             capacity[static_cast<std::size_t>(o.type)]) {
                    bestCost = o.cost;
                    best = static_cast<int>(k);
                }
            }
            if (best != a.choice[j]) {
                a.take(offers, j, best);
                moved = true;
            }
        }
        if (!moved)
            break;
    }
}

/**
 * The best offers (or none) for the `open` jobs together within the GPUs the others leave, by trying every
 * combination: at a vertex of the root LP at most one job per capacity row is fractional, so this completes the LP's
 * whole columns as well as any assignment that keeps them can. Skipped (the jobs stay without GPUs) past
 * kMaxCombinations.
 */
void completeExhaustively(const std::vector<std::vector<Offer>>& offers, const std::vector<int>& capacity,
                          const std::vector<std::size_t>& open, Assignment& a)
{
    // Three fractional jobs of 15 offers each are 4,096 combinations; a degenerate LP with more stays greedy.
    constexpr double kMaxCombinations = 100'000;
    double combinations = 1;
    for (std::size_t j : open)
        combinations *= static_cast<double>(offers[j].size() + 1);
    if (open.empty() || combinations > kMaxCombinations)
        return;
    std::vector<int> pick(open.size(), -1), best(open.size(), -1);
    double bestCost = 0;
    // Depth-first over the open jobs, each taking one of its offers or none; `used` follows the partial choice.
    std::vector<long long> used = a.used;
    const auto visit = [&](const auto& self, std::size_t depth, double cost) -> void {
        if (depth == open.size()) {
            if (cost < bestCost) {
                bestCost = cost;
                best = pick;
            }
            return;
        }
        const std::size_t j = open[depth];
        pick[depth] = -1;
        self(self, depth + 1, cost);
        for (std::size_t k = 0; k < offers[j].size(); ++k) {
            const Offer& o = offers[j][k];
            auto& u = used[static_cast<std::size_t>(o.type)];
            if (u + o.gpus > capacity[static_cast<std::size_t>(o.type)])
                continue;
            u += o.gpus;
            pick[depth] = static_cast<int>(k);
            self(self, depth + 1, cost + o.cost);
            u -= o.gpus;
        }
        pick[depth] = -1;
    };
    visit(visit, 0, 0.0);
    for (std::size_t i = 0; i < open.size(); ++i)
        a.take(offers, open[i], best[i]);
}

/**
 * CBC's first incumbent (offer indices per job, -1 none), the better of two starts each improved by single moves:
 * the root LP's whole columns with its fractional jobs completed exhaustively (they fit together, as the LP does;
 * this starts close to the LP's bound), and every job staying where it is (it fits: the GPUs are held; a pruned
 * current configuration gives way to the cheaper, smaller one of its type that pruned it), which is what crowded
 * rounds under the restart factor mostly keep. Ties go to staying. CBC is told the start is feasible, so it is
 * built to be.
 */
std::vector<int> startingAssignment(const std::vector<SiaJob>& jobs, const std::vector<std::vector<Offer>>& offers,
                                    const std::vector<std::vector<int>>& column, const std::vector<double>& lp,
                                    const std::vector<int>& capacity)
{
    // A column at 1 (or 0) within this is whole; CLP's primal tolerance is 1e-7.
    constexpr double kWhole = 1e-6;
    Assignment fromLp(offers.size(), capacity.size());
    Assignment stay(offers.size(), capacity.size());
    std::vector<std::size_t> fractional;
    for (std::size_t j = 0; j < offers.size(); ++j) {
        const SiaConfig* cur =
            jobs[j].current >= 0 ? &jobs[j].configs[static_cast<std::size_t>(jobs[j].current)] : nullptr;
        int keep = -1;
        bool partial = false;
        for (std::size_t k = 0; k < offers[j].size(); ++k) {
            const Offer& o = offers[j][k];
            const double x = lp[static_cast<std::size_t>(column[j][k])];
            if (x > 1 - kWhole)
                fromLp.take(offers, j, static_cast<int>(k));
            else if (x > kWhole)
                partial = true;
            if (cur && o.type == cur->type && o.gpus <= cur->gpus &&
                (keep < 0 || o.cost < offers[j][static_cast<std::size_t>(keep)].cost))
                keep = static_cast<int>(k);
        }
        if (partial)
            fractional.push_back(j);
        stay.take(offers, j, keep);
    }
    completeExhaustively(offers, capacity, fractional, fromLp);
    improveByMoves(offers, capacity, fromLp);
    bool stayFits = true;
    for (std::size_t t = 0; t < capacity.size(); ++t)
        stayFits = stayFits && stay.used[t] <= capacity[t];
    if (!stayFits) // not in a run (the GPUs are held), but the ILP takes any current configurations it is given
        return fromLp.choice;
    improveByMoves(offers, capacity, stay);
    return fromLp.cost < stay.cost ? fromLp.choice : stay.choice;
}

} // namespace

SiaIlpResult solveSiaIlp(const std::vector<SiaJob>& jobs, const std::vector<int>& capacity,
                         const SiaIlpOptions& options)
{
    SiaIlpResult out;
    out.chosen.assign(jobs.size(), -1);
    std::vector<std::vector<Offer>> offers(jobs.size());
    for (std::size_t j = 0; j < jobs.size(); ++j)
        offers[j] = offersOf(jobs[j], options);
    const double constant = options.lambdaN * static_cast<double>(jobs.size());
    const double sign = options.p < 0 ? 1 : -1; // cost back to the objective's own sense
    // The objective is a sum over jobs and only the capacity rows couple them: when every job's own best choice
    // (its cheapest offer if that beats none, else none) fits every type, it is the optimum, without CBC.
    // This is the common round (GPUs for everyone) and the one where ties made branch and bound slowest.
    {
        std::vector<long long> used(capacity.size(), 0);
        double objective = constant;
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            double bestCost = 0;
            const Offer* best = nullptr;
            for (const Offer& o : offers[j])
                if (o.cost < bestCost) {
                    bestCost = o.cost;
                    best = &o;
                }
            if (best) {
                out.chosen[j] = best->config;
                used[static_cast<std::size_t>(best->type)] += best->gpus;
                objective += sign * bestCost;
            }
        }
        bool fits = true;
        for (std::size_t t = 0; t < capacity.size(); ++t)
            fits = fits && used[t] <= capacity[t];
        if (fits) {
            out.status = opt::Status::Optimal;
            out.solved = true;
            out.objective = objective;
            out.bound = objective;
            return out;
        }
        out.chosen.assign(jobs.size(), -1);
    }
    opt::LinearModel m;
    // Minimise for p < 0 (powers of goodput fall as goodput grows), maximise for p > 0: sia.py's sense.
    m.setSense(options.p < 0 ? opt::Sense::Minimize : opt::Sense::Maximize);
    std::vector<std::vector<int>> column(jobs.size());
    std::vector<std::vector<int>> typeColumns(capacity.size());
    std::vector<std::vector<double>> typeGpus(capacity.size());
    for (std::size_t j = 0; j < jobs.size(); ++j) {
        for (const Offer& o : offers[j]) {
            // lambdaN (jobs - sum x): the constant is added to the objective afterwards.
            const int col = m.addColumn(0, 1, sign * o.cost, true);
            column[j].push_back(col);
            typeColumns[static_cast<std::size_t>(o.type)].push_back(col);
            typeGpus[static_cast<std::size_t>(o.type)].push_back(o.gpus);
        }
        if (column[j].size() > 1)
            m.addRow(column[j], std::vector<double>(column[j].size(), 1.0), 0, 1);
    }
    for (std::size_t t = 0; t < capacity.size(); ++t)
        if (!typeColumns[t].empty())
            m.addRow(typeColumns[t], typeGpus[t], 0, capacity[t]);
    opt::Limits limits;
    limits.relativeGap = options.gap;
    limits.maxNodes = options.maxNodes;
    // The weights are rounded to hundredths (sia.py's np.round(..., 2)); with lambda_n in hundredths too every
    // objective value lies on a 0.01 grid, so a solution within 0.005 of the bound is optimal. Telling CBC so
    // spares it proving optimality among the many ties the rounding makes (rounds of a minute without it).
    if (std::abs(options.lambdaN * 100 - std::round(options.lambdaN * 100)) < 1e-9)
        limits.absoluteGap = 0.005;
    opt::MilpOptions search;
    search.strongBranching = options.strongBranching;
    std::vector<int> start; // offer indices per job, once the root LP gave one
    if (options.incumbent)
        search.incumbent = [&](const std::vector<double>& lp) {
            const std::vector<int>& choice = start = startingAssignment(jobs, offers, column, lp, capacity);
            std::vector<double> x(static_cast<std::size_t>(m.columns()), 0.0);
            for (std::size_t j = 0; j < jobs.size(); ++j)
                if (choice[j] >= 0)
                    x[static_cast<std::size_t>(column[j][static_cast<std::size_t>(choice[j])])] = 1;
            return x;
        };
    const opt::MilpResult r = opt::solveMilp(m, limits, search);
    out.status = r.status;
    out.nodes = r.nodes;
    if (r.values.empty()) {
        if (r.status != opt::Status::NodeLimit)
            return out;
        // The node limit came before CBC held any solution: the start if there was one, else every job keeps its
        // current configuration, which fits (the GPUs it holds are its type's).
        out.solved = true;
        double objective = constant;
        for (std::size_t j = 0; j < jobs.size(); ++j) {
            out.chosen[j] = start.empty()   ? jobs[j].current
                            : start[j] >= 0 ? offers[j][static_cast<std::size_t>(start[j])].config
                                            : -1;
            if (out.chosen[j] >= 0)
                objective += siaWeight(jobs[j], out.chosen[j], options) - options.lambdaN;
        }
        out.objective = objective;
        out.bound = r.bound + constant;
        return out;
    }
    out.solved = true;
    out.objective = r.objective + constant;
    out.bound = r.bound + constant;
    for (std::size_t j = 0; j < jobs.size(); ++j)
        for (std::size_t k = 0; k < column[j].size(); ++k)
            if (r.values[static_cast<std::size_t>(column[j][k])] > 0.5)
                out.chosen[j] = offers[j][k].config;
    return out;
}

} // namespace orrery::sched
