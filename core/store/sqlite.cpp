#include "store/sqlite.h"

#include "io/error.h"

#include <sqlite3.h>

#include <fmt/format.h>

#include <filesystem>
#include <unordered_map>

#include <unistd.h>

namespace orrery::store {

struct Connection::StatementCache
{
    struct Entry
    {
        std::unique_ptr<Statement> statement;
        bool leased = false;
    };
    /** Looked up by the caller's string_view, without building a std::string per use. */
    struct Hash
    {
        using is_transparent = void;
        std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
    };
    std::unordered_map<std::string, Entry, Hash, std::equal_to<>> entries;
};

DatabaseError::DatabaseError(const std::string& file, int code, const std::string& message)
    : std::runtime_error(fmt::format("{}: {}", file, message)), m_code(code)
{}

Connection::Connection(const std::string& path, Mode mode)
    : m_cache(std::make_unique<StatementCache>()), m_path(path), m_readOnly(mode == Mode::ReadOnly)
{
    int flags = SQLITE_OPEN_NOMUTEX;
    switch (mode) {
    case Mode::ReadOnly:
        flags |= SQLITE_OPEN_READONLY;
        break;
    case Mode::ReadWrite:
        flags |= SQLITE_OPEN_READWRITE;
        break;
    case Mode::ReadWriteCreate:
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
        break;
    }
    open(path, flags);
    if (mode != Mode::ReadOnly)
        return;
    // A WAL store needs its -shm file even to read; SQLite cannot create it in a read-only directory
    // (a read-only mount, a shared archive) and then fails on the first read. Nobody can write there,
    // so the file may be read as immutable, provided no write-ahead log holds commits it would miss.
    const int rc = sqlite3_exec(m_db, "SELECT count(*) FROM sqlite_schema", nullptr, nullptr, nullptr);
    if (rc == SQLITE_OK)
        return;
    const std::string dir = std::filesystem::path(path).parent_path().string();
    if (::access(dir.empty() ? "." : dir.c_str(), W_OK) == 0)
        return; // not the read-only case: let the caller's first query report what is wrong
    std::error_code ec;
    if (std::filesystem::file_size(path + "-wal", ec) > 0 && !ec)
        throw Error(path, "",
                    fmt::format("cannot be read in place: its write-ahead log {}-wal holds commits and the directory "
                                "is read-only; copy the store and its -wal file to a writable directory and read "
                                "the copy",
                                path));
    sqlite3_close_v2(m_db);
    m_db = nullptr;
    // Percent-encode the path for the URI; only '%', '?' and '#' would be misread.
    std::string uri = "file:";
    for (const char c : path) {
        if (c == '%' || c == '?' || c == '#')
            uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
        else
            uri += c;
    }
    uri += "?immutable=1";
    open(uri, flags | SQLITE_OPEN_URI);
}

void Connection::open(const std::string& target, int flags)
{
    const int rc = sqlite3_open_v2(target.c_str(), &m_db, flags, nullptr);
    if (rc != SQLITE_OK) {
        // sqlite3_open_v2 allocates a handle even on failure; keep it for the message, then free it.
        const std::string message = m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(rc);
        sqlite3_close(m_db);
        m_db = nullptr;
        if ((rc & 0xff) == SQLITE_CANTOPEN)
            throw Error(m_path, "", "cannot open database: " + message);
        throw DatabaseError(m_path, rc, message);
    }
    sqlite3_extended_result_codes(m_db, 1);
    // Other processes (a second CLI, the GUI) may hold the write lock for a while: wait, and say so.
    sqlite3_busy_handler(m_db, &Connection::onBusy, this);
}

void Connection::setLockWait(int timeoutMs, LockWaitNotice notice)
{
    m_lockTimeoutMs = timeoutMs;
    m_lockNotice = std::move(notice);
}

int Connection::onBusy(void* self, int attempt)
{
    auto* c = static_cast<Connection*>(self);
    const auto now = std::chrono::steady_clock::now();
    if (attempt == 0) {
        c->m_waitStart = now;
        c->m_noticeGiven = false;
    }
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(now - c->m_waitStart).count();
    if (waited >= c->m_lockTimeoutMs)
        return 0; // SQLITE_BUSY reaches the caller
    if (waited >= kLockNoticeMs && !c->m_noticeGiven && c->m_lockNotice) {
        c->m_noticeGiven = true;
        try {
            c->m_lockNotice(c->m_path);
        } catch (...) {
            // SQLite calls this from C: an exception must not cross it, and a notice is not worth failing for.
        }
    }
    // Short sleeps first (most locks are held for milliseconds), then 50 ms so a long wait costs no CPU.
    sqlite3_sleep(attempt < 10 ? 1 : attempt < 30 ? 10 : 50);
    return 1;
}

Connection::~Connection()
{
    m_cache.reset();
    sqlite3_close_v2(m_db);
}

void Connection::fail(int code, std::string_view what) const
{
    fail(code, what, m_db ? sqlite3_errmsg(m_db) : sqlite3_errstr(code));
}

void Connection::fail(int code, std::string_view what, const std::string& message) const
{
    const int primary = code & 0xff;
    if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB)
        throw Error(m_path, "", fmt::format("not a usable Orrery database ({})", message));
    if (primary == SQLITE_BUSY)
        throw DatabaseError(m_path, code,
                            fmt::format("{}: another process held the lock on this file for more than {} s ({}); "
                                        "try again once it is done, or wait longer (--lock-timeout)",
                                        what, (m_lockTimeoutMs + 999) / 1000, message));
    throw DatabaseError(m_path, code, fmt::format("{}: {}", what, message));
}

