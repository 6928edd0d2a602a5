// What a run store holds: runs read back as written (column chunks, series synced in pieces), damaged
// chunks reported, scenarios shared by content, listing, filtering and deleting runs.
#include "store_test_helpers.h"

using namespace orrery;
using namespace orrery::test::storetest;

class TestStoreContents : public orrery::test::TempDirTest
{
    Q_OBJECT
private slots:
    void roundTripProperty()
    {
        const auto p = path("roundtrip.sqlite");
        store::RunStore s(p);
        ORRERY_CHECK_PROPERTY("a run reads back as it was stored", [&] {
            const sim::RunResult run = *genRun();
            const auto id = s.storeRun(info(run.policy), run);
            const auto back = s.loadRun(id);
            compareRuns(run, back.result);
            RC_ASSERT(back.layout == test::twoNodeLayout());
            RC_ASSERT(back.record.status ==
                      (run.cancelled ? store::RunStatus::Cancelled : store::RunStatus::Completed));
            RC_ASSERT(back.record.jobCount == std::optional<int>(static_cast<int>(run.jobs.size())));
        });
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void gpuLayoutsOfAnyShapeReadBack()
    {
        // Schema 11 keeps the layout as GPU chunks (one row per run up to kChunkRows GPUs): any cluster, past a chunk,
        // stored whole or by a run writer, reads back as it was, and the result's per-GPU type indices follow it.
        store::RunStore s(path("layouts.sqlite"));
        ORRERY_CHECK_PROPERTY("a GPU layout reads back as stored", [&] {
            const std::vector<std::string> names = {"v100-0", "n\"1,", "knoten-\u00e9", "", "k80"};
            const std::vector<std::string> types = {"a100-40gb-sxm", "rtx2080ti", "mixed"};
            hardware::GpuLayout layout;
            const int nodes = *rc::gen::inRange(0, 40);
            const int perNode =
                *rc::gen::inRange(1, nodes > 0 ? 2 * static_cast<int>(store::kChunkRows) / nodes + 2 : 2);
            for (int n = 0; n < nodes; ++n) {
                layout.nodeNames.push_back(names[static_cast<std::size_t>(n) % names.size()] + std::to_string(n));
                const int count = *rc::gen::inRange(1, perNode + 1);
                const std::string& type = types[static_cast<std::size_t>(*rc::gen::inRange(0, 3))];
                for (int g = 0; g < count; ++g) {
                    layout.gpuNode.push_back(n);
                    layout.gpuTypes.push_back(type);
                }
            }
            store::RunInfo i = info();
            i.layout = layout;
            sim::RunResult run = smallRun();
            std::int64_t id = 0;
            if (*rc::gen::arbitrary<bool>()) {
                id = s.storeRun(i, run);
            } else {
                auto writer = s.beginRun(i);
                writer.finish(run, store::RunStatus::Completed);
                id = writer.runId();
            }
            const auto back = s.loadRun(id);
            RC_ASSERT(back.layout == layout);
            RC_ASSERT(back.result.gpuType.size() == layout.gpuTypes.size());
            for (std::size_t g = 0; g < layout.gpuTypes.size(); ++g) {
                const int t = back.result.gpuType[g];
                RC_ASSERT(t == (layout.gpuTypes[g] == "mixed" ? -1 : (layout.gpuTypes[g] == "rtx2080ti" ? 1 : 0)));
            }
            const auto chunks =
                static_cast<std::int64_t>((layout.gpuNode.size() + store::kChunkRows - 1) / store::kChunkRows);
            RC_ASSERT(count(s, fmt::format("SELECT count(*) FROM gpu_chunks WHERE run_id = {}", id)) == chunks);
        });
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void aGpuOnANodeTheLayoutDoesNotNameIsRefused()
    {
        store::RunStore s(path("bad-layout.sqlite"));
        store::RunInfo i = info();
        i.layout.gpuNode.back() = 7; // two nodes named
        const std::string error = test::errorOf([&] { s.storeRun(i, smallRun()); });
        QVERIFY2(error.find("bad-layout.sqlite: gpus: GPU 5 is on node 7, but the cluster has 2 nodes") !=
                     std::string::npos,
                 error.c_str());
        QCOMPARE(count(s, "SELECT count(*) FROM runs"), std::int64_t(0));
    }

    void seriesSyncedInPiecesAcrossChunksReadBack()
    {
        const auto p = path("chunks.sqlite");
        store::RunStore s(p);
        ORRERY_CHECK_PROPERTY("series synced at arbitrary points, across chunk boundaries, read back whole", [&] {
            const auto n = static_cast<std::size_t>(*rc::gen::inRange(0, 3 * static_cast<int>(store::kChunkRows) + 7));
            sim::RunResult full = smallRun();
            full.jobs.clear();
            full.intervals.clear();
            full.utilization.clear();
            full.decisions.clear();
            // Jobs finish in an arbitrary order, which is the order their records are written in.
            std::vector<std::size_t> finishRank(n);
            std::iota(finishRank.begin(), finishRank.end(), std::size_t(0));
            std::mt19937 rng(*rc::gen::arbitrary<std::uint32_t>());
            std::shuffle(finishRank.begin(), finishRank.end(), rng);
            for (std::size_t i = 0; i < n; ++i) {
                sim::JobRecord j;
                j.id = fmt::format("job-{}", i);
                j.model = i % 4 ? "resnet50" : "gpt2-xl";
                j.user = fmt::format("u{}", i % 9);
                j.gpuType = i % 5 ? "v100" : "mixed";
                j.arrivalS = i * 0.25;
                j.startS = i % 29 == 0 ? -1 : i * 0.25 + 3;
                j.endS = i % 17 == 0 || j.startS < 0 ? -1 : i * 0.25 + 90.5;
                j.gpus = j.demand = 1 << (i % 3);
                j.nodes = 1 + static_cast<int>(i % 2);
                j.restarts = static_cast<int>(i % 4);
                j.gpuSeconds = i * 1.5;
                j.costUsd = i * 0.001;
                j.idealS = 80 + i % 7;
                j.excludedFromAverage = i % 13 == 0;
                full.jobs.push_back(j);
                full.intervals.push_back({static_cast<int>(i % 3), static_cast<int>(i % 6), i * 1.5, i * 1.5 + 7});
                full.utilization.push_back(
                    {i * 2.0, static_cast<int>(i % 7), {static_cast<int>(i % 5), static_cast<int>(i % 3)}});
                full.decisions.push_back({i * 0.5, i * 1e-6, static_cast<int>(i % 11), static_cast<int>(i % 13)});
            }
            auto cuts = *rc::gen::container<std::vector<std::size_t>>(rc::gen::inRange<std::size_t>(0, n + 1));
            std::sort(cuts.begin(), cuts.end());
            auto writer = s.beginRun(info(), *rc::gen::inRange(1, 20000));
            for (const std::size_t cut : cuts) {
                sim::RunResult partial = full;
                for (std::size_t i = 0; i < n; ++i) {
                    if (finishRank[i] >= cut)
                        partial.jobs[i].endS = -1; // not finished yet: its record is not final
                }
                partial.intervals.resize(cut);
                partial.utilization.resize(cut);
                partial.decisions.resize(cut);
                writer.sync(partial);
            }
            writer.finish(full, store::RunStatus::Completed);
            compareRuns(full, s.loadRun(writer.runId()).result);
            RC_ASSERT(s.connection().queryInt(fmt::format("SELECT sum(records) FROM decision_chunks WHERE run_id = {}",
                                                          writer.runId())) == static_cast<std::int64_t>(n));
            RC_ASSERT(s.connection().queryInt(fmt::format(
                          "SELECT coalesce(sum(records), 0) FROM job_chunks WHERE run_id = {}", writer.runId())) ==
                      static_cast<std::int64_t>(n));
        });
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void damagedJobChunkIsReportedNotMisread()
    {
        const std::pair<const char*, const char*> cases[] = {
            {"UPDATE job_chunks SET labels = x'6100'", "model refers to label 1 of 1"},
            {"UPDATE job_chunks SET labels = x'61'", "labels do not end with a NUL byte"},
            {"UPDATE job_chunks SET job_index = x'000000000000000000000000'", "job 0 is stored twice"},
            {"UPDATE job_chunks SET cost_usd = x'00'", "cost_usd holds 1 bytes, expected 24"},
            // Job indices 0, 14680064, 2: below kMaxJobIndex, but past the run's three jobs (fuzz_column_chunks).
            {"UPDATE job_chunks SET job_index = x'000000000000e00002000000'",
             "record 1: job_index 14680064 is past the run's 3 jobs"},
        };
        int n = 0;
        for (const auto& [damage, expected] : cases) {
            const auto p = path(fmt::format("damaged-jobs-{}.sqlite", n++));
            store::RunStore s(p);
            const auto id = s.storeRun(info(), smallRun());
            s.connection().exec(damage);
            try {
                s.loadRun(id);
                QFAIL(damage);
            } catch (const Error& e) {
                QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(p));
                const std::string what = e.what();
                QVERIFY2(what.find("job_chunks") != std::string::npos, e.what());
                QVERIFY2(what.find(fmt::format("run {} chunk 0", id)) != std::string::npos, e.what());
                QVERIFY2(what.find(expected) != std::string::npos, e.what());
            }
        }
    }

    void labelWithNulIsRefused()
    {
        const auto p = path("nul.sqlite");
        store::RunStore s(p);
        auto run = smallRun();
        run.jobs[0].id = std::string("a\0b", 3);
        QVERIFY_THROWS_EXCEPTION(Error, s.storeRun(info(), run));
    }

    void damagedChunkIsReportedNotMisread()
    {
        const auto p = path("damaged-chunk.sqlite");
        store::RunStore s(p);
        const auto id = s.storeRun(info(), smallRun());
        s.connection().exec("UPDATE interval_chunks SET start_s = x'0000'");
        try {
            s.loadRun(id);
            QFAIL("a damaged chunk was read");
        } catch (const Error& e) {
            QCOMPARE(QString::fromStdString(e.file()), QString::fromStdString(p));
            const std::string what = e.what();
            QVERIFY2(what.find("interval_chunks") != std::string::npos, e.what());
            QVERIFY2(what.find("start_s holds 2 bytes, expected 40") != std::string::npos, e.what());
        }
    }

    void scenariosAreSharedByContent()
    {
        store::RunStore s(path("scenarios.sqlite"));
        const auto a = s.storeScenario("a", R"({"x":1})");
        QCOMPARE(s.storeScenario("a again", R"({"x":1})"), a);
        QVERIFY(s.storeScenario("b", R"({"x":2})") != a);
        QCOMPARE(s.scenarioJson(a), std::string(R"({"x":1})"));
    }

    void listFiltersAndDelete()
    {
        store::RunStore s(path("list.sqlite"));
        const auto fifo = s.storeRun(info("fifo"), smallRun("fifo"));
        auto cancelled = smallRun("sjf");
        cancelled.cancelled = true;
        const auto sjf = s.storeRun(info("sjf"), cancelled);
        const auto other = s.storeRun(info("fifo", R"({"name":"other"})"), smallRun("fifo"));
        QCOMPARE(s.listRuns().size(), std::size_t(3));
        QCOMPARE(s.listRuns(filter("", "fifo")).size(), std::size_t(2));
        const auto c = s.listRuns(filter("", "", store::RunStatus::Cancelled));
        QCOMPARE(c.size(), std::size_t(1));
        QCOMPARE(c[0].id, sjf);
        const std::string hash = util::fnv1a64Hex(R"({"name":"other"})");
        const auto byHash = s.listRuns(filter(hash.substr(0, 6), ""));
        QCOMPARE(byHash.size(), std::size_t(1));
        QCOMPARE(byHash[0].id, other);
        QCOMPARE(s.listRuns(filter("t", "")).size(), std::size_t(3));
        QCOMPARE(s.listRuns(filter("", "", {}, 2)).size(), std::size_t(2));

        const auto r = *s.findRun(fifo);
        QCOMPARE(r.finishedJobCount.value_or(-1), 2);
        QCOMPARE(r.avgJctS.value_or(0), (100.0 + 290.0) / 2);
        QCOMPARE(r.costUsd.value_or(0), 1.2);

        QVERIFY(s.deleteRun(other));
        QVERIFY(!s.deleteRun(other));
        QVERIFY(!s.findRun(other));
        QCOMPARE(count(s, fmt::format("SELECT count(*) FROM job_chunks WHERE run_id = {}", other)), std::int64_t(0));
        QCOMPARE(count(s, fmt::format("SELECT count(*) FROM interval_chunks WHERE run_id = {}", other)),
                 std::int64_t(0));
        QCOMPARE(count(s, "SELECT count(*) FROM scenarios"), std::int64_t(1)); // the orphaned scenario went too
        QVERIFY_THROWS_EXCEPTION(Error, s.loadRun(other));
    }
};

QTEST_GUILESS_MAIN(TestStoreContents)
#include "test_store_contents.moc"
