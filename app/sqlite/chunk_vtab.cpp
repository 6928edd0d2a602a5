#include "chunk_vtab.h"

#include "chunk_decoder.h"

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <string>

namespace orrery::sqlext {

namespace {

// Planner estimates, in rows (SQLite's cost unit is about one row visited). A run is guessed at ten thousand records;
// all runs at as many runs as SQLite assumes a table without ANALYZE statistics holds (2^20), so that next to `runs`
// the estimate is consistent and a join reads each run's chunks through its run_id rather than scanning them all.
constexpr double kOneRunRows = 10'000;
constexpr double kAllRunsRows = kOneRunRows * 1'048'576;

/** The bit of idxNum that says xFilter's first argument is the run_id to read. */
constexpr int kByRun = 1;

struct VTab : sqlite3_vtab
{
    VTab(sqlite3* connection, const TableSpec& table) : sqlite3_vtab{}, db(connection), spec(table) {}
    sqlite3* db;
    const TableSpec& spec;
};

void setError(sqlite3_vtab& vtab, const std::string& message)
{
    sqlite3_free(vtab.zErrMsg);
    vtab.zErrMsg = sqlite3_mprintf("%s", message.c_str());
}

/** Walks the chunk rows of one query (one run, or all runs in run_id order) and the records of each chunk. */
class Cursor : public sqlite3_vtab_cursor
{
public:
    explicit Cursor(VTab& table) : sqlite3_vtab_cursor{}, m_table(table), m_decoder(table.spec.makeDecoder()) {}
    ~Cursor()
    {
        sqlite3_finalize(m_byRun);
        sqlite3_finalize(m_allRuns);
    }
    Cursor(const Cursor&) = delete;
    Cursor& operator=(const Cursor&) = delete;

    int filter(bool byRun, sqlite3_value* runId)
    {
        sqlite3_stmt*& stmt = byRun ? m_byRun : m_allRuns;
        if (!stmt) {
            if (const int rc = prepare(stmt, byRun); rc != SQLITE_OK)
                return rc;
        }
        if (m_active)
            sqlite3_reset(m_active);
        m_active = stmt;
        if (byRun)
            sqlite3_bind_value(stmt, 1, runId);
        m_eof = false;
        m_haveRun = false;
        return nextChunk();
    }

    int next()
    {
        if (++m_record < m_records)
            return SQLITE_OK;
        return nextChunk();
    }

    bool eof() const { return m_eof; }

    void column(sqlite3_context* ctx, int column) const
    {
        if (column == 0)
            sqlite3_result_int64(ctx, m_runId);
        else if (column == m_table.spec.recordIndexColumn)
            sqlite3_result_int64(ctx, m_firstRecord + static_cast<std::int64_t>(m_record));
        else
            m_decoder->result(ctx, m_record, column);
    }

    /** Unique per record of the store: the run in the high 32 bits, the record index in the low ones. */
    sqlite3_int64 rowid() const
    {
        const std::uint64_t id = (static_cast<std::uint64_t>(m_runId) << 32) +
                                 static_cast<std::uint64_t>(m_firstRecord) + m_record;
        return static_cast<sqlite3_int64>(id);
    }

private:
    int prepare(sqlite3_stmt*& stmt, bool byRun)
    {
        const TableSpec& spec = m_table.spec;
        const std::string sql = std::string("SELECT run_id, chunk_index, first_record, records, ") +
                                spec.chunkColumns + " FROM main." + spec.chunkTable +
                                (byRun ? " WHERE run_id = ?1" : "") + " ORDER BY run_id, chunk_index";
        if (sqlite3_prepare_v2(m_table.db, sql.c_str(), -1, &stmt, nullptr) == SQLITE_OK)
            return SQLITE_OK;
        const std::string why = sqlite3_errmsg(m_table.db);
        sqlite3_finalize(stmt);
        stmt = nullptr;
        if (!hasChunkTable())
            return fail(SQLITE_ERROR, std::string(spec.name) + ": this database has no " + spec.chunkTable +
                                          " table; " + spec.name + " reads an Orrery run store of schema version " +
                                          std::to_string(spec.sinceSchemaVersion) + " or later");
        return fail(SQLITE_ERROR, std::string(spec.name) + ": cannot read " + spec.chunkTable + ": " + why);
    }

