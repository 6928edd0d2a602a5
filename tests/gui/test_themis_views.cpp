// Themis in the GUI (issue #21): the comparison's per-app rho and placement score CDFs, and the auction of the moment
// in the cluster-at-time view, checked against a real Themis run of a cut of data/scenarios/themis-hyperband-testbed64
// (its first 10 apps on a quarter of the cluster, so that apps contend): the numbers shown are the run's records,
// read here from the raw events and series rather than through the parser the view uses.
#include "charts/cdf_chart.h"
#include "charts/chart_series.h"
#include "io/scenario.h"
#include "metrics/apps.h"
#include "results/auction_step_view.h"
#include "results/cluster_at_time_view.h"
#include "results/cluster_snapshot.h"
#include "results/comparison_view.h"
#include "results/run_library.h"
#include "runs/placement_scores.h"
#include "sched/registry.h"
#include "sim/prepare_scenario.h"
#include "sim/prepared_workload.h"
#include "sim/simulator.h"

#include <QChart>
#include <QChartView>
#include <QLineSeries>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <map>
#include <set>

using namespace orrery;
using namespace orrery::gui;

namespace {

io::Scenario themisCut()
{
    auto s = io::loadScenario(ORRERY_SOURCE_DIR "/data/scenarios/themis-hyperband-testbed64.json");
    std::set<std::string> apps;
    std::vector<workload::Job> kept;
    for (const auto& j : s.workload.jobs) {
        if (!apps.count(j.app) && apps.size() >= 10)
            continue;
        apps.insert(j.app);
        kept.push_back(j);
    }
    s.workload.jobs = std::move(kept);
    // A quarter of the machines: 16 K80s for 10 apps, so auctions have several bidders.
    auto groups = s.cluster.groups();
    std::vector<hardware::NodeGroup> fewer;
    for (std::size_t i = 0; i < groups.size(); i += 4)
        fewer.push_back(groups[i]);
    s.cluster = hardware::Cluster(fewer, s.cluster.network(), s.cluster.catalog());
    return s;
}

RunEntry runOf(const io::Scenario& s, const std::string& policy, int id)
{
    auto p = sched::makePolicy(policy);
    const auto prepared = sim::prepareScenario(s);
    RunEntry e;
    e.id = id;
    e.name = QString::fromStdString(policy);
    e.result = std::make_shared<const sim::RunResult>(sim::simulate(prepared, *p, s.options.seed));
    e.cluster = std::make_shared<const hardware::Cluster>(s.cluster);
    e.placementScores = placementScoresOf(s, *e.result);
    return e;
}

QLineSeries* seriesNamed(CdfChart* chart, const QString& name)
{
    for (auto* s : chart->chartView()->chart()->series())
        if (s->name() == name)
            return qobject_cast<QLineSeries*>(s);
    return nullptr;
}

/** The largest x of a CDF step line and its number of steps. */
std::pair<double, int> extent(const QLineSeries* s)
{
    double hi = -1;
    for (const auto& p : s->points())
        hi = std::max(hi, p.x());
    return {hi, static_cast<int>(s->points().size() / 2)};
}

/** `key=value` from a raw auction event's detail, as the policy wrote it. */
QString rawField(const std::string& detail, const QString& key)
{
    const auto m =
        QRegularExpression(QStringLiteral("(?:^| )%1=([^ \\]]+)").arg(key)).match(QString::fromStdString(detail));
    return m.hasMatch() ? m.captured(1) : QString();
}

std::vector<double> rawSeries(const sim::RunResult& r, const std::string& name, std::vector<double>* times = nullptr)
{
    for (const auto& s : r.series)
        if (s.name == name) {
            if (times)
                *times = s.timeS;
            return s.value;
        }
    return {};
}

} // namespace

class TestThemisViews : public QObject
{
    Q_OBJECT

    io::Scenario m_scenario;
    RunEntry m_themis, m_fifo;

private slots:
    void initTestCase()
    {
        m_scenario = themisCut();
        m_themis = runOf(m_scenario, "themis", 1);
        // The same jobs without apps: a run the per-app CDF must not draw as if it had them. One GPU each: FIFO
        // runs rigid requests, and a 16-GPU one would wait forever behind the 2-GPU machines' fragments.
        io::Scenario plain = m_scenario;
        for (auto& j : plain.workload.jobs) {
            j.app.clear();
            j.durationS *= j.gpus;
            j.gpus = j.maxGpus = 1;
        }
        m_fifo = runOf(plain, "fifo", 2);
        QVERIFY(metrics::hasApps(*m_themis.result));
        QVERIFY(!metrics::hasApps(*m_fifo.result));
    }

