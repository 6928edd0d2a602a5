#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace orrery::store {

/**
 * A failure of the database engine that is not the user's input (disk full,
 * locked, I/O). Damaged or foreign files are reported as orrery::Error
 * instead, because the user chose the file and can fix the choice.
 */
class DatabaseError : public std::runtime_error
{
public:
    DatabaseError(const std::string& file, int code, const std::string& message);
    int code() const { return m_code; }

private:
    int m_code;
};

/** An open SQLite connection; closes on destruction. */
class Connection
{
public:
    enum class Mode { ReadOnly, ReadWrite, ReadWriteCreate };

    /** How long a write waits for another process's lock before it fails with SQLITE_BUSY. */
    static constexpr int kDefaultLockTimeoutMs = 60000;
    /** Told once per wait, after kLockNoticeMs, that this connection waits for another process's lock. */
    using LockWaitNotice = std::function<void(const std::string& path)>;
    static constexpr int kLockNoticeMs = 1000;

    /**
     * ReadOnly never writes, creates or modifies anything, the -wal and -shm files included: when the
     * directory (or the mount) is not writable and the store was closed cleanly, the file is opened
     * as immutable, which is right because nobody can be writing to it there.
     */
    Connection(const std::string& path, Mode mode);
    ~Connection();
    Connection(const Connection&) = delete;
    Connection& operator=(const Connection&) = delete;

    /** Runs SQL without parameters or results (schema, pragmas). */
    void exec(std::string_view sql);
    /** First column of the first row of a parameterless query, as an integer. */
    std::int64_t queryInt(std::string_view sql);
    std::int64_t lastInsertRowId() const;

    sqlite3* handle() const { return m_db; }
    const std::string& path() const { return m_path; }
    bool readOnly() const { return m_readOnly; }

    /** Lock waits: give up after `timeoutMs` (SQLITE_BUSY), telling `notice` (if any) once a wait gets long. */
    void setLockWait(int timeoutMs, LockWaitNotice notice);
    int lockTimeoutMs() const { return m_lockTimeoutMs; }

    /** Throws the right exception for `code` (orrery::Error for damaged/foreign files, DatabaseError otherwise). */
    [[noreturn]] void fail(int code, std::string_view what) const;
    [[noreturn]] void fail(int code, std::string_view what, const std::string& message) const;
    void check(int code, std::string_view what) const;

private:
    static int onBusy(void* self, int attempt);
    void open(const std::string& target, int flags);

    sqlite3* m_db = nullptr;
    std::string m_path;
    bool m_readOnly = false;
    int m_lockTimeoutMs = kDefaultLockTimeoutMs;
    LockWaitNotice m_lockNotice;
    std::chrono::steady_clock::time_point m_waitStart;
    bool m_noticeGiven = false;
};

/** A prepared statement: bind by 1-based index, step, read columns by 0-based index. */
class Statement
{
public:
    Statement(Connection& db, std::string_view sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int index, std::int64_t value);
    Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
    Statement& bind(int index, double value);
    Statement& bind(int index, std::string_view value);
    Statement& bind(int index, const char* value) { return bind(index, std::string_view(value)); }
    Statement& bind(int index, const std::string& value) { return bind(index, std::string_view(value)); }
    /** Binds text without copying it: `value` must stay alive and unchanged until the statement is reset. */
    Statement& bindStatic(int index, std::string_view value);
    /** Binds a BLOB without copying it: `data` must stay alive and unchanged until the statement is reset. */
    Statement& bindStaticBlob(int index, const void* data, std::size_t bytes);
    Statement& bindNull(int index);
    /** Binds NULL when the value is absent. */
    Statement& bind(int index, std::optional<double> value);
    /** Binds column `column` of `from`'s current row as it is (any type, BLOBs copied): for copying rows. */
    Statement& bindColumn(int index, const Statement& from, int column);

    /** Advances; true while a row is available. */
    bool step();
    /** Steps a statement that returns no rows, then resets it for reuse. */
    void run();
    /** Clears the cursor (bindings stay). */
    void reset();

    bool isNull(int column) const;
    std::int64_t columnInt(int column) const;
    double columnDouble(int column) const;
    /** NULL reads as `fallback`. */
    double columnDouble(int column, double fallback) const;
    std::string columnText(int column) const;
    /** A BLOB (or text) column's bytes, valid until the next step or reset. */
    std::string_view columnBlob(int column) const;

private:
    Connection& m_db;
    sqlite3_stmt* m_stmt = nullptr;
};

/**
 * BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed without commit()
 * (an exception left the block), so a write is all or nothing.
 */
class Transaction
{
public:
    explicit Transaction(Connection& db);
    ~Transaction();
    Transaction(const Transaction&) = delete;
    Transaction& operator=(const Transaction&) = delete;
    void commit();

private:
    Connection& m_db;
    bool m_open = true;
};

} // namespace orrery::store