void Connection::check(int code, std::string_view what) const
{
    if (code != SQLITE_OK && code != SQLITE_DONE && code != SQLITE_ROW)
        fail(code, what);
}

void Connection::exec(std::string_view sql)
{
    const std::string text(sql);
    check(sqlite3_exec(m_db, text.c_str(), nullptr, nullptr, nullptr), text.substr(0, 60));
}

std::int64_t Connection::queryInt(std::string_view sql)
{
    Statement s(*this, sql);
    if (!s.step())
        return 0;
    return s.columnInt(0);
}

std::int64_t Connection::lastInsertRowId() const
{
    return sqlite3_last_insert_rowid(m_db);
}

bool Connection::inTransaction() const
{
    return sqlite3_get_autocommit(m_db) == 0;
}

CachedStatement Connection::cached(std::string_view sql)
{
    auto it = m_cache->entries.find(sql);
    if (it == m_cache->entries.end()) {
        auto statement = std::make_unique<Statement>(*this, sql); // prepared first: a bad SQL text is not kept
        it = m_cache->entries.emplace(std::string(sql), StatementCache::Entry{std::move(statement), false}).first;
    }
    StatementCache::Entry& e = it->second;
    if (e.leased)
        return CachedStatement(nullptr, nullptr, std::make_unique<Statement>(*this, sql));
    e.leased = true;
    e.statement->reset();
    e.statement->clearBindings();
    return CachedStatement(e.statement.get(), &e.leased, nullptr);
}

CachedStatement::CachedStatement(Statement* statement, bool* leased, std::unique_ptr<Statement> own)
    : m_statement(own ? own.get() : statement), m_leased(leased), m_own(std::move(own))
{}

CachedStatement::CachedStatement(CachedStatement&& other) noexcept
    : m_statement(other.m_statement), m_leased(other.m_leased), m_own(std::move(other.m_own))
{
    other.m_statement = nullptr;
    other.m_leased = nullptr;
}

CachedStatement::~CachedStatement()
{
    if (!m_leased)
        return; // moved from, or a nested lease's own statement: finalized by m_own
    m_statement->reset();
    *m_leased = false;
}

Statement::Statement(Connection& db, std::string_view sql) : m_db(db)
{
    const int rc = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                      &m_stmt, nullptr);
    if (rc != SQLITE_OK)
        db.fail(rc, fmt::format("preparing '{}'", sql.substr(0, 60)));
}

Statement::~Statement()
{
    sqlite3_finalize(m_stmt);
}

Statement& Statement::bind(int index, std::int64_t value)
{
    m_db.check(sqlite3_bind_int64(m_stmt, index, value), "bind");
    return *this;
}

Statement& Statement::bind(int index, double value)
{
    m_db.check(sqlite3_bind_double(m_stmt, index, value), "bind");
    return *this;
}

