// WAL checkpoints taken off a store's writer (store::WalCheckpointer, what a sweep's threads use): checkpoints run
// beside the writing thread, the log stops growing, what was stored reads back whole, and the writer gets SQLite's own
// checkpoints back afterwards.
#include "store_test_helpers.h"

#include "store/wal_checkpointer.h"

#include <atomic>
#include <mutex>

using namespace orrery;
using namespace orrery::test::storetest;

namespace {

std::uintmax_t walBytes(const std::string& db)
{
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(db + "-wal", ec);
    return ec ? 0 : bytes;
}

/** Stores `batches` batches of four runs, each in its own transaction, under `lock`; returns their ids. */
std::vector<std::int64_t> storeBatches(store::RunStore& s, std::mutex& lock, int batches,
                                       const std::function<void()>& afterEach)
{
    const auto run = smallRun();
    const auto i = info();
    std::vector<std::int64_t> ids;
    for (int b = 0; b < batches; ++b) {
        {
            std::lock_guard guard(lock);
            for (const auto& outcome : s.storeRuns({{&i, &run}, {&i, &run}, {&i, &run}, {&i, &run}}))
                ids.push_back(outcome.runId);
        }
        afterEach();
    }
    return ids;
}

} // namespace

class TestStoreCheckpoints : public orrery::test::TempDirTest
{
    Q_OBJECT
private slots:
    void checkpointsRunBesideTheWriterAndTheLogStopsGrowing()
    {
        // The same writes twice: once with no checkpoint at all (the checkpointer installed, never asked), once with
        // checkpoints after every turn of two writing threads. Small thresholds, so that the cap on the log (a
        // checkpoint under the writer's lock) is reached too.
        const auto unchecked = path("unchecked.sqlite"), checked = path("checked.sqlite");
        constexpr int kBatches = 60;
        std::uintmax_t uncheckedWal = 0;
        {
            store::RunStore s(unchecked);
            std::mutex lock;
            store::WalCheckpointer cp(s.connection(), lock, 8, 32);
            storeBatches(s, lock, kBatches, [] {});
            QCOMPARE(cp.checkpoints(), 0);
            uncheckedWal = walBytes(unchecked);
        }
        store::RunStore s(checked);
        std::mutex lock;
        std::vector<std::int64_t> ids, otherIds;
        int checkpoints = 0;
        std::uintmax_t checkedWal = 0;
        {
            // Two threads take turns at the store and checkpoint after each turn, as a sweep's threads do.
            store::WalCheckpointer cp(s.connection(), lock, 8, 32);
            std::thread other([&] { otherIds = storeBatches(s, lock, kBatches / 2, [&] { cp.checkpoint(); }); });
            ids = storeBatches(s, lock, kBatches / 2, [&] { cp.checkpoint(); });
            other.join();
            checkpoints = cp.checkpoints();
            checkedWal = walBytes(checked);
        }
        ids.insert(ids.end(), otherIds.begin(), otherIds.end());
        QVERIFY2(checkpoints >= 5, std::to_string(checkpoints).c_str());
        // The log was started again from its beginning, its growth bounded by twice the cap: a fraction of what the
        // same writes left without checkpoints.
        QVERIFY2(checkedWal * 3 < uncheckedWal, fmt::format("{} against {} bytes", checkedWal, uncheckedWal).c_str());
        QCOMPARE(ids.size(), std::size_t(4 * kBatches));
        for (const auto id : ids)
            QCOMPARE(s.loadRun(id).result.jobs.size(), std::size_t(3));
        // Its hook is gone with it: SQLite's own checkpoints are back, and commits call nothing that no longer exists.
        const auto run = smallRun();
        const auto i = info();
        for (int k = 0; k < 20; ++k)
            s.storeRun(i, run);
        QCOMPARE(s.integrityCheck(), std::string("ok"));
    }
};

QTEST_GUILESS_MAIN(TestStoreCheckpoints)
#include "test_store_checkpoints.moc"
