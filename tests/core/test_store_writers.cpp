// A run store while runs are written: syncs committed as they happen, records rewritten at finish, writers
// that die or abandon their run, live runs protected, interrupted runs read back.
#include "store_test_helpers.h"

using namespace orrery;
using namespace orrery::test::storetest;

class TestStoreWriters : public orrery::test::TempDirTest
{
    Q_OBJECT
private slots:
    void syncsAreCommittedAsTheyHappen()
    {
        const auto p = path("batches.sqlite");
        store::RunStore s(p);
        auto writer = s.beginRun(info(), 4);
        auto run = smallRun();
        run.jobs.resize(2);    // j2 has not arrived yet
        run.jobs[1].endS = -1; // j1 still runs: its record is not final
        writer.sync(run);      // 5 intervals + 4 samples + 3 decisions + 1 finished job, in batches of 4
        store::RunStore reader(p);
        const auto committed =
            count(reader, "SELECT (SELECT sum(records) FROM interval_chunks) + (SELECT sum(records) FROM "
                          "utilization_chunks) + (SELECT sum(records) FROM decision_chunks) + "
                          "(SELECT sum(records) FROM job_chunks)");
        QCOMPARE(committed, std::int64_t(13));
        QCOMPARE(reader.findRun(writer.runId())->status, store::RunStatus::Running); // its writer is alive
        writer.finish(smallRun(), store::RunStatus::Completed);
        QCOMPARE(count(reader, "SELECT sum(records) FROM job_chunks"), std::int64_t(3));
        QCOMPARE(reader.findRun(writer.runId())->status, store::RunStatus::Completed);
        compareRuns(smallRun(), reader.loadRun(writer.runId()).result);
    }

    void reorderedIntervalsAreRewrittenAtFinish()
    {
        store::RunStore s(path("reorder.sqlite"));
        auto writer = s.beginRun(info(), 3);
        auto run = smallRun();
        writer.sync(run);
        // The simulator sorts its intervals by GPU when the run ends.
        std::stable_sort(run.intervals.begin(), run.intervals.end(),
                         [](const auto& a, const auto& b) { return a.gpu < b.gpu; });
        writer.finish(run, store::RunStatus::Completed);
        compareRuns(run, s.loadRun(writer.runId()).result);
        QCOMPARE(count(s, "SELECT sum(records) FROM interval_chunks"), std::int64_t(run.intervals.size()));
    }

    /**
     * The simulator changes its last utilisation sample in place when a later step at the same instant
     * changes the busy count; a sync between the two steps must not leave the stale value in the store
     * (a stored run would chart a dip that never happened).
     */
    void lastSampleChangedInPlaceIsRewritten()
    {
        store::RunStore s(path("last-sample.sqlite"));
        auto writer = s.beginRun(info());
        auto run = smallRun();
        QVERIFY(run.utilization.size() >= 2);
        auto& last = run.utilization.back();
        const int finalBusy = last.busyGpus;
        last.busyGpus = finalBusy + 3; // the state a sync saw before a later step at the same instant
        last.busyByType.assign(last.busyByType.size(), 1);
        writer.sync(run);
        last = smallRun().utilization.back();
        QCOMPARE(last.busyGpus, finalBusy);
        writer.sync(run); // nothing new but the changed sample
        store::RunStore reader(path("last-sample.sqlite"));
        const auto synced = reader.loadRun(writer.runId()).result.utilization;
        QCOMPARE(synced.size(), run.utilization.size());
        QCOMPARE(synced.back().busyGpus, finalBusy);
        writer.finish(run, store::RunStatus::Completed);
        compareRuns(run, s.loadRun(writer.runId()).result);
    }