Statement& Statement::bind(int index, std::string_view value)
{
    m_db.check(sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_TRANSIENT, SQLITE_UTF8), "bind");
    return *this;
}

Statement& Statement::bindStatic(int index, std::string_view value)
{
    m_db.check(sqlite3_bind_text64(m_stmt, index, value.data(), value.size(), SQLITE_STATIC, SQLITE_UTF8), "bind");
    return *this;
}

Statement& Statement::bindStaticBlob(int index, const void* data, std::size_t bytes)
{
    // A zero-length blob must still be a blob, not NULL: sqlite3_bind_blob64 binds NULL for a null pointer.
    static const char kEmpty = 0;
    m_db.check(sqlite3_bind_blob64(m_stmt, index, bytes ? data : &kEmpty, bytes, SQLITE_STATIC), "bind");
    return *this;
}

Statement& Statement::bindColumn(int index, const Statement& from, int column)
{
    m_db.check(sqlite3_bind_value(m_stmt, index, sqlite3_column_value(from.m_stmt, column)), "bind");
    return *this;
}

Statement& Statement::bindNull(int index)
{
    m_db.check(sqlite3_bind_null(m_stmt, index), "bind");
    return *this;
}

Statement& Statement::bind(int index, std::optional<double> value)
{
    return value ? bind(index, *value) : bindNull(index);
}

bool Statement::step()
{
    const int rc = sqlite3_step(m_stmt);
    if (rc == SQLITE_ROW)
        return true;
    if (rc == SQLITE_DONE)
        return false;
    const std::string message = sqlite3_errmsg(m_db.handle());
    // Keep the statement reusable after a failure (the transaction decides what happens next).
    sqlite3_reset(m_stmt);
    m_db.fail(rc, fmt::format("running '{}'", std::string_view(sqlite3_sql(m_stmt)).substr(0, 60)), message);
}

void Statement::run()
{
    while (step()) {
    }
    reset();
}

void Statement::reset()
{
    sqlite3_reset(m_stmt);
}

void Statement::clearBindings()
{
    sqlite3_clear_bindings(m_stmt);
}

bool Statement::isNull(int column) const
{
    return sqlite3_column_type(m_stmt, column) == SQLITE_NULL;
}

std::int64_t Statement::columnInt(int column) const
{
    return sqlite3_column_int64(m_stmt, column);
}

double Statement::columnDouble(int column) const
{
    return sqlite3_column_double(m_stmt, column);
}

double Statement::columnDouble(int column, double fallback) const
{
    return isNull(column) ? fallback : sqlite3_column_double(m_stmt, column);
}

std::string Statement::columnText(int column) const
{
    const auto* text = sqlite3_column_text(m_stmt, column);
    if (!text)
        return {};
    return std::string(reinterpret_cast<const char*>(text),
                       static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column)));
}

std::string_view Statement::columnBlob(int column) const
{
    const void* data = sqlite3_column_blob(m_stmt, column);
    if (!data)
        return {};
    return {static_cast<const char*>(data), static_cast<std::size_t>(sqlite3_column_bytes(m_stmt, column))};
}

Transaction::Transaction(Connection& db) : m_db(db), m_nested(db.inTransaction())
{
    // IMMEDIATE takes the write lock now, so a concurrent writer waits (busy timeout) instead of failing mid-way.
    // Nested, the outer transaction holds the lock already.
    m_db.exec(m_nested ? "SAVEPOINT orrery_nested" : "BEGIN IMMEDIATE");
}

Transaction::~Transaction()
{
    if (!m_open)
        return;
    if (!m_nested) {
        sqlite3_exec(m_db.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
        return;
    }
    // Some errors (disk full, I/O) make SQLite roll the whole transaction back itself: then there is no
    // savepoint left to return to, and the outer transaction finds out when it commits.
    if (m_db.inTransaction())
        sqlite3_exec(m_db.handle(), "ROLLBACK TO orrery_nested; RELEASE orrery_nested", nullptr, nullptr, nullptr);
}

void Transaction::commit()
{
    m_db.exec(m_nested ? "RELEASE orrery_nested" : "COMMIT");
    m_open = false;
}

} // namespace orrery::store
