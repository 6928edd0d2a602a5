#include "sched/themis_records.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>

namespace orrery::sched::themis {

namespace {

template <typename T> bool parseNumber(std::string_view text, T& out)
{
    // from_chars: the same text in any locale (the GUI's C library locale may use decimal commas).
    const auto* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, out);
    return ec == std::errc() && ptr == end;
}

/** The value of `key=` in detail up to the next space (or `until`), advancing pos; nullopt when absent. */
std::optional<std::string_view> field(std::string_view detail, std::size_t& pos, std::string_view key,
                                      std::string_view until = " ")
{
    const std::string prefix = std::string(key) + "=";
    if (detail.substr(pos, prefix.size()) != prefix)
        return std::nullopt;
    const std::size_t start = pos + prefix.size();
    const std::size_t stop = detail.find(until, start);
    if (stop == std::string_view::npos)
        return std::nullopt;
    pos = stop + 1; // past the single space that separates fields
    return detail.substr(start, stop - start);
}

const sim::MetricSeries* seriesNamed(const sim::RunResult& run, std::string_view name)
{
    for (const auto& s : run.series)
        if (s.name == name)
            return &s;
    return nullptr;
}

} // namespace

std::string formatBidRecord(const BidRecord& r)
{
    std::string table;
    for (std::size_t c = 0; c < r.bids.size(); ++c)
        table += fmt::format("{}{}:{:.4g}", c ? " " : "", r.bids[c].first, r.bids[c].second);
    return fmt::format("round={} app={} bidders={} rho_old={:.4g} rho_now={:.4g} pf={} pf_gpus={} payment={:.4g} "
                       "granted={} bids=[{}]",
                       r.round, r.app, r.bidders, r.rhoOld, r.rhoNow, r.pfChoice, r.pfGpus, r.payment, r.granted,
                       table);
}

std::optional<BidRecord> parseBidRecord(std::string_view detail)
{
    BidRecord r;
    std::size_t pos = 0;
    const auto round = field(detail, pos, "round");
    // The app's name may hold spaces: it runs to " bidders=".
    const auto app = field(detail, pos, "app", " bidders=");
    const auto bidders = field(detail, pos, "bidders");
    const auto rhoOld = field(detail, pos, "rho_old");
    if (!round || !app || !bidders || !rhoOld || !parseNumber(*round, r.round) || !parseNumber(*bidders, r.bidders) ||
        !parseNumber(*rhoOld, r.rhoOld))
        return std::nullopt;
    r.app = std::string(*app);
    if (const auto rhoNow = field(detail, pos, "rho_now"); rhoNow && !parseNumber(*rhoNow, r.rhoNow))
        return std::nullopt; // absent in records written before it was added: -1 stays
    const auto pf = field(detail, pos, "pf");
    const auto pfGpus = field(detail, pos, "pf_gpus");
    const auto payment = field(detail, pos, "payment");
    const auto granted = field(detail, pos, "granted");
    if (!pf || !pfGpus || !payment || !granted || !parseNumber(*pf, r.pfChoice) || !parseNumber(*pfGpus, r.pfGpus) ||
        !parseNumber(*payment, r.payment) || !parseNumber(*granted, r.granted))
        return std::nullopt;
    const std::string_view rest = detail.substr(pos);
    if (rest.size() < 7 || rest.substr(0, 6) != "bids=[" || rest.back() != ']')
        return std::nullopt;
    std::string_view table = rest.substr(6, rest.size() - 7);
    while (!table.empty()) {
        const std::size_t space = table.find(' ');
        const std::string_view entry = table.substr(0, space);
        const std::size_t colon = entry.find(':');
        std::pair<int, double> bid;
        if (colon == std::string_view::npos || !parseNumber(entry.substr(0, colon), bid.first) ||
            !parseNumber(entry.substr(colon + 1), bid.second))
            return std::nullopt;
        r.bids.push_back(bid);
        table = space == std::string_view::npos ? std::string_view() : table.substr(space + 1);
    }
    if (r.pfChoice < 0 || r.pfChoice >= static_cast<int>(r.bids.size()))
        return std::nullopt;
    return r;
}

