// What the speed-ups of Gavel's policies must keep: the same results to the last bit. ECOS' method on classes of
// alike jobs against the method on every job (max_sum_throughput_perf's point), the classes themselves, and the
// sort Gavel's rounds place their picks with against std::stable_sort.
#include "test_support.h"

#include "sched/alike_jobs.h"
#include "sched/gavel_lp.h"
#include "util/mostly_sorted.h"

#include <QTest>
#include <rapidcheck.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

using namespace orrery;

namespace {

/** J jobs of a few kinds (rows of rate and demand shared within a kind), kinds interleaved in a random order. */
sched::AllocationInput jobsOfFewKinds()
{
    const int types = *rc::gen::inRange(1, 5);
    const int kinds = *rc::gen::inRange(1, 7);
    const int jobs = *rc::gen::inRange(1, 41);
    const auto T = static_cast<std::size_t>(types);
    std::vector<double> kindRate(static_cast<std::size_t>(kinds) * T);
    std::vector<int> kindDemand(kindRate.size());
    for (std::size_t k = 0; k < kindRate.size(); ++k) {
        // Some cells cannot run (rate 0), as a job that does not fit a type.
        kindRate[k] = *rc::gen::inRange(0, 5) == 0 ? 0.0 : *rc::gen::inRange(1, 100000) / 1000.0;
        kindDemand[k] = *rc::gen::inRange(1, 5);
    }
    sched::AllocationInput in{jobs, types, {}, {}, {}};
    for (int j = 0; j < jobs; ++j) {
        const auto kind = static_cast<std::size_t>(*rc::gen::inRange(0, kinds));
        for (std::size_t t = 0; t < T; ++t) {
            in.rate.push_back(kindRate[kind * T + t]);
            in.demand.push_back(kindDemand[kind * T + t]);
        }
    }
    for (int t = 0; t < types; ++t)
        in.capacity.push_back(*rc::gen::inRange(1, 25));
    return in;
}

} // namespace

class TestGavelSpeedups : public QObject
{
    Q_OBJECT
private slots:
    void alikeJobsShareAClass()
    {
        // Jobs 0 and 2 alike; job 1 differs from them in demand only, job 3 in rate only.
        const std::vector<int> demand{1, 1, 2, 1, 1, 1, 1, 1};
        const std::vector<double> rate{3, 4, 3, 4, 3, 4, 3, 5};
        const auto c = sched::alikeJobs(4, 2, demand, rate);
        QCOMPARE(c.count(), std::size_t(3));
        QCOMPARE(c.classOf, (std::vector<int>{0, 1, 0, 2}));
        QCOMPARE(c.members, (std::vector<int>{2, 1, 1}));
        QCOMPARE(c.first, (std::vector<std::size_t>{0, 1, 3}));
        const auto alone = sched::eachJobAlone(3);
        QCOMPARE(alone.classOf, (std::vector<int>{0, 1, 2}));
        QCOMPARE(alone.members, (std::vector<int>{1, 1, 1}));
    }

    void maxSumPointOnClassesIsTheSameBits()
    {
        // Every sum over jobs still runs over all jobs in order, so the merged method is the unmerged one to the
        // bit: iterates, stopping iteration and status (a different bit could end one at another iteration).
        QVERIFY(rc::check("ecosMaxSumPoint merged == unmerged, bit for bit", [] {
            const sched::AllocationInput in = jobsOfFewKinds();
            const std::vector<double> merged = sched::ecosMaxSumPoint(in, true);
            const std::vector<double> each = sched::ecosMaxSumPoint(in, false);
            RC_CLASSIFY(merged.empty(), "no point");
            RC_CLASSIFY(sched::alikeJobs(in.jobs, in.types, in.demand, in.rate).count() < std::size_t(in.jobs),
                        "classes merged");
            RC_ASSERT(merged.size() == each.size());
            for (std::size_t k = 0; k < merged.size(); ++k)
                RC_ASSERT(std::memcmp(&merged[k], &each[k], sizeof(double)) == 0);
        }));
    }

    void mostlySortedSortIsStableSort()
    {
        // Keys with many ties, each element tagged with its position: a stable order is the only right answer.
        QVERIFY(rc::check("stableSortMostlySorted == std::stable_sort", [] {
            const int n = *rc::gen::inRange(0, 600);
            const int keys = *rc::gen::inRange(1, 20);
            std::vector<std::pair<int, int>> v;
            for (int i = 0; i < n; ++i)
                v.emplace_back(*rc::gen::inRange(0, keys), i);
            // Nearly in order (a few elements out of place), or not at all (the fallback after too many moves).
            if (*rc::gen::arbitrary<bool>()) {
                std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
                const int swaps = *rc::gen::inRange(0, 6);
                for (int s = 0; s < swaps && n > 1; ++s)
                    std::swap(v[static_cast<std::size_t>(*rc::gen::inRange(0, n))],
                              v[static_cast<std::size_t>(*rc::gen::inRange(0, n))]);
            }
            const auto byKey = [](const auto& a, const auto& b) { return a.first > b.first; };
            auto want = v;
            std::stable_sort(want.begin(), want.end(), byKey);
            util::stableSortMostlySorted(v.begin(), v.end(), byKey);
            RC_ASSERT(v == want);
        }));
    }
};

QTEST_GUILESS_MAIN(TestGavelSpeedups)
#include "test_gavel_speedups.moc"
