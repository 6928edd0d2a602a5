// Frenzy's HAS (Algorithm 1) on hand-worked clusters: the paper's Node(n, s)/Job(n, s) examples
// (spec A.10.3, U-F4 ... U-F10), plan fallback, multi-node greedy placement, and the indexed
// implementation held to the literal one.
#include "test_support.h"

#include "sched/has.h"
#include "sched/has_index.h"

#include <algorithm>
#include <map>

using namespace orrery::sched;

namespace {

std::vector<NodeShare> shares(std::initializer_list<NodeShare> s)
{
    return s;
}

// The Frenzy testbed (spec A.8): head 2 x A100 40 GB, n2 1 x A100 40 GB, n3 4 x A800 80 GB,
// n4 and n5 2 x A100 80 GB each. Ids 0..4 in that order.
std::vector<HasNode> testbed()
{
    return {{0, 2, 40}, {1, 1, 40}, {2, 4, 80}, {3, 2, 80}, {4, 2, 80}};
}

std::optional<HasPlacement> both(const std::vector<HasNode>& nodes, const std::vector<HasPlan>& plans,
                                 const HasOptions& options = {})
{
    auto literal = hasPlace(nodes, plans, options);
    HasIndex index(nodes);
    auto indexed = index.allocate(plans, options);
    if (literal != indexed) {
        qWarning("hasPlace and HasIndex::allocate disagree");
        return HasPlacement{-2, {}};
    }
    return literal;
}

} // namespace

class TestHas : public QObject
{
    Q_OBJECT
private slots:
    // U-F4: Job(2, 32) goes to Node(3, 40), not Node(6, 80); A keeps one idle GPU.
    void bestFitPrefersFewestIdle()
    {
        const std::vector<HasNode> nodes{{0, 3, 40}, {1, 6, 80}};
        auto p = both(nodes, {{2, 32}});
        QVERIFY(p);
        QCOMPARE(p->planIndex, 0);
        QCOMPARE(p->shares, shares({{0, 2}}));
        HasIndex index(nodes);
        QVERIFY(index.allocate(std::vector<HasPlan>{{2, 32}}));
        QCOMPARE(index.idleGpus(0), 1);
        QCOMPARE(index.idleGpus(1), 6);
    }

    // U-F5: Job(4, 35) takes one Node(4, 40), not four Node(1, 40).
    void singleNodeOverSpreading()
    {
        const std::vector<HasNode> nodes{{0, 1, 40}, {1, 1, 40}, {2, 4, 40}, {3, 1, 40}, {4, 1, 40}};
        auto p = both(nodes, {{4, 35}});
        QVERIFY(p);
        QCOMPARE(p->shares, shares({{2, 4}}));
    }

    // U-F6: plans (1, 45) then (2, 35) with only 40 GB GPUs free: the job settles for plan 2.
    void planFallbackWhenBestPlanDoesNotFit()
    {
        auto p = both({{0, 2, 40}}, {{1, 45}, {2, 35}});
        QVERIFY(p);
        QCOMPARE(p->planIndex, 1);
        QCOMPARE(p->shares, shares({{0, 2}}));
        // With an 80 GB GPU free the first plan wins.
        p = both({{0, 2, 40}, {1, 1, 80}}, {{1, 45}, {2, 35}});
        QVERIFY(p);
        QCOMPARE(p->planIndex, 0);
        QCOMPARE(p->shares, shares({{1, 1}}));
    }

    // Fallback also happens when the best plan's GPUs exist but too few are idle.
    void planFallbackOnCount()
    {
        auto p = both({{0, 3, 80}, {1, 8, 24}}, {{4, 30}, {8, 20}});
        QVERIFY(p);
        QCOMPARE(p->planIndex, 1);
        QCOMPARE(p->shares, shares({{1, 8}}));
    }

    // U-F7: no single node holds 4, so the node with most idle GPUs gives 3, then best fit for 1.
    void greedySpill()
    {
        auto p = both({{2, 2, 40}, {3, 3, 40}}, {{4, 35}});
        QVERIFY(p);
        QCOMPARE(p->shares, shares({{3, 3}, {2, 1}}));
    }