    void runsOfDeadWritersAreMarkedInterrupted()
    {
        const auto p = path("interrupted.sqlite");
        std::int64_t id = 0;
        {
            store::RunStore s(p);
            auto writer = s.beginRun(info());
            id = writer.runId();
            writer.sync(smallRun());
            // Pretend a process that no longer exists wrote it (pids never reach this value on Linux).
            s.connection().exec(fmt::format("UPDATE runs SET writer_pid = 2147483000 WHERE id = {}", id));
            // Leave it as a killed process would: no finish(), no destructor clean-up. A static
            // pointer keeps it reachable, so LeakSanitizer does not count it as a leak.
            [[maybe_unused]] static store::RunWriter* abandoned = nullptr;
            abandoned = new store::RunWriter(std::move(writer));
        }
        store::RunStore s(p);
        QCOMPARE(s.recoveredRuns(), std::vector<std::int64_t>{id});
        const auto r = *s.findRun(id);
        QCOMPARE(r.status, store::RunStatus::Failed);
        QCOMPARE(r.error, std::string("interrupted"));
        QVERIFY(!r.finishedAt.empty());
        // What was committed before the interruption is kept.
        const auto back = s.loadRun(id).result;
        QCOMPARE(back.intervals.size(), std::size_t(5));
        QCOMPARE(back.jobs.size(), std::size_t(2)); // the finished ones
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }

    void abandonedWriterMarksItsRunFailed()
    {
        store::RunStore s(path("abandoned.sqlite"));
        std::int64_t id = 0;
        {
            auto writer = s.beginRun(info());
            id = writer.runId();
            writer.sync(smallRun());
        }
        const auto r = *s.findRun(id);
        QCOMPARE(r.status, store::RunStatus::Failed);
        QVERIFY(r.error.find("before the run ended") != std::string::npos);

        auto writer = s.beginRun(info());
        writer.fail("policy threw: out of memory");
        QCOMPARE(s.findRun(writer.runId())->error, std::string("policy threw: out of memory"));
    }

    void deletingALiveRunIsRefused()
    {
        store::RunStore s(path("live.sqlite"));
        auto writer = s.beginRun(info());
        QVERIFY_THROWS_EXCEPTION(Error, s.deleteRun(writer.runId()));
        writer.finish(smallRun(), store::RunStatus::Completed);
        QVERIFY(s.deleteRun(writer.runId()));
    }

    /** An interrupted run's jobs that had not finished are absent, not placeholders (empty id, arrival 0). */
    void interruptedRunReportsOnlyStoredJobs()
    {
        store::RunStore s(path("partial.sqlite"));
        auto writer = s.beginRun(info());
        sim::RunResult r = smallRun();
        r.jobs[0].endS = -1; // job 0 still running, job 1 finished, job 2 not started
        writer.sync(r);
        writer.fail("killed");
        const auto run = s.loadRun(writer.runId());
        QVERIFY(run.partial);
        QCOMPARE(run.storedJobCount(), std::size_t(1));
        QCOMPARE(run.jobStored, (std::vector<char>{0, 1}));

        const auto doc = io::storedRunToJson(run);
        QCOMPARE(doc["partial"].get<bool>(), true);
        QCOMPARE(doc["jobs"].size(), std::size_t(1));
        QCOMPARE(doc["jobs"][0]["job_index"].get<int>(), 1);
        QCOMPARE(doc["jobs"][0]["job_id"].get<std::string>(), std::string("j,\"1\""));

        std::ostringstream csv;
        io::writeJobsCsv(csv, run.result, &run.jobStored);
        const std::string text = csv.str();
        QCOMPARE(std::count(text.begin(), text.end(), '\n'), 2L); // header and job 1
        QVERIFY2(text.find("\n1,") != std::string::npos, text.c_str());

        const auto cmp = store::compareRuns(s, {writer.runId()});
        QCOMPARE(cmp.metrics[0], std::string("jobs"));
        QCOMPARE(*cmp.values[0][0], 1.0);

        // A run that ended holds all its jobs and is not partial.
        const auto done = s.loadRun(s.storeRun(info(), smallRun()));
        QVERIFY(!done.partial);
        QCOMPARE(done.storedJobCount(), std::size_t(3));
    }
};

QTEST_GUILESS_MAIN(TestStoreWriters)
#include "test_store_writers.moc"
