// Themis' auction records (core/sched/themis_records.h): the bid record's text both ways, older records, refused
// texts, and auctions put together again from a real run's events and series (every lease accounted to one auction,
// no GPU twice in one) and from records of two auctions at one time.
#include "io/scenario.h"
#include "sched/registry.h"
#include "sched/themis_records.h"
#include "sim/prepare_scenario.h"
#include "sim/prepared_workload.h"
#include "sim/simulator.h"

#include <QTest>
#include <rapidcheck.h>

#include <cmath>
#include <set>

using namespace orrery;
using sched::themis::BidRecord;

namespace {

bool near(double a, double b)
{
    return (std::isinf(a) && std::isinf(b)) || std::abs(a - b) <= 1e-3 * std::max(1.0, std::abs(b));
}

} // namespace

class TestThemisRecords : public QObject
{
    Q_OBJECT

private slots:
    void formatAndParse()
    {
        BidRecord r;
        r.round = 12;
        r.app = "a3";
        r.bidders = 2;
        r.rhoOld = 1.8;
        r.rhoNow = 1.25;
        r.pfChoice = 2;
        r.pfGpus = 4;
        r.payment = 0.8333333;
        r.granted = 3;
        r.bids = {{0, 1.8}, {1, 1.5}, {4, 1.2}};
        const auto text = sched::themis::formatBidRecord(r);
        QCOMPARE(text, std::string("round=12 app=a3 bidders=2 rho_old=1.8 rho_now=1.25 pf=2 pf_gpus=4 payment=0.8333 "
                                   "granted=3 bids=[0:1.8 1:1.5 4:1.2]"));
        const auto back = sched::themis::parseBidRecord(text);
        QVERIFY(back);
        QCOMPARE(back->payment, 0.8333);
        QCOMPARE(back->bids.size(), std::size_t(3));
        QCOMPARE(back->bids[2], (std::pair<int, double>{4, 1.2}));
    }

    // Records written before rho_now was added still read (rho_now -1); an app that can use nothing has rho inf.
    void olderAndInfinite()
    {
        const auto old = sched::themis::parseBidRecord(
            "round=1 app=a0 bidders=1 rho_old=1e+09 pf=1 pf_gpus=2 payment=1 granted=2 bids=[0:1e+09 2:0.5]");
        QVERIFY(old);
        QCOMPARE(old->rhoNow, -1.0);
        QCOMPARE(old->rhoOld, 1e9);
        const auto inf = sched::themis::parseBidRecord(
            "round=1 app=my app bidders=1 rho_old=1e+09 rho_now=inf pf=0 pf_gpus=0 payment=1 granted=0 bids=[0:1e+09]");
        QVERIFY(inf);
        QCOMPARE(inf->app, std::string("my app"));
        QVERIFY(std::isinf(inf->rhoNow));
    }

    void refusesOtherTexts()
    {
        for (const char* bad :
             {"", "round=1", "round=x app=a bidders=1 rho_old=1 pf=0 pf_gpus=0 payment=1 granted=0 bids=[0:1]",
              "round=1 app=a bidders=1 rho_old=1 pf=3 pf_gpus=0 payment=1 granted=0 bids=[0:1]",
              "round=1 app=a bidders=1 rho_old=1 pf=0 pf_gpus=0 payment=1 granted=0 bids=[0:1",
              "round=1 app=a bidders=1 rho_old=1 pf=0 pf_gpus=0 payment=1 granted=0 bids=[0-1]"})
            QVERIFY2(!sched::themis::parseBidRecord(bad), bad);
    }

    void roundTripProperty()
    {
        QVERIFY(rc::check("parse(format(r)) is r to 4 significant digits", [] {
            BidRecord r;
            r.round = *rc::gen::inRange<long long>(1, 1000000);
            r.app = "a" + std::to_string(*rc::gen::inRange(0, 1000));
            r.bidders = *rc::gen::inRange(1, 50);
            const auto rho = rc::gen::map(rc::gen::inRange(1, 1000000), [](int x) { return x / 1000.0; });
            r.rhoOld = *rho;
            r.rhoNow = *rho;
            const int n = *rc::gen::inRange(1, 12);
            for (int c = 0; c < n; ++c)
                r.bids.emplace_back(c, *rho);
            r.pfChoice = *rc::gen::inRange(0, n);
            r.pfGpus = r.pfChoice;
            r.payment = *rc::gen::inRange(0, 1001) / 1000.0;
            r.granted = *rc::gen::inRange(0, r.pfGpus + 1);
            const auto back = sched::themis::parseBidRecord(sched::themis::formatBidRecord(r));
            RC_ASSERT(back.has_value());
            RC_ASSERT(back->round == r.round && back->app == r.app && back->bidders == r.bidders);
            RC_ASSERT(back->pfChoice == r.pfChoice && back->pfGpus == r.pfGpus && back->granted == r.granted);
            RC_ASSERT(near(back->rhoOld, r.rhoOld) && near(back->rhoNow, r.rhoNow) && near(back->payment, r.payment));
            RC_ASSERT(back->bids.size() == r.bids.size());
            for (std::size_t c = 0; c < r.bids.size(); ++c)
                RC_ASSERT(back->bids[c].first == r.bids[c].first && near(back->bids[c].second, r.bids[c].second));
        }));
    }