    bool hasChunkTable() const
    {
        sqlite3_stmt* probe = nullptr;
        bool found = false;
        if (sqlite3_prepare_v2(m_table.db, "SELECT 1 FROM main.sqlite_master WHERE type = 'table' AND name = ?1", -1,
                               &probe, nullptr) == SQLITE_OK) {
            sqlite3_bind_text(probe, 1, m_table.spec.chunkTable, -1, SQLITE_STATIC);
            found = sqlite3_step(probe) == SQLITE_ROW;
        }
        sqlite3_finalize(probe);
        return found;
    }

    /** Moves to the next chunk that holds records, checking that it follows the run's previous one. */
    int nextChunk()
    {
        constexpr auto kRows = static_cast<std::int64_t>(store::kChunkRows);
        for (;;) {
            const int rc = sqlite3_step(m_active);
            if (rc == SQLITE_DONE) {
                m_eof = true;
                return SQLITE_OK;
            }
            if (rc != SQLITE_ROW)
                return fail(rc, std::string(m_table.spec.name) + ": reading " + m_table.spec.chunkTable + ": " +
                                    sqlite3_errmsg(m_table.db));
            const std::int64_t runId = sqlite3_column_int64(m_active, 0);
            if (!m_haveRun || runId != m_runId)
                m_expectedFirst = 0;
            m_haveRun = true;
            m_runId = runId;
            m_chunk = sqlite3_column_int64(m_active, 1);
            m_firstRecord = sqlite3_column_int64(m_active, 2);
            const std::int64_t records = sqlite3_column_int64(m_active, 3);
            if (m_firstRecord != m_expectedFirst || records < 0 || records > kRows || m_chunk != m_firstRecord / kRows)
                return damaged("starts at record " + std::to_string(m_firstRecord) + " with " +
                               std::to_string(records) + " records, expected a chunk starting at record " +
                               std::to_string(m_expectedFirst));
            m_expectedFirst += records;
            m_records = static_cast<std::size_t>(records);
            m_record = 0;
            try {
                m_decoder->load(m_active, m_records);
            } catch (const DamagedChunk& e) {
                return damaged(e.what());
            }
            if (m_records > 0)
                return SQLITE_OK;
        }
    }

    int damaged(const std::string& problem)
    {
        const TableSpec& spec = m_table.spec;
        return fail(SQLITE_CORRUPT_VTAB, std::string(spec.name) + ": run " + std::to_string(m_runId) + " chunk " +
                                             std::to_string(m_chunk) + " of " + spec.chunkTable +
                                             " is damaged: " + problem);
    }

    int fail(int rc, const std::string& message)
    {
        setError(m_table, message);
        m_eof = true;
        return rc;
    }

    VTab& m_table;
    std::unique_ptr<ChunkDecoder> m_decoder;
    sqlite3_stmt* m_byRun = nullptr;   // prepared on first use, kept for the next xFilter (one per run in a join)
    sqlite3_stmt* m_allRuns = nullptr;
    sqlite3_stmt* m_active = nullptr;
    bool m_eof = true;
    bool m_haveRun = false;
    std::int64_t m_runId = 0;
    std::int64_t m_chunk = 0;
    std::int64_t m_firstRecord = 0;
    std::int64_t m_expectedFirst = 0;
    std::size_t m_records = 0;
    std::size_t m_record = 0;
};

VTab& vtabOf(sqlite3_vtab* vtab)
{
    return *static_cast<VTab*>(vtab);
}

Cursor& cursorOf(sqlite3_vtab_cursor* cursor)
{
    return *static_cast<Cursor*>(cursor);
}

/** Runs a callback body; C++ exceptions must not unwind into SQLite. */
template <typename Body> int guarded(sqlite3_vtab* vtab, Body&& body)
{
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return SQLITE_NOMEM;
    } catch (const std::exception& e) {
        if (vtab)
            setError(*vtab, e.what());
        return SQLITE_ERROR;
    }
}

int connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** error)
{
    const TableSpec& spec = *static_cast<const TableSpec*>(aux);
    if (const int rc = sqlite3_declare_vtab(db, spec.declaration); rc != SQLITE_OK)
        return rc;
    // It only reads the database it belongs to, so views and triggers may use it even with trusted_schema off.
    // SQLite before 3.31 refuses the setting, which is harmless.
    sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
    try {
        *out = new VTab(db, spec);
        return SQLITE_OK;
    } catch (const std::bad_alloc&) {
        *error = sqlite3_mprintf("%s: out of memory", spec.name);
        return SQLITE_NOMEM;
    }
}

