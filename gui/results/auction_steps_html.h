#pragma once

#include "sched/themis_records.h"
#include "sim/run_result.h"

#include <QString>

namespace orrery::gui {

/**
 * One Themis auction told in order, as HTML (the AuctionStepView's text): 1. GPUs offered; 2. the filter and the
 * bidders' rho; 3. each bidder's bids, bundle -> rho, the PF bundle marked; 4. the proportional-fair choice;
 * 5. hidden payments c_i and what each keeps; 6. the leftover handed out; 7. every lease of the auction by app.
 * Numbers as the records hold them (4 significant digits).
 */
QString auctionStepsHtml(const sim::RunResult& run, const sched::themis::AuctionRound& round);

/** A recorded rho as the steps write it: 4 significant digits; "inf" for none (an app that can use nothing). */
QString formatRho(double rho);

} // namespace orrery::gui
