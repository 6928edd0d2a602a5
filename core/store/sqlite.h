#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace orrery::store {

class CachedStatement;

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
    /** True while a transaction is open on this connection (BEGIN or SAVEPOINT, not yet ended). */
    bool inTransaction() const;

    /**
     * `sql` prepared once for this connection and kept for the next use: storing a run runs the same dozen
     * statements, and preparing them again for every run of a sweep cost more than simulating the run
     * (docs/performance.md, "Sweeps"). The statement comes reset with no bindings; the lease resets it again when
     * it ends, so a kept statement holds no read lock. Used again while leased (a nested use of the same SQL), the
     * second lease gets a statement of its own. Only for fixed SQL text: every distinct text stays prepared.
     */
    CachedStatement cached(std::string_view sql);

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

    struct StatementCache;

    std::unique_ptr<StatementCache> m_cache; ///< what cached() keeps; finalized before the connection closes
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
    /** Binds NULL to every parameter (a kept statement must not carry a pointer bound by its previous use). */
    void clearBindings();

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

/** A statement lent by Connection::cached(); use it like a Statement. Resets the statement when destroyed. */
class CachedStatement
{
public:
    CachedStatement(CachedStatement&& other) noexcept;
    CachedStatement& operator=(CachedStatement&&) = delete;
    CachedStatement(const CachedStatement&) = delete;
    CachedStatement& operator=(const CachedStatement&) = delete;
    ~CachedStatement();

    Statement& operator*() const { return *m_statement; }
    Statement* operator->() const { return m_statement; }

private:
    friend class Connection;
    CachedStatement(Statement* statement, bool* leased, std::unique_ptr<Statement> own);

    Statement* m_statement;
    bool* m_leased;                   ///< the cache's flag of a kept statement; null for one prepared for this lease
    std::unique_ptr<Statement> m_own; ///< the statement of a nested lease, finalized with it
};

/**
 * BEGIN IMMEDIATE ... COMMIT; rolls back when destroyed without commit()
 * (an exception left the block), so a write is all or nothing.
 *
 * Begun while another transaction is open on the connection, it is a savepoint in that one: commit() keeps
 * its writes for the outer transaction to commit, and destroying it uncommitted rolls back only its own
 * writes. That is how several runs are stored in one transaction (RunStore::storeRuns), each still all or
 * nothing.
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
    bool m_nested;
    bool m_open = true;
};

} // namespace orrery::store