int disconnect(sqlite3_vtab* vtab)
{
    delete &vtabOf(vtab);
    return SQLITE_OK;
}

/** Whether the scan order (run_id, then record index) already is the ORDER BY the query asks for. */
bool consumesOrderBy(const sqlite3_index_info& info, const TableSpec& spec, bool oneRun)
{
    const int n = info.nOrderBy;
    int k = 0;
    if (k < n && info.aOrderBy[k].iColumn == 0 && !info.aOrderBy[k].desc)
        ++k;
    else if (!oneRun)
        return false; // across runs the record index alone is not the scan order
    if (k < n && spec.recordIndexColumn >= 0 && info.aOrderBy[k].iColumn == spec.recordIndexColumn &&
        !info.aOrderBy[k].desc)
        ++k;
    return n > 0 && k == n;
}

int bestIndex(sqlite3_vtab* vtab, sqlite3_index_info* info)
{
    int runConstraint = -1;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        if (c.usable && c.iColumn == 0 && c.op == SQLITE_INDEX_CONSTRAINT_EQ) {
            runConstraint = i;
            break;
        }
    }
    if (runConstraint >= 0) {
        info->aConstraintUsage[runConstraint].argvIndex = 1;
        info->aConstraintUsage[runConstraint].omit = 1;
        info->idxNum = kByRun;
        info->estimatedCost = kOneRunRows;
        info->estimatedRows = static_cast<sqlite3_int64>(kOneRunRows);
    } else {
        info->idxNum = 0;
        info->estimatedCost = kAllRunsRows;
        info->estimatedRows = static_cast<sqlite3_int64>(kAllRunsRows);
    }
    // SQLite itself drops orderByConsumed when run_id comes from an IN list, whose values it may visit in any order.
    info->orderByConsumed = consumesOrderBy(*info, vtabOf(vtab).spec, runConstraint >= 0) ? 1 : 0;
    return SQLITE_OK;
}

int open(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out)
{
    return guarded(vtab, [&] {
        *out = new Cursor(vtabOf(vtab));
        return SQLITE_OK;
    });
}

int close(sqlite3_vtab_cursor* cursor)
{
    delete &cursorOf(cursor);
    return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* cursor, int idxNum, const char*, int argc, sqlite3_value** argv)
{
    return guarded(cursor->pVtab, [&] {
        const bool byRun = (idxNum & kByRun) != 0 && argc >= 1;
        return cursorOf(cursor).filter(byRun, byRun ? argv[0] : nullptr);
    });
}

int next(sqlite3_vtab_cursor* cursor)
{
    return guarded(cursor->pVtab, [&] { return cursorOf(cursor).next(); });
}

int eof(sqlite3_vtab_cursor* cursor)
{
    return cursorOf(cursor).eof() ? 1 : 0;
}

int column(sqlite3_vtab_cursor* cursor, sqlite3_context* ctx, int column)
{
    try {
        cursorOf(cursor).column(ctx, column);
    } catch (const std::bad_alloc&) {
        sqlite3_result_error_nomem(ctx);
    }
    return SQLITE_OK;
}

int rowid(sqlite3_vtab_cursor* cursor, sqlite3_int64* out)
{
    *out = cursorOf(cursor).rowid();
    return SQLITE_OK;
}

sqlite3_module makeModule()
{
    sqlite3_module m{};
    m.iVersion = 0;
    m.xCreate = nullptr; // eponymous only: CREATE VIRTUAL TABLE cannot make another instance
    m.xConnect = connect;
    m.xBestIndex = bestIndex;
    m.xDisconnect = disconnect;
    m.xDestroy = disconnect;
    m.xOpen = open;
    m.xClose = close;
    m.xFilter = filter;
    m.xNext = next;
    m.xEof = eof;
    m.xColumn = column;
    m.xRowid = rowid;
    return m; // no xUpdate: the tables are read-only
}

const sqlite3_module kModule = makeModule();

} // namespace

int registerChunkTable(sqlite3* db, const TableSpec& spec)
{
    return sqlite3_create_module_v2(db, spec.name, &kModule, const_cast<TableSpec*>(&spec), nullptr);
}

} // namespace orrery::sqlext
