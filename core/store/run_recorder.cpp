#include "store/run_recorder.h"

namespace orrery::store {

RunRecorder::RunRecorder(RunStore store, const std::vector<RunInfo>& runs, std::mutex* mutex)
    : m_mutex(mutex ? *mutex : m_ownMutex), m_path(store.path()), m_lastSync(runs.size())
{
    std::lock_guard lock(m_mutex);
    m_store.emplace(std::move(store));
    m_writers.reserve(runs.size());
    for (const RunInfo& info : runs)
        m_writers.push_back(m_store->beginRun(info));
}

RunRecorder::~RunRecorder()
{
    std::lock_guard lock(m_mutex);
    m_writers.clear(); // an unfinished writer marks its run failed
    m_store.reset();
}

bool RunRecorder::finished(std::size_t run) const
{
    return m_writers[run].finished();
}

void RunRecorder::partial(std::size_t run, const sim::RunResult& partial)
{
    const auto now = std::chrono::steady_clock::now();
    auto& last = m_lastSync[run];
    // Each run's clock is touched only by the thread simulating it, so it is read before taking the lock.
    if (last && now - *last < std::chrono::duration<double>(kSyncS))
        return;
    std::lock_guard lock(m_mutex);
    m_writers[run].sync(partial);
    last = now;
}

void RunRecorder::finish(std::size_t run, const sim::RunResult& result)
{
    std::lock_guard lock(m_mutex);
    m_writers[run].finish(result, result.cancelled ? RunStatus::Cancelled : RunStatus::Completed);
}

void RunRecorder::fail(std::size_t run, const std::string& error)
{
    std::lock_guard lock(m_mutex);
    m_writers[run].fail(error);
}

} // namespace orrery::store
