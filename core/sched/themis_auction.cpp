#include "sched/themis_auction.h"

#include "opt/linear_model.h"
#include "opt/milp.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>

namespace orrery::sched::themis {

namespace {

// Bundles that tie in value are told apart by size, the smaller first: valuations flatten once demand is met,
// and the GPUs a bigger bundle would hold for nothing go to the leftover instead (spec A.4, note 5).
constexpr double kPerGpuTieBreak = 1e-9;

double score(const Candidate& c)
{
    return c.logValue - kPerGpuTieBreak * static_cast<double>(c.gpus.size());
}

/** Depth-first search over bidders for tiny instances (CBC's set-up costs more than the whole search). */
void search(const std::vector<Bid>& bids, const std::vector<int>& order, std::size_t at, std::set<int>& used,
            std::vector<int>& choice, double value, double& bestValue, std::vector<int>& best)
{
    if (at == order.size()) {
        if (value > bestValue) {
            bestValue = value;
            best = choice;
        }
        return;
    }
    const int i = order[at];
    const auto& cands = bids[static_cast<std::size_t>(i)].candidates;
    for (std::size_t c = 0; c < cands.size(); ++c) {
        const auto& g = cands[c].gpus;
        if (std::any_of(g.begin(), g.end(), [&](int x) { return used.count(x) > 0; }))
            continue;
        for (int x : g)
            used.insert(x);
        choice[static_cast<std::size_t>(i)] = static_cast<int>(c);
        search(bids, order, at + 1, used, choice, value + score(cands[c]), bestValue, best);
        for (int x : g)
            used.erase(x);
    }
    choice[static_cast<std::size_t>(i)] = -1;
}

} // namespace

std::vector<int> proportionalFair(const std::vector<Bid>& bids, const std::vector<char>& present, double* objective,
                                  double* solveS)
{
    const auto start = std::chrono::steady_clock::now();
    std::vector<int> order;
    double combinations = 1;
    for (std::size_t i = 0; i < bids.size(); ++i)
        if (present[i]) {
            order.push_back(static_cast<int>(i));
            combinations *= static_cast<double>(bids[i].candidates.size());
        }
    std::vector<int> choice(bids.size(), -1);
    if (order.empty()) {
        if (objective)
            *objective = 0;
        return choice;
    }
    if (combinations <= 4096) {
        std::vector<int> work(bids.size(), -1);
        std::set<int> used;
        double bestValue = -std::numeric_limits<double>::infinity();
        search(bids, order, 0, used, work, 0.0, bestValue, choice);
    } else {
        // max sum_{i,c} y_ic (log v_i(c) - eps |c|), one candidate per bidder, each GPU in at most one chosen bundle.
        opt::LinearModel m;
        m.setSense(opt::Sense::Maximize);
        std::vector<std::pair<int, int>> column; // (bidder, candidate)
        std::vector<int> gpuRow;                 // by GPU id: its row, -1 before
        for (int i : order) {
            const auto& cands = bids[static_cast<std::size_t>(i)].candidates;
            std::vector<int> cols;
            for (std::size_t c = 0; c < cands.size(); ++c) {
                cols.push_back(m.addColumn(0, 1, score(cands[c]), true));
                column.emplace_back(i, static_cast<int>(c));
            }
            m.addRow(cols, std::vector<double>(cols.size(), 1.0), 1, 1);
        }
        for (std::size_t k = 0; k < column.size(); ++k) {
            const auto& cand =
                bids[static_cast<std::size_t>(column[k].first)].candidates[static_cast<std::size_t>(column[k].second)];
            for (int g : cand.gpus) {
                if (static_cast<std::size_t>(g) >= gpuRow.size())
                    gpuRow.resize(static_cast<std::size_t>(g) + 1, -1);
                int& row = gpuRow[static_cast<std::size_t>(g)];
                if (row < 0)
                    row = m.addRow({}, {}, -opt::kInfinity, 1);
                m.addEntry(row, static_cast<int>(k), 1.0);
            }
        }
        const auto r = opt::solveMilp(m);
        if (!r.values.empty()) {
            for (std::size_t k = 0; k < column.size(); ++k)
                if (r.values[k] > 0.5)
                    choice[static_cast<std::size_t>(column[k].first)] = column[k].second;
        }
        // Without a solution (never seen: every bidder choosing its empty bundle is feasible) or with a bidder
        // left unchosen, fall back to the empty bundle (candidate 0 holds no GPU by construction).
        for (int i : order)
            if (choice[static_cast<std::size_t>(i)] < 0)
                choice[static_cast<std::size_t>(i)] = 0;
    }
    double total = 0;
    for (int i : order)
        total += bids[static_cast<std::size_t>(i)]
                     .candidates[static_cast<std::size_t>(choice[static_cast<std::size_t>(i)])]
                     .logValue;
    if (objective)
        *objective = total;
    if (solveS)
        *solveS += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return choice;
}

AuctionResult partialAllocation(const std::vector<Bid>& bids, const std::vector<int>& offered)
{
    AuctionResult out;
    const std::size_t k = bids.size();
    std::vector<char> all(k, 1);
    out.pfChoice = proportionalFair(bids, all, &out.objective, &out.solveS);
    out.solves = 1;
    const auto logV = [&](std::size_t i, int c) { return bids[i].candidates[static_cast<std::size_t>(c)].logValue; };
    out.payment.assign(k, 1.0);
    if (k > 1) {
        for (std::size_t i = 0; i < k; ++i) {
            std::vector<char> without = all;
            without[i] = 0;
            double othersAbsent = 0;
            const auto alt = proportionalFair(bids, without, &othersAbsent, &out.solveS);
            ++out.solves;
            (void)alt;
            // G_pf with i removed is feasible without i: a solver answer worse than it is not the optimum.
            double othersPresent = 0;
            for (std::size_t j = 0; j < k; ++j)
                if (j != i)
                    othersPresent += logV(j, out.pfChoice[j]);
            othersAbsent = std::max(othersAbsent, othersPresent);
            out.payment[i] = std::clamp(std::exp(othersPresent - othersAbsent), 0.0, 1.0);
        }
    }
    std::set<int> granted;
    out.granted.resize(k);
    for (std::size_t i = 0; i < k; ++i) {
        const auto& bundle = bids[i].candidates[static_cast<std::size_t>(out.pfChoice[i])].gpus;
        const auto keep =
            static_cast<std::size_t>(std::floor(out.payment[i] * static_cast<double>(bundle.size()) + 1e-9));
        out.granted[i].assign(bundle.begin(),
                              bundle.begin() + static_cast<std::ptrdiff_t>(std::min(keep, bundle.size())));
        granted.insert(out.granted[i].begin(), out.granted[i].end());
    }
    for (int g : offered)
        if (!granted.count(g))
            out.leftover.push_back(g);
    std::sort(out.leftover.begin(), out.leftover.end());
    return out;
}

} // namespace orrery::sched::themis