    // The comparison's CDF: per-app rho of the Themis run (each finished app one step, the largest its max rho),
    // and the run without apps named with why instead of an empty curve.
    void appRhoCdf()
    {
        RunLibrary runs;
        ComparisonView view(&runs);
        const int a = runs.add(m_themis), b = runs.add(m_fifo);
        runs.setCompared({a, b});
        CdfChart* cdf = view.cdf();
        cdf->setMetric(CdfMetric::AppFinishTimeFairness);
        QCOMPARE(cdf->seriesCount(), 1);
        const auto rho = metrics::appFinishTimeFairness(*m_themis.result);
        QCOMPARE(rho.size(), std::size_t(10));
        const auto [hi, steps] = extent(seriesNamed(cdf, m_themis.name));
        QCOMPARE(steps, 10);
        QCOMPARE(hi, *std::max_element(rho.begin(), rho.end()));
        QVERIFY2(cdf->missingText().contains(QStringLiteral("fifo: no apps")), qPrintable(cdf->missingText()));
        QCOMPARE(cdf->chartView()->chart()->axes(Qt::Vertical).front()->titleText(),
                 QStringLiteral("fraction of apps"));

        // Only runs without apps: the title says so rather than showing an empty chart.
        runs.setCompared({b});
        QCOMPARE(cdf->seriesCount(), 0);
        QVERIFY(cdf->chartView()->chart()->title().contains(QStringLiteral("none of the compared runs")));
    }

    // The placement score CDF: one step per allocation, the values core computes from the cluster's locality.
    void placementScoreCdf()
    {
        const auto prepared = sim::prepareScenario(m_scenario);
        const auto scores = metrics::placementScores(*m_themis.result, prepared);
        QVERIFY(!scores.empty());
        QVERIFY(m_themis.placementScores);
        QCOMPARE(*m_themis.placementScores, scores);
        CdfChart cdf;
        RunEntry unknown = m_fifo;
        unknown.placementScores.reset();
        cdf.setRuns({&m_themis, &unknown});
        cdf.setMetric(CdfMetric::PlacementScore);
        QCOMPARE(cdf.seriesCount(), 1);
        const auto [hi, steps] = extent(seriesNamed(&cdf, m_themis.name));
        QCOMPARE(hi, *std::max_element(scores.begin(), scores.end()));
        QCOMPARE(steps, std::min<int>(2000, static_cast<int>(scores.size())));
        const auto lo = *std::min_element(scores.begin(), scores.end());
        QVERIFY(lo > 0 && hi <= 1);
        // by_span on 2-GPU machines: some allocation spans machines, so not every score is 1.
        QVERIFY(lo < 1);
        QVERIFY(cdf.missingText().contains(QStringLiteral("no placement scores")));
    }

