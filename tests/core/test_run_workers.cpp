// util::runWorkers: every item taken once, on at most the threads asked for, the calling thread among them (it works
// rather than waits: under glibc it allocates from the main heap that app/cli/main.cpp backs with huge pages).
#include "test_support.h"

#include "util/run_workers.h"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace orrery;

class TestRunWorkers : public QObject
{
    Q_OBJECT

private slots:
    void everyItemOnceOnAtMostTheThreadsAskedForProperty()
    {
        ORRERY_CHECK_PROPERTY("each item is taken once, by at most min(threads, items) threads", [] {
            const int threads = *rc::gen::inRange(-1, 6);
            const auto items = *rc::gen::inRange<std::size_t>(0, 200);
            std::vector<std::atomic<int>> taken(items);
            std::atomic<std::size_t> next{0};
            std::mutex idsMutex;
            std::set<std::thread::id> ids;
            util::runWorkers(threads, items, [&] {
                {
                    std::lock_guard lock(idsMutex);
                    ids.insert(std::this_thread::get_id());
                }
                for (std::size_t i = next++; i < items; i = next++)
                    ++taken[i];
            });
            for (const auto& t : taken)
                RC_ASSERT(t.load() == 1);
            const std::size_t most = std::max<std::size_t>(1, std::min<std::size_t>(std::max(threads, 1), items));
            RC_ASSERT(ids.size() == most);
        });
    }

    void theCallingThreadIsAWorker()
    {
        const auto caller = std::this_thread::get_id();
        for (const int threads : {1, 2, 4}) {
            std::mutex idsMutex;
            std::set<std::thread::id> ids;
            util::runWorkers(threads, 16, [&] {
                std::lock_guard lock(idsMutex);
                ids.insert(std::this_thread::get_id());
            });
            QCOMPARE(ids.size(), std::size_t(threads));
            QVERIFY(ids.count(caller) == 1);
        }
    }
};

QTEST_GUILESS_MAIN(TestRunWorkers)
#include "test_run_workers.moc"
