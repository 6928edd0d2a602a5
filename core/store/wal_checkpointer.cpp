#include "store/wal_checkpointer.h"

#include "store/sqlite.h"

#include <sqlite3.h>

namespace orrery::store {

WalCheckpointer::WalCheckpointer(Connection& writer, std::mutex& writerLock, int frames, int maxFrames)
    : m_writer(writer), m_writerLock(writerLock), m_threshold(frames), m_maxFrames(maxFrames),
      m_own(std::make_unique<Connection>(writer.path(), Connection::Mode::ReadWrite))
{
    // A checkpoint syncs the log and the file whatever this setting; as the store's connection has it, for the rest.
    m_own->exec("PRAGMA synchronous = NORMAL");
    // Never waits: a checkpoint that finds another process's reader or checkpoint in the way leaves the rest for the
    // next one rather than hold the writer's lock meanwhile.
    m_own->setLockWait(0, {});
    {
        std::lock_guard lock(m_writerLock);
        // The hook replaces SQLite's automatic checkpoint, which is a hook of its own (sqlite3_wal_autocheckpoint).
        sqlite3_wal_hook(m_writer.handle(), &WalCheckpointer::onCommit, this);
    }
    m_thread = std::jthread([this](std::stop_token stop) {
        for (;;) {
            {
                std::unique_lock lock(m_askMutex);
                if (!m_asked.wait(lock, stop, [this] { return m_pending; }))
                    return; // stopped
                m_pending = false;
            }
            run(false);
        }
    });
}

WalCheckpointer::~WalCheckpointer()
{
    m_thread.request_stop();
    if (m_thread.joinable())
        m_thread.join();
    // Waits for a checkpoint still running in another thread before the connection it uses is closed.
    std::lock_guard running(m_running);
    std::lock_guard lock(m_writerLock);
    sqlite3_wal_autocheckpoint(m_writer.handle(), kFrames);
}

int WalCheckpointer::onCommit(void* self, sqlite3*, const char*, int frames)
{
    auto* me = static_cast<WalCheckpointer*>(self);
    // A log that was started again (every frame copied, no reader on it) counts from its first frame.
    if (frames < me->m_framesAtLast.load())
        me->m_framesAtLast = 0;
    me->m_frames = frames;
    return SQLITE_OK;
}

void WalCheckpointer::checkpoint()
{
    if (m_frames.load() - m_framesAtLast.load() < m_threshold)
        return;
    if (m_frames.load() >= 2 * m_maxFrames) {
        run(true); // the log's bound: this thread waits for any checkpoint running, then for the writer's lock
        return;
    }
    {
        std::lock_guard lock(m_askMutex);
        m_pending = true;
    }
    m_asked.notify_one();
}

void WalCheckpointer::run(bool bound)
{
    std::unique_lock running(m_running, std::defer_lock);
    if (bound)
        running.lock();
    else if (!running.try_lock())
        return;
    if (m_frames.load() - m_framesAtLast.load() < m_threshold)
        return; // copied meanwhile by the checkpoint this one waited for
    // Past kMaxFrames the writer's lock is tried, not waited for, so that a thread checkpointing rarely waits for
    // another's turn at the store; past twice that it is waited for, so that the log's growth is bounded however
    // busy the store is.
    const int frames = m_frames.load();
    std::unique_lock<std::mutex> writer;
    if (frames >= 2 * m_maxFrames)
        writer = std::unique_lock(m_writerLock);
    else if (frames >= m_maxFrames)
        writer = std::unique_lock(m_writerLock, std::try_to_lock);
    m_framesAtLast = m_frames.load();
    // RESTART, with no writer of this process meanwhile, copies what came since the last checkpoint and makes sure
    // that the next write starts the log again from its beginning (a passive checkpoint beside a writer seldom
    // leaves every frame copied at the moment a write begins, the condition for that). PASSIVE copies what no reader
    // needs, beside the writer. Neither waits (the connection's lock wait is 0): SQLITE_BUSY only says that another
    // process's reader or checkpoint was in the way, and what it leaves is copied next time.
    sqlite3_wal_checkpoint_v2(m_own->handle(), nullptr, writer ? SQLITE_CHECKPOINT_RESTART : SQLITE_CHECKPOINT_PASSIVE,
                              nullptr, nullptr);
    ++m_checkpoints;
}

} // namespace orrery::store