    // Multi-node greedy over several rounds and GPU sizes: 13 GPUs > 32 GB from nodes of 4, 4, 3, 2
    // (and a too-small 8-GPU node): 4 (the larger-memory 4 first), 4, 3, then best fit for the last 2.
    void multiNodeGreedy()
    {
        const std::vector<HasNode> nodes{{0, 4, 40}, {1, 4, 80}, {2, 3, 40}, {3, 2, 80}, {4, 8, 24}, {5, 3, 80}};
        auto p = both(nodes, {{13, 32}});
        QVERIFY(p);
        QCOMPARE(p->gpus(), 13);
        QCOMPARE(p->shares, shares({{1, 4}, {0, 4}, {5, 3}, {3, 2}}));
    }

    // U-F8: nothing fits -> nullopt, and the index is left untouched.
    void nothingFits()
    {
        const std::vector<HasNode> nodes{{0, 2, 40}, {1, 1, 80}};
        QVERIFY(!both(nodes, {{1, 80}, {4, 35}, {3, 60}}));
        HasIndex index(nodes);
        QVERIFY(!index.allocate(std::vector<HasPlan>{{4, 35}}));
        QCOMPARE(index.totalIdleGpus(), 3);
        // Strict memory test: a GPU with exactly the required memory does not fit.
        QVERIFY(!both(nodes, {{1, 80.0}}));
        QVERIFY(both(nodes, {{1, 79.9}}));
    }

    // U-F9: the testbed, all idle, plan (4, 35).
    void sizeFilterAtLeastVsExact()
    {
        auto atLeast = both(testbed(), {{4, 35}}, {SizeFilter::AtLeast});
        QVERIFY(atLeast);
        QCOMPARE(atLeast->shares, shares({{2, 4}})); // the 4 x A800 node
        auto exact = both(testbed(), {{4, 35}}, {SizeFilter::Exact});
        QVERIFY(exact);
        // 40 GB class first: head's 2, then n2's 1, then the class is used up and the search widens to
        // 80 GB, where best fit for 1 GPU is the 2-GPU node with the smallest id (n4).
        QCOMPARE(exact->shares, shares({{0, 2}, {1, 1}, {3, 1}}));
    }

    // U-F8/U-F10: a blocked large job; backfilling starts the small one behind it, strict FCFS does not.
    void queueBackfillVsStrictFcfs()
    {
        const std::vector<HasNode> nodes{{0, 2, 40}, {1, 1, 40}};
        const std::vector<HasPlan> big{{4, 35}};
        const std::vector<HasPlan> small{{1, 20}};
        const std::vector<std::span<const HasPlan>> queue{big, small};

        HasIndex backfill(nodes);
        auto started = hasScheduleQueue(backfill, queue);
        QCOMPARE(started.size(), std::size_t(1));
        QCOMPARE(started[0].queuePos, 1);
        QCOMPARE(started[0].placement.shares, shares({{1, 1}})); // best fit: the 1-GPU node
        QCOMPARE(backfill.totalIdleGpus(), 2);

        HasIndex strict(nodes);
        HasOptions o;
        o.strictFcfs = true;
        QVERIFY(hasScheduleQueue(strict, queue, o).empty());
        QCOMPARE(strict.totalIdleGpus(), 3);
    }

