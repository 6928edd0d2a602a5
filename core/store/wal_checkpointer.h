#pragma once

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

struct sqlite3;

namespace orrery::store {

class Connection;

/**
 * Takes the WAL checkpoints off a store's writing connection, so that the threads that take turns at that connection
 * (a sweep's) do not copy the log into the database file during their turn: checkpoints were a sixth of what storing a
 * default-scenario point cost, all of it serial (docs/performance.md, "Sweeps"). While it lives, the writer commits
 * without checkpointing and counts the log's frames; any thread calls checkpoint() after its turn, and once the log
 * has grown by kFrames it is copied into the file by a connection of the checkpointer's own, beside the next writer
 * (SQLite's passive checkpoint: neither waits for the other). Crash safety is SQLite's either way: a checkpoint is the
 * same whichever connection runs it.
 *
 * The checkpoint runs in a thread of the checkpointer's own, so that the thread that asked goes back to simulating: a
 * checkpoint is mostly waiting for the disk (two fdatasync calls, 50-130 ms a checkpoint on this VM), which at
 * `--jobs 1` left the only simulating thread idle for a third of a default-scenario sweep (docs/performance.md,
 * "Sweeps"). Past twice kMaxFrames the asking thread checkpoints itself, waiting for the writer's lock, so that the
 * log stays bounded however far behind the checkpoints fall.
 */
class WalCheckpointer
{
public:
    /** SQLite's own automatic checkpoint threshold (frames of one page each). */
    static constexpr int kFrames = 1000;
    /**
     * A log is only started again from its beginning by a write that finds every frame copied, which a checkpoint
     * running beside the writer rarely leaves; past this many frames a checkpoint that finds the writer's lock free
     * takes it (past twice as many, it waits for it), so that the log stops growing (it then copies only what came
     * since the last one).
     */
    static constexpr int kMaxFrames = 4 * kFrames;

    /**
     * Installs itself on `writer`, whose users take `writerLock` (the connection is not thread-safe). The thresholds
     * are kFrames and kMaxFrames but for tests, which need no 64 MB log to see the second one.
     */
    WalCheckpointer(Connection& writer, std::mutex& writerLock, int frames = kFrames, int maxFrames = kMaxFrames);
    /** Gives `writer` its automatic checkpoints back. */
    ~WalCheckpointer();
    WalCheckpointer(const WalCheckpointer&) = delete;
    WalCheckpointer& operator=(const WalCheckpointer&) = delete;

    /**
     * Has the log checkpointed once it has grown by kFrames since the last checkpoint: by the checkpointer's thread,
     * beside the writer (holding its lock past kMaxFrames when the lock is free), and returns at once; past twice
     * kMaxFrames, here, waiting for the writer's lock. Returns at once below kFrames. Never throws: a checkpoint that
     * copies nothing (another process's reader or checkpoint) is left to the next one, or to SQLite's own when the
     * store is closed, since nothing stored depends on it.
     */
    void checkpoint();

    /** Checkpoints run so far. */
    int checkpoints() const { return m_checkpoints.load(); }

private:
    static int onCommit(void* self, sqlite3* db, const char* schema, int frames);
    /** One checkpoint; unless `bound`, none when another thread is running one (`bound` waits for it first). */
    void run(bool bound);

    Connection& m_writer;
    std::mutex& m_writerLock;
    int m_threshold;
    int m_maxFrames;
    std::unique_ptr<Connection> m_own;
    std::mutex m_running;
    std::atomic<int> m_frames{0};       ///< frames in the log after the writer's last commit
    std::atomic<int> m_framesAtLast{0}; ///< the log's frames when the last checkpoint began
    std::atomic<int> m_checkpoints{0};
    std::mutex m_askMutex;
    std::condition_variable_any m_asked;
    bool m_pending = false; ///< under m_askMutex
    std::jthread m_thread;  ///< last: stopped and joined first
};

} // namespace orrery::store
