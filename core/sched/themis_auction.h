#pragma once

// Themis' one-shot partial-allocation auction (Mahajan et al., NSDI'20, Pseudocode 1 lines 1-12;
// ../shared/specs/themis-crius.md A.4): the proportional-fair set packing over the bidders' candidate bundles,
// solved as a MILP with COIN-OR CBC (core/opt), the hidden payments c_i, and floor rounding to whole GPUs.

#include <vector>

namespace orrery::sched::themis {

/** One row of a bid table: a bundle of offered GPUs and log v = log(1 / rho(current + bundle)). */
struct Candidate
{
    std::vector<int> gpus; ///< GPU ids, in the order the bidder would keep them (best first) when paying
    double logValue = 0;
};

/** A bidder's table; it must hold the empty bundle (log v(empty) = log(1 / rho_old)). */
struct Bid
{
    std::vector<Candidate> candidates;
};

struct AuctionResult
{
    std::vector<int> pfChoice;             ///< per bidder, the candidate of the proportional-fair allocation
    std::vector<double> payment;           ///< per bidder c_i in [0, 1] (1: no hidden payment)
    std::vector<std::vector<int>> granted; ///< per bidder, the GPUs it keeps: floor(c_i |G_pf|) of its bundle
    std::vector<int> leftover;             ///< offered GPUs nobody was granted (payments and unassigned), sorted
    double objective = 0;                  ///< sum of log v at the PF allocation
    int solves = 0;                        ///< PF solves (1 + one per bidder when there are several)
    double solveS = 0;                     ///< wall seconds inside the solver
};

/**
 * The proportional-fair allocation of the bidders marked present: one candidate each, bundles disjoint,
 * maximising sum log v (ties: fewer GPUs). Absent bidders get -1. Exhaustive for tiny instances, CBC otherwise.
 * `objective` receives the sum of log v of the present bidders' choices.
 */
std::vector<int> proportionalFair(const std::vector<Bid>& bids, const std::vector<char>& present, double* objective,
                                  double* solveS = nullptr);

/**
 * The partial-allocation auction over `offered` (every candidate's GPUs must be offered): PF, then
 * c_i = prod_{j != i} v_j(G_j,pf) / prod_{j != i} v_j(G^{-i}_j,pf), clamped to [0, 1] (1 for a single bidder),
 * and bidder i keeps the first floor(c_i |G_i,pf| + 1e-9) GPUs of its PF bundle.
 */
AuctionResult partialAllocation(const std::vector<Bid>& bids, const std::vector<int>& offered);

} // namespace orrery::sched::themis