    // A real run (the first 6 apps of themis-hyperband-testbed64 on 4 machines): every auction has its bidders'
    // records, and its leases are what it granted plus the leftover it gave, no GPU twice.
    void roundsOfARun()
    {
        auto s = io::loadScenario(ORRERY_SOURCE_DIR "/data/scenarios/themis-hyperband-testbed64.json");
        std::set<std::string> apps;
        std::vector<workload::Job> kept;
        for (const auto& j : s.workload.jobs)
            if (apps.count(j.app) || apps.size() < 6) {
                apps.insert(j.app);
                kept.push_back(j);
            }
        s.workload.jobs = std::move(kept);
        auto groups = s.cluster.groups();
        groups.resize(4);
        s.cluster = hardware::Cluster(groups, s.cluster.network(), s.cluster.catalog());
        auto policy = sched::makePolicy("themis");
        const auto run = sim::simulate(sim::prepareScenario(s), *policy, 1);
        const auto rounds = sched::themis::auctionRounds(run);
        QVERIFY(rounds.size() > 3);
        std::size_t leases = 0;
        for (const auto& series : run.series)
            if (series.name == "themis.lease_gpu")
                leases = series.value.size();
        std::size_t accounted = 0;
        for (std::size_t i = 0; i < rounds.size(); ++i) {
            const auto& r = rounds[i];
            QCOMPARE(r.round, static_cast<long long>(i) + 1);
            QVERIFY(!r.bids.empty());
            QCOMPARE(r.bids.size(), r.bidderJobs.size());
            QVERIFY(r.eligible >= static_cast<int>(r.bids.size()));
            QVERIFY(r.grantsKnown);
            int granted = 0;
            for (const auto& b : r.bids) {
                QCOMPARE(b.round, r.round);
                QCOMPARE(b.bidders, static_cast<int>(r.bids.size()));
                QVERIFY(b.payment >= 0 && b.payment <= 1);
                QVERIFY(b.granted <= b.pfGpus);
                granted += b.granted;
            }
            QVERIFY(r.leftover <= r.offered && r.leftoverGiven <= r.leftover);
            std::set<int> gpus;
            std::size_t count = 0;
            for (const auto& g : r.grants) {
                gpus.insert(g.gpus.begin(), g.gpus.end());
                count += g.gpus.size();
            }
            QCOMPARE(gpus.size(), count);
            QCOMPARE(static_cast<int>(count), granted + r.leftoverGiven);
            accounted += count;
        }
        QCOMPARE(accounted, leases);
        QCOMPARE(sched::themis::auctionAt(rounds, rounds.front().timeS - 1), -1);
        QCOMPARE(sched::themis::auctionAt(rounds, rounds.back().timeS + 1), static_cast<int>(rounds.size()) - 1);
    }

    // Two auctions at one time: the lease records at that time are split by each auction's grants and leftover.
    void twoAuctionsAtOneTime()
    {
        sim::RunResult run;
        run.jobs.resize(3);
        const auto series = [&](const char* name, std::vector<double> times, std::vector<double> values) {
            run.series.push_back({name, std::move(times), std::move(values)});
        };
        series("themis.bidders", {5, 5}, {1, 1});
        series("themis.offered_gpus", {5, 5}, {3, 1});
        series("themis.leftover_gpus", {5, 5}, {1, 0});
        series("themis.leftover_given", {5, 5}, {1, 0});
        // Auction 1: app of job 0 wins GPUs 0 and 1, job 2's app gets GPU 2 as leftover; auction 2: job 1's app GPU 3.
        series("themis.lease_gpu", {5, 5, 5, 5}, {0, 1, 2, 3});
        series("themis.lease_app", {5, 5, 5, 5}, {0, 0, 2, 1});
        const auto bid = [](int round, int granted) {
            BidRecord b;
            b.round = round;
            b.app = "a";
            b.bidders = 1;
            b.pfGpus = granted;
            b.granted = granted;
            b.pfChoice = 1;
            b.bids = {{0, 2}, {granted, 1}};
            return sched::themis::formatBidRecord(b);
        };
        run.jobEvents = {{5, 0, sim::JobEventKind::Auction, bid(1, 2)}, {5, 1, sim::JobEventKind::Auction, bid(2, 1)}};
        const auto rounds = sched::themis::auctionRounds(run);
        QCOMPARE(rounds.size(), std::size_t(2));
        QVERIFY(rounds[0].grantsKnown && rounds[1].grantsKnown);
        QCOMPARE(rounds[0].grants.size(), std::size_t(2));
        QCOMPARE(rounds[0].grants[0].gpus, (std::vector<int>{0, 1}));
        QCOMPARE(rounds[0].grants[1].leadJob, 2);
        QCOMPARE(rounds[1].grants.size(), std::size_t(1));
        QCOMPARE(rounds[1].grants[0].gpus, (std::vector<int>{3}));
        QCOMPARE(sched::themis::auctionAt(rounds, 5), 1);

        // Without leftover_given (older runs) the split is unknown, and the rounds say so.
        run.series.erase(run.series.begin() + 3);
        const auto unknown = sched::themis::auctionRounds(run);
        QVERIFY(!unknown[0].grantsKnown && !unknown[1].grantsKnown);
    }
};

QTEST_GUILESS_MAIN(TestThemisRecords)
#include "test_themis_records.moc"