std::vector<AuctionRound> auctionRounds(const sim::RunResult& run)
{
    // The k-th record of themis.bidders is auction k + 1: the policy numbers an auction and records its series
    // together, once per auction with bidders.
    const auto* bidders = seriesNamed(run, "themis.bidders");
    if (!bidders)
        return {};
    std::vector<AuctionRound> rounds(bidders->value.size());
    const auto fill = [&](std::string_view name, auto setter) {
        const auto* s = seriesNamed(run, name);
        if (!s || s->value.size() != rounds.size())
            return false;
        for (std::size_t i = 0; i < rounds.size(); ++i)
            setter(rounds[i], s->value[i]);
        return true;
    };
    for (std::size_t i = 0; i < rounds.size(); ++i) {
        rounds[i].round = static_cast<long long>(i) + 1;
        rounds[i].timeS = bidders->timeS[i];
    }
    fill("themis.offered_gpus", [](AuctionRound& r, double v) { r.offered = static_cast<int>(v); });
    fill("themis.leftover_gpus", [](AuctionRound& r, double v) { r.leftover = static_cast<int>(v); });
    fill("themis.solve_ms", [](AuctionRound& r, double v) { r.solveMs = v; });
    fill("themis.solves", [](AuctionRound& r, double v) { r.solves = static_cast<int>(v); });
    fill("themis.eligible", [](AuctionRound& r, double v) { r.eligible = static_cast<int>(v); });
    const bool given =
        fill("themis.leftover_given", [](AuctionRound& r, double v) { r.leftoverGiven = static_cast<int>(v); });

    for (const auto& e : run.jobEvents) {
        if (e.kind != sim::JobEventKind::Auction)
            continue;
        auto bid = parseBidRecord(e.detail);
        if (!bid || bid->round < 1 || bid->round > static_cast<long long>(rounds.size()))
            continue;
        auto& r = rounds[static_cast<std::size_t>(bid->round - 1)];
        r.bids.push_back(std::move(*bid));
        r.bidderJobs.push_back(e.job);
    }

    // Leases: every record at one time belongs to the auctions at that time, in their order; each auction leased
    // what it granted plus the leftover it gave away.
    const auto* leaseGpu = seriesNamed(run, "themis.lease_gpu");
    const auto* leaseApp = seriesNamed(run, "themis.lease_app");
    if (!leaseGpu || !leaseApp || leaseGpu->value.size() != leaseApp->value.size())
        return rounds;
    std::map<double, std::vector<std::size_t>> leasesAt, roundsAt;
    for (std::size_t i = 0; i < leaseGpu->value.size(); ++i)
        leasesAt[leaseGpu->timeS[i]].push_back(i);
    for (std::size_t i = 0; i < rounds.size(); ++i)
        roundsAt[rounds[i].timeS].push_back(i);
    for (const auto& [at, list] : roundsAt) {
        const auto found = leasesAt.find(at);
        const std::vector<std::size_t> none;
        const auto& leases = found == leasesAt.end() ? none : found->second;
        std::size_t next = 0;
        for (std::size_t i : list) {
            auto& r = rounds[i];
            std::size_t count = leases.size() - next;
            if (list.size() > 1) {
                if (!given)
                    break;
                count = static_cast<std::size_t>(std::max(0, r.leftoverGiven));
                for (const auto& b : r.bids)
                    count += static_cast<std::size_t>(std::max(0, b.granted));
                if (next + count > leases.size())
                    break;
            }
            for (std::size_t k = next; k < next + count; ++k) {
                const int job = static_cast<int>(leaseApp->value[leases[k]]);
                auto grant =
                    std::find_if(r.grants.begin(), r.grants.end(), [job](const Grant& g) { return g.leadJob == job; });
                if (grant == r.grants.end())
                    grant = r.grants.insert(r.grants.end(), Grant{job, {}});
                grant->gpus.push_back(static_cast<int>(leaseGpu->value[leases[k]]));
            }
            next += count;
            r.grantsKnown = true;
        }
    }
    return rounds;
}

int auctionAt(const std::vector<AuctionRound>& rounds, double timeS)
{
    const auto after = std::upper_bound(rounds.begin(), rounds.end(), timeS,
                                        [](double t, const AuctionRound& r) { return t < r.timeS; });
    return static_cast<int>(after - rounds.begin()) - 1;
}

} // namespace orrery::sched::themis
