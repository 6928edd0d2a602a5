#pragma once

// What a Themis run records of its auctions (docs/simulator.md, "Themis", Records) and how a view reads it back:
// the policy writes each bidder's step with formatBidRecord as an `auction` job event, the per-auction counts as
// `themis.*` series, and every lease as `themis.lease_gpu` / `themis.lease_app`; auctionRounds() puts one auction
// together again from those columns (the GUI's auction step by step).

#include "sim/run_result.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace orrery::sched::themis {

/** One bidder's step in one auction: the detail of its app's `auction` event. */
struct BidRecord
{
    long long round = 0; ///< the auction's number in the run, from 1
    std::string app;
    int bidders = 0;
    double rhoOld = 0;  ///< rho on the GPUs it keeps under live leases (1e9 when it keeps none it can use)
    double rhoNow = -1; ///< the rho the filter ranked it by (its current allocation); -1 in older records
    int pfChoice = 0;   ///< index into bids of the proportional-fair allocation's bundle
    int pfGpus = 0;
    double payment = 1;                       ///< the hidden payment c_i in [0, 1]
    int granted = 0;                          ///< floor(c_i x pfGpus): the GPUs it won in the auction itself
    std::vector<std::pair<int, double>> bids; ///< per candidate (the empty bundle first): its GPUs and rho with it
};

/** The detail text of an `auction` event (values to 4 significant digits). */
std::string formatBidRecord(const BidRecord& record);
/** The record a detail text holds; nullopt when it is not one formatBidRecord wrote. */
std::optional<BidRecord> parseBidRecord(std::string_view detail);

/** The GPUs one app was leased in one auction: those it won and those of the leftover it was handed. */
struct Grant
{
    int leadJob = -1; ///< the app's first job (index into RunResult::jobs)
    std::vector<int> gpus;
};

/** One auction of a Themis run, as recorded. */
struct AuctionRound
{
    long long round = 0;
    double timeS = 0;
    int eligible = -1;      ///< apps that could use more GPUs before the filter; -1 when not recorded
    int offered = 0;        ///< GPUs without a live lease
    int leftover = 0;       ///< offered GPUs the auction granted nobody (payments and unassigned)
    int leftoverGiven = -1; ///< of those, GPUs handed to apps at random; -1 when not recorded
    double solveMs = 0;     ///< wall time of the PF solves
    int solves = 0;
    std::vector<BidRecord> bids; ///< in bidding order: worst rho first
    std::vector<int> bidderJobs; ///< per bid, its app's first job
    std::vector<Grant> grants;   ///< every lease of the auction by app, in the order granted
    bool grantsKnown = false;    ///< false when several auctions share a time and the records cannot split them
};

/** The auctions of a Themis run in order; empty for runs of other policies. */
std::vector<AuctionRound> auctionRounds(const sim::RunResult& run);

/** The index of the last auction at or before timeS, or -1 when none is. */
int auctionAt(const std::vector<AuctionRound>& rounds, double timeS);

} // namespace orrery::sched::themis