    // The auction of the moment, step by step: an auction with several bidders, its numbers against the raw records.
    void auctionOfTheMoment()
    {
        const auto& run = *m_themis.result;
        std::vector<double> times;
        const auto bidders = rawSeries(run, "themis.bidders", &times);
        const auto offered = rawSeries(run, "themis.offered_gpus");
        const auto leftover = rawSeries(run, "themis.leftover_gpus");
        const auto eligible = rawSeries(run, "themis.eligible");
        QVERIFY(!bidders.empty());
        QCOMPARE(offered.size(), bidders.size());
        // The first auction with several bidders that is alone at its time (its leases are then all at that time).
        std::size_t pick = bidders.size();
        for (std::size_t i = 0; i < bidders.size() && pick == bidders.size(); ++i)
            if (bidders[i] >= 2 && std::count(times.begin(), times.end(), times[i]) == 1)
                pick = i;
        QVERIFY2(pick < bidders.size(), "no auction with several bidders in the cut");
        const long long round = static_cast<long long>(pick) + 1;
        const double t = times[pick];

        ClusterAtTimeView view;
        view.setRun(&m_themis);
        QVERIFY(view.auctionView()->isVisibleTo(&view));
        view.showTime(t);
        AuctionStepView* auction = view.auctionView();
        QVERIFY(auction->shown());
        QCOMPARE(auction->shown()->round, round);
        const QString text = auction->text();
        QVERIFY2(text.contains(QStringLiteral("Auction %1 of %2").arg(round).arg(bidders.size())), qPrintable(text));
        QVERIFY(text.contains(QStringLiteral("%1 GPUs without a live lease").arg(offered[pick])) ||
                text.contains(QStringLiteral("1 GPU without a live lease")));
        QVERIFY(text.contains(QStringLiteral("%1 of %2").arg(bidders[pick]).arg(eligible[pick])));
        QVERIFY(text.contains(QStringLiteral("of the %1 offered").arg(offered[pick])));
        QVERIFY(leftover[pick] <= offered[pick]);

        // Each bidder: its rho, its payment, its grant, its bid table, as its event recorded them.
        int events = 0;
        for (const auto& e : run.jobEvents) {
            if (e.kind != sim::JobEventKind::Auction ||
                rawField(e.detail, QStringLiteral("round")).toLongLong() != round)
                continue;
            ++events;
            QCOMPARE(e.timeS, t);
            for (const char* key : {"app", "payment", "rho_now"}) {
                QString value = rawField(e.detail, QString::fromLatin1(key));
                if (value == QStringLiteral("inf") || (key != std::string("app") && value.toDouble() >= 1e9))
                    value = QStringLiteral("\u221e"); // no finite rho: the app can use nothing it keeps
                QVERIFY2(!value.isEmpty() && text.contains(value), key);
            }
            const auto bids = QString::fromStdString(e.detail).section(QStringLiteral("bids=["), 1).chopped(1);
            const auto first = bids.section(QLatin1Char(' '), 1, 1); // the first non-empty bundle: "n:rho"
            if (!first.isEmpty())
                QVERIFY2(text.contains(QStringLiteral("%1 GPU").arg(first.section(QLatin1Char(':'), 0, 0))) &&
                             text.contains(first.section(QLatin1Char(':'), 1)),
                         qPrintable(first));
        }
        QCOMPARE(events, static_cast<int>(bidders[pick]));

        // The leases of this auction (every lease record at its time), GPU ids per app, and outlined on the grid.
        std::vector<double> leaseTimes;
        const auto gpus = rawSeries(run, "themis.lease_gpu", &leaseTimes);
        const auto apps = rawSeries(run, "themis.lease_app");
        std::map<int, QStringList> leased;
        for (std::size_t i = 0; i < gpus.size(); ++i)
            if (leaseTimes[i] == t)
                leased[static_cast<int>(apps[i])] << QString::number(gpus[i]);
        QVERIFY(!leased.empty());
        for (const auto& [job, ids] : leased) {
            QVERIFY2(text.contains(QString::fromStdString(run.jobs[static_cast<std::size_t>(job)].app)), "app");
            QVERIFY2(text.contains(ids.join(QLatin1Char(' '))), qPrintable(ids.join(QLatin1Char(' '))));
        }

        // Just after each auction, a GPU it leased (as the view lists and outlines them) runs a job of the app it
        // was leased to, or nothing.
        for (const auto& rr : auction->rounds()) {
            const auto after = ClusterSnapshot::at(TimelineIndex(m_themis.result), rr.timeS + 1e-6);
            for (const auto& grant : rr.grants)
                for (int gpu : grant.gpus) {
                    const int job = after.jobOnGpu[static_cast<std::size_t>(gpu)];
                    QVERIFY2(job < 0 || run.jobs[static_cast<std::size_t>(job)].app ==
                                            run.jobs[static_cast<std::size_t>(grant.leadJob)].app,
                             qPrintable(
                                 QStringLiteral("GPU %1 leased to %2 runs %3")
                                     .arg(gpu)
                                     .arg(QString::fromStdString(run.jobs[static_cast<std::size_t>(grant.leadJob)].app))
                                     .arg(QString::fromStdString(run.jobs[static_cast<std::size_t>(job)].id))));
                }
        }

        // Next and Previous step through the auctions and move the view's time there.
        QSignalSpy moved(&view, &ClusterAtTimeView::timeChanged);
        auction->nextButton()->click();
        QCOMPARE(auction->shown()->round, round + 1);
        QCOMPARE(view.time(), times[pick + 1]);
        QCOMPARE(moved.count(), 1);
        auction->previousButton()->click();
        QCOMPARE(auction->shown()->round, round);
        QCOMPARE(view.time(), t);

        // Before the first auction: none yet, and Previous is off at the first.
        view.showTime(-1);
        QVERIFY(!auction->shown());
        QVERIFY(auction->text().contains(QStringLiteral("none yet")));
        auction->nextButton()->click();
        QCOMPARE(auction->shown()->round, 1LL);
        QVERIFY(!auction->previousButton()->isEnabled());
    }

    // A run of another policy has no auctions: the panel is hidden.
    void noAuctionsOutsideThemis()
    {
        ClusterAtTimeView view;
        view.setRun(&m_fifo);
        QVERIFY(!view.auctionView()->hasAuctions());
        QVERIFY(!view.auctionView()->isVisibleTo(&view));
        view.setRun(&m_themis);
        QVERIFY(view.auctionView()->isVisibleTo(&view));
    }
};

QTEST_MAIN(TestThemisViews)
#include "test_themis_views.moc"