    // Jobs started in one pass see each other's GPUs taken; released GPUs come back.
    void queuePassAndRelease()
    {
        HasIndex index(testbed());
        const std::vector<HasPlan> a{{4, 60}};
        const std::vector<HasPlan> b{{2, 30}};
        const std::vector<HasPlan> c{{4, 30}};
        const std::vector<std::span<const HasPlan>> queue{a, b, c, b};
        auto started = hasScheduleQueue(index, queue);
        QCOMPARE(started.size(), std::size_t(3));
        QCOMPARE(started[0].placement.shares, shares({{2, 4}})); // A800 node
        QCOMPARE(started[1].placement.shares, shares({{0, 2}})); // head: fewest idle among 2-GPU nodes
        // No node holds 4: the last of the two 2-GPU 80 GB nodes (n5) gives its 2, best fit takes n4's 2;
        // n2's single GPU stays idle.
        QCOMPARE(started[2].placement.shares, shares({{4, 2}, {3, 2}}));
        QCOMPARE(started[2].queuePos, 2);
        QCOMPARE(index.totalIdleGpus(), 1);
        index.release(started[0].placement);
        QCOMPARE(index.idleGpus(2), 4);
        QCOMPARE(index.totalIdleGpus(), 5);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, index.take(1, 2));
    }

    // The indexed HAS answers exactly what the literal Algorithm 1 answers, and every answer is a
    // valid placement: the plan's GPU count, adequate GPUs only, never more than a node has idle.
    void indexMatchesLiteral()
    {
        ORRERY_CHECK_PROPERTY("HasIndex::allocate == hasPlace, and placements are valid", [] {
            const int nNodes = *rc::gen::inRange(1, 12);
            const double sizes[] = {11, 24, 40, 80};
            std::vector<HasNode> nodes;
            for (int i = 0; i < nNodes; ++i) {
                nodes.push_back({i * 7 % 13 + 100 * (i % 2), *rc::gen::inRange(0, 9), sizes[*rc::gen::inRange(0, 4)]});
            }
            std::sort(nodes.begin(), nodes.end(), [](auto& a, auto& b) { return a.id < b.id; });
            nodes.erase(std::unique(nodes.begin(), nodes.end(), [](auto& a, auto& b) { return a.id == b.id; }),
                        nodes.end());
            std::vector<HasPlan> plans;
            const int nPlans = *rc::gen::inRange(1, 4);
            for (int i = 0; i < nPlans; ++i) {
                plans.push_back({*rc::gen::inRange(1, 20), double(*rc::gen::inRange(5, 85))});
            }
            const HasOptions options{*rc::gen::element(SizeFilter::AtLeast, SizeFilter::Exact), false};
            const auto literal = hasPlace(nodes, plans, options);
            HasIndex index(nodes);
            const auto indexed = index.allocate(plans, options);
            RC_ASSERT(literal == indexed);
            if (!literal) {
                for (const HasPlan& p : plans) {
                    int adequate = 0;
                    for (const HasNode& n : nodes) {
                        adequate += n.gpuMemoryGiB > p.requiredGiB ? n.idleGpus : 0;
                    }
                    RC_ASSERT(adequate < p.gpus);
                }
                return;
            }
            const HasPlan& plan = plans[static_cast<std::size_t>(literal->planIndex)];
            RC_ASSERT(literal->gpus() == plan.gpus);
            std::map<int, int> taken;
            for (const NodeShare& s : literal->shares) {
                taken[s.node] += s.gpus;
            }
            for (const HasNode& n : nodes) {
                RC_ASSERT(taken[n.id] <= n.idleGpus);
                if (taken[n.id] > 0) {
                    RC_ASSERT(n.gpuMemoryGiB > plan.requiredGiB);
                }
                RC_ASSERT(index.idleGpus(n.id) == n.idleGpus - taken[n.id]);
            }
            // Earlier plans really did not fit.
            for (int i = 0; i < literal->planIndex; ++i) {
                int adequate = 0;
                for (const HasNode& n : nodes) {
                    adequate += n.gpuMemoryGiB > plans[std::size_t(i)].requiredGiB ? n.idleGpus : 0;
                }
                RC_ASSERT(adequate < plans[std::size_t(i)].gpus);
            }
            // A single adequate node holding the whole plan means a one-node placement.
            if (options.sizeFilter == SizeFilter::AtLeast) {
                const bool oneNodeFits = std::any_of(nodes.begin(), nodes.end(), [&](const HasNode& n) {
                    return n.gpuMemoryGiB > plan.requiredGiB && n.idleGpus >= plan.gpus;
                });
                RC_ASSERT(oneNodeFits == (literal->shares.size() == 1));
            }
        });
    }

    // More than 4,096 nodes of one size (the index's bitmaps need their second level), ids unordered.
    void largeClusterMatchesLiteral()
    {
        std::vector<HasNode> nodes;
        for (int i = 0; i < 9000; ++i) {
            // Idle counts cluster at the high ids so first/last searches cross many words.
            const int idle = i > 8000 ? (i * 7) % 9 : (i % 997 == 0 ? 3 : 0);
            nodes.push_back({(i * 7919) % 9001, idle, i % 2 ? 80.0 : 40.0});
        }
        HasIndex index(nodes);
        const std::vector<std::vector<HasPlan>> jobs{{{3, 30}}, {{8, 60}},  {{20, 30}}, {{1, 50}}, {{7, 35}},
                                                     {{2, 10}}, {{64, 70}}, {{5, 39}},  {{9, 45}}};
        for (int round = 0; round < 40; ++round) {
            for (const auto& plans : jobs) {
                const auto literal = hasPlace(nodes, plans);
                QCOMPARE(index.allocate(plans), literal);
                if (!literal) {
                    continue;
                }
                for (const NodeShare& s : literal->shares) {
                    auto it =
                        std::find_if(nodes.begin(), nodes.end(), [&](const HasNode& n) { return n.id == s.node; });
                    it->idleGpus -= s.gpus;
                }
            }
        }
        QVERIFY(index.totalIdleGpus() < 1000); // the loop did take most of the idle GPUs
    }

    // The index stays equal to the literal algorithm through a run of allocations and releases
    // (buckets emptied and refilled, idle counts growing past their starting values).
    void indexTracksAllocateAndRelease()
    {
        ORRERY_CHECK_PROPERTY("HasIndex == hasPlace across allocate/release sequences", [] {
            const double sizes[] = {11, 24, 40, 80};
            std::vector<HasNode> mirror;
            const int nNodes = *rc::gen::inRange(1, 10);
            for (int i = 0; i < nNodes; ++i) {
                mirror.push_back({3 * i + 1, *rc::gen::inRange(0, 5), sizes[*rc::gen::inRange(0, 4)]});
            }
            HasIndex index(mirror);
            std::vector<HasPlacement> running;
            const auto filter = *rc::gen::element(SizeFilter::AtLeast, SizeFilter::Exact);
            const int steps = *rc::gen::inRange(1, 30);
            for (int step = 0; step < steps; ++step) {
                if (!running.empty() && *rc::gen::inRange(0, 3) == 0) {
                    const auto k = static_cast<std::size_t>(*rc::gen::inRange(0, int(running.size())));
                    index.release(running[k]);
                    for (const NodeShare& s : running[k].shares) {
                        for (HasNode& n : mirror) {
                            n.idleGpus += n.id == s.node ? s.gpus : 0;
                        }
                    }
                    running.erase(running.begin() + std::ptrdiff_t(k));
                } else if (*rc::gen::inRange(0, 6) == 0) {
                    // GPUs coming back that were busy before the index was built.
                    const auto k = static_cast<std::size_t>(*rc::gen::inRange(0, nNodes));
                    const int extra = *rc::gen::inRange(1, 6);
                    index.release(mirror[k].id, extra);
                    mirror[k].idleGpus += extra;
                } else {
                    const std::vector<HasPlan> plans{{*rc::gen::inRange(1, 12), double(*rc::gen::inRange(5, 85))},
                                                     {*rc::gen::inRange(1, 12), double(*rc::gen::inRange(5, 85))}};
                    const auto literal = hasPlace(mirror, plans, {filter, false});
                    const auto indexed = index.allocate(plans, {filter, false});
                    RC_ASSERT(literal == indexed);
                    if (literal) {
                        for (const NodeShare& s : literal->shares) {
                            for (HasNode& n : mirror) {
                                n.idleGpus -= n.id == s.node ? s.gpus : 0;
                            }
                        }
                        running.push_back(*literal);
                    }
                }
                int total = 0;
                for (const HasNode& n : mirror) {
                    RC_ASSERT(index.idleGpus(n.id) == n.idleGpus);
                    RC_ASSERT(n.idleGpus >= 0);
                    total += n.idleGpus;
                }
                RC_ASSERT(index.totalIdleGpus() == total);
            }
        });
    }
};

QTEST_GUILESS_MAIN(TestHas)
#include "test_has.moc"
