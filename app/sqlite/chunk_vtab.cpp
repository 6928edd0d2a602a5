#include "chunk_vtab.h"

#include "chunk_decoder.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace orrery::sqlext {

namespace {

// Planner estimates, in rows (SQLite's cost unit is about one row visited). A run is guessed at ten thousand records;
// all runs at as many runs as SQLite assumes a table without ANALYZE statistics holds (2^20), so that next to `runs`
// the estimate is consistent and a join reads each run's chunks through its run_id rather than scanning them all.
constexpr double kOneRunRows = 10'000;
constexpr double kAllRunsRows = kOneRunRows * 1'048'576;

/** A lookup by run_id and a key column: a few records, from chunks read once and kept for the next lookup. */
constexpr double kUniqueKeyCost = 10;
constexpr double kKeyRows = 100;

/**
 * idxNum: bit 0 says xFilter's first argument is the run_id to read; the bits above, when not 0, are 1 + the index in
 * TableSpec::keys of the key column whose value is the second argument.
 */
constexpr int kByRun = 1;

constexpr auto kRows = static_cast<std::int64_t>(store::kChunkRows);

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

struct Finalize
{
    void operator()(sqlite3_stmt* stmt) const { sqlite3_finalize(stmt); }
};
using Statement = std::unique_ptr<sqlite3_stmt, Finalize>;

/** The integer `value` holds exactly (an INTEGER, or a REAL with an integral value); nullopt for anything else. */
std::optional<std::int64_t> exactInteger(sqlite3_value* value)
{
    if (sqlite3_value_type(value) == SQLITE_INTEGER)
        return sqlite3_value_int64(value);
    if (sqlite3_value_type(value) == SQLITE_FLOAT) {
        const double d = sqlite3_value_double(value);
        if (d >= -9.2e18 && d <= 9.2e18 && d == std::floor(d))
            return static_cast<std::int64_t>(d);
    }
    return std::nullopt;
}

/** A chunk decoded for lookups. */
struct CachedChunk
{
    std::int64_t firstRecord = 0;
    std::size_t records = 0;
    std::unique_ptr<ChunkDecoder> decoder;
};

/** (key, record) of every record of a run, sorted: the records with one key value are a range, in record order. */
using KeyIndex = std::vector<std::pair<std::int64_t, std::int64_t>>;

/**
 * Walks the chunk rows of one query (one run, or all runs in run_id order) and the records of each chunk; or looks
 * records up by run_id and a key column. A join asks for one lookup per outer row (intervals of one job, of one GPU),
 * so the run's decoded chunks and key indices are kept until a lookup names another run.
 */
class Cursor : public sqlite3_vtab_cursor
{
public:
    explicit Cursor(VTab& table) : sqlite3_vtab_cursor{}, m_table(table), m_scanDecoder(table.spec.makeDecoder()) {}

    int filter(int idxNum, int argc, sqlite3_value** argv)
    {
        if (m_active)
            sqlite3_reset(m_active);
        m_active = nullptr;
        m_eof = true;
        const bool byRun = (idxNum & kByRun) != 0 && argc >= 1;
        const int key = idxNum >> 1;
        const bool byKey = byRun && key >= 1 && static_cast<std::size_t>(key) <= kMaxKeys && argc >= 2;
        if (byRun && sqlite3_value_type(argv[0]) == SQLITE_NULL)
            return SQLITE_OK; // "= NULL" matches nothing
        if (byKey) {
            if (sqlite3_value_type(argv[1]) == SQLITE_NULL)
                return SQLITE_OK;
            const auto run = exactInteger(argv[0]);
            const auto value = exactInteger(argv[1]);
            if (run && value)
                return lookUp(*run, static_cast<std::size_t>(key - 1), *value);
            // Text and the like: SQLite checks the key constraint again (it is not omitted) with the column's
            // affinity, so scanning the run gives the right rows whatever the value.
        }
        return scan(byRun, byRun ? argv[0] : nullptr);
    }

    int next()
    {
        if (m_lookup) {
            ++m_hit;
            return seekHit();
        }
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
            m_current->result(ctx, m_record, column);
    }

    /** Unique per record of the store: the run in the high 32 bits, the record index in the low ones. */
    sqlite3_int64 rowid() const
    {
        const std::uint64_t id =
            (static_cast<std::uint64_t>(m_runId) << 32) + static_cast<std::uint64_t>(m_firstRecord) + m_record;
        return static_cast<sqlite3_int64>(id);
    }

private:
    int scan(bool byRun, sqlite3_value* runId)
    {
        Statement& stmt = byRun ? m_byRun : m_allRuns;
        if (!stmt) {
            const int rc = prepare(stmt, m_table.spec.chunkColumns, byRun ? " WHERE run_id = ?1" : "",
                                   " ORDER BY run_id, chunk_index");
            if (rc != SQLITE_OK)
                return rc;
        }
        m_active = stmt.get();
        if (byRun)
            sqlite3_bind_value(m_active, 1, runId);
        m_lookup = false;
        m_eof = false;
        m_haveRun = false;
        m_current = m_scanDecoder.get();
        return nextChunk();
    }

    /** Moves to the next chunk that holds records, checking that it follows the run's previous one. */
    int nextChunk()
    {
        for (;;) {
            const int rc = sqlite3_step(m_active);
            if (rc == SQLITE_DONE) {
                m_eof = true;
                return SQLITE_OK;
            }
            if (rc != SQLITE_ROW)
                return readError(rc);
            const std::int64_t runId = sqlite3_column_int64(m_active, 0);
            if (!m_haveRun || runId != m_runId)
                m_expectedFirst = 0;
            m_haveRun = true;
            m_runId = runId;
            if (const int header = readHeader(m_active, m_expectedFirst); header != SQLITE_OK)
                return header;
            m_expectedFirst += static_cast<std::int64_t>(m_records);
            m_record = 0;
            try {
                m_scanDecoder->load(m_active, m_records);
            } catch (const DamagedChunk& e) {
                return damaged(e.what());
            }
            if (m_records > 0)
                return SQLITE_OK;
        }
    }

    /** The records of run `run` whose key column `key` (an index in TableSpec::keys) holds `value`. */
    int lookUp(std::int64_t run, std::size_t key, std::int64_t value)
    {
        if (!m_cacheValid || m_cachedRun != run) {
            m_chunks.clear();
            for (auto& index : m_keyIndex)
                index.reset();
            m_cachedRun = run;
            m_cacheValid = true;
        }
        m_runId = run;
        const KeyColumn& column = m_table.spec.keys[key];
        if (!column.chunkColumn) {
            m_recordIndexHit = {value, value};
            m_hit = &m_recordIndexHit;
            m_hitEnd = m_hit + 1;
        } else {
            if (!m_keyIndex[key]) {
                KeyIndex index;
                if (const int rc = buildKeyIndex(run, column, index); rc != SQLITE_OK)
                    return rc;
                m_keyIndex[key] = std::move(index);
            }
            const KeyIndex& index = *m_keyIndex[key];
            const auto first = std::lower_bound(index.begin(), index.end(), std::pair(value, INT64_MIN));
            const auto end = std::upper_bound(first, index.end(), std::pair(value, INT64_MAX));
            m_hit = index.data() + (first - index.begin());
            m_hitEnd = index.data() + (end - index.begin());
        }
        m_lookup = true;
        m_eof = false;
        return seekHit();
    }

    /** Moves to the first hit from m_hit on whose record exists, loading its chunk; eof when none is left. */
    int seekHit()
    {
        for (; m_hit != m_hitEnd; ++m_hit) {
            const std::int64_t record = m_hit->second;
            if (record < 0)
                continue;
            const std::int64_t chunk = record / kRows;
            auto it = m_chunks.find(chunk);
            if (it == m_chunks.end()) {
                if (const int rc = loadChunk(m_runId, chunk); rc != SQLITE_OK)
                    return rc;
                it = m_chunks.find(chunk);
                if (it == m_chunks.end())
                    continue; // no such chunk: no such record
            }
            const CachedChunk& c = it->second;
            const std::int64_t at = record - c.firstRecord;
            if (at >= static_cast<std::int64_t>(c.records))
                continue;
            m_chunk = chunk;
            m_firstRecord = c.firstRecord;
            m_records = c.records;
            m_record = static_cast<std::size_t>(at);
            m_current = c.decoder.get();
            return SQLITE_OK;
        }
        m_eof = true;
        return SQLITE_OK;
    }

    /** Reads chunk `chunk` of run `run` into the cache; leaves the cache as it was when there is no such chunk. */
    int loadChunk(std::int64_t run, std::int64_t chunk)
    {
        if (!m_chunkRow) {
            const int rc =
                prepare(m_chunkRow, m_table.spec.chunkColumns, " WHERE run_id = ?1 AND chunk_index = ?2", "");
            if (rc != SQLITE_OK)
                return rc;
        }
        sqlite3_stmt* stmt = m_chunkRow.get();
        sqlite3_reset(stmt);
        sqlite3_bind_int64(stmt, 1, run);
        sqlite3_bind_int64(stmt, 2, chunk);
        const int step = sqlite3_step(stmt);
        if (step == SQLITE_DONE)
            return SQLITE_OK;
        if (step != SQLITE_ROW)
            return readError(step);
        if (const int header = readHeader(stmt, chunk * kRows); header != SQLITE_OK)
            return header;
        CachedChunk c{m_firstRecord, m_records, m_table.spec.makeDecoder()};
        try {
            c.decoder->load(stmt, c.records);
        } catch (const DamagedChunk& e) {
            return damaged(e.what());
        }
        sqlite3_reset(stmt);
        m_chunks.emplace(chunk, std::move(c));
        return SQLITE_OK;
    }

    /** Reads key column `column` of all of run `run`'s chunks (only that column) into `index`. */
    int buildKeyIndex(std::int64_t run, const KeyColumn& column, KeyIndex& index)
    {
        Statement& stmt = m_keyColumns[static_cast<std::size_t>(&column - m_table.spec.keys.data())];
        if (!stmt) {
            const int rc = prepare(stmt, column.chunkColumn, " WHERE run_id = ?1", " ORDER BY chunk_index");
            if (rc != SQLITE_OK)
                return rc;
        }
        sqlite3_reset(stmt.get());
        sqlite3_bind_int64(stmt.get(), 1, run);
        std::int64_t expectedFirst = 0;
        int step = SQLITE_ROW;
        while ((step = sqlite3_step(stmt.get())) == SQLITE_ROW) {
            if (const int header = readHeader(stmt.get(), expectedFirst); header != SQLITE_OK)
                return header;
            expectedFirst += static_cast<std::int64_t>(m_records);
            std::vector<std::int32_t> keys;
            try {
                keys = decodeColumn<std::int32_t>(stmt.get(), kFirstChunkColumn, column.chunkColumn, m_records);
            } catch (const DamagedChunk& e) {
                return damaged(e.what());
            }
            for (std::size_t i = 0; i < keys.size(); ++i)
                index.emplace_back(keys[i], m_firstRecord + static_cast<std::int64_t>(i));
        }
        if (step != SQLITE_DONE)
            return readError(step);
        sqlite3_reset(stmt.get());
        std::sort(index.begin(), index.end());
        if (column.unique) {
            const auto twice = std::adjacent_find(index.begin(), index.end(),
                                                  [](const auto& a, const auto& b) { return a.first == b.first; });
            if (twice != index.end()) {
                m_chunk = twice[1].second / kRows;
                return damaged(std::string(column.chunkColumn) + " " + std::to_string(twice->first) +
                               " is stored twice (records " + std::to_string(twice[0].second) + " and " +
                               std::to_string(twice[1].second) + ")");
            }
        }
        return SQLITE_OK;
    }

    /**
     * Reads a chunk row's chunk_index, first_record and records (its run is m_runId), and checks that it is the
     * chunk that starts at record `expectedFirst`.
     */
    int readHeader(sqlite3_stmt* row, std::int64_t expectedFirst)
    {
        m_chunk = sqlite3_column_int64(row, 1);
        m_firstRecord = sqlite3_column_int64(row, 2);
        const std::int64_t records = sqlite3_column_int64(row, 3);
        m_records = 0;
        if (m_firstRecord != expectedFirst || records < 0 || records > kRows || m_chunk != m_firstRecord / kRows)
            return damaged("starts at record " + std::to_string(m_firstRecord) + " with " + std::to_string(records) +
                           " records, expected a chunk starting at record " + std::to_string(expectedFirst));
        m_records = static_cast<std::size_t>(records);
        return SQLITE_OK;
    }

    int prepare(Statement& out, const char* columns, const char* where, const char* order)
    {
        const TableSpec& spec = m_table.spec;
        const std::string sql = std::string("SELECT run_id, chunk_index, first_record, records, ") + columns +
                                " FROM main." + spec.chunkTable + where + order;
        sqlite3_stmt* stmt = nullptr;
        const int rc = sqlite3_prepare_v2(m_table.db, sql.c_str(), -1, &stmt, nullptr);
        out.reset(stmt);
        if (rc == SQLITE_OK)
            return SQLITE_OK;
        const std::string why = sqlite3_errmsg(m_table.db);
        out.reset();
        if (!hasChunkTable())
            return fail(SQLITE_ERROR, std::string(spec.name) + ": this database has no " + spec.chunkTable +
                                          " table; " + spec.name + " reads an Orrery run store of schema version " +
                                          std::to_string(spec.sinceSchemaVersion) + " or later");
        return fail(rc, std::string(spec.name) + ": cannot read " + spec.chunkTable + ": " + why);
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

    int readError(int rc)
    {
        return fail(rc, std::string(m_table.spec.name) + ": reading " + m_table.spec.chunkTable + ": " +
                            sqlite3_errmsg(m_table.db));
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
    std::unique_ptr<ChunkDecoder> m_scanDecoder;
    const ChunkDecoder* m_current = nullptr; // the scan decoder, or a cached chunk's
    // Prepared on first use and kept for the next xFilter: a join filters once per outer row.
    Statement m_allRuns, m_byRun, m_chunkRow;
    std::array<Statement, kMaxKeys> m_keyColumns;
    sqlite3_stmt* m_active = nullptr; // the scan statement stepping now
    bool m_eof = true;
    bool m_lookup = false; // walking the hits of a lookup rather than a scan
    bool m_haveRun = false;
    std::int64_t m_runId = 0;
    std::int64_t m_chunk = 0;
    std::int64_t m_firstRecord = 0;
    std::int64_t m_expectedFirst = 0;
    std::size_t m_records = 0;
    std::size_t m_record = 0;
    // Lookups: the run whose chunks and key indices are kept, and the hits of the current lookup.
    bool m_cacheValid = false;
    std::int64_t m_cachedRun = 0;
    std::map<std::int64_t, CachedChunk> m_chunks;
    std::array<std::optional<KeyIndex>, kMaxKeys> m_keyIndex;
    KeyIndex::value_type m_recordIndexHit;
    const KeyIndex::value_type* m_hit = nullptr;
    const KeyIndex::value_type* m_hitEnd = nullptr;
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
    const TableSpec& spec = vtabOf(vtab).spec;
    int runConstraint = -1;
    int keyConstraint = -1;
    std::size_t key = kMaxKeys;
    for (int i = 0; i < info->nConstraint; ++i) {
        const auto& c = info->aConstraint[i];
        if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ)
            continue;
        if (c.iColumn == 0 && runConstraint < 0)
            runConstraint = i;
        for (std::size_t k = 0; k < key; ++k) {
            if (spec.keys[k].column >= 0 && c.iColumn == spec.keys[k].column) {
                keyConstraint = i;
                key = k; // keys are listed best first
            }
        }
    }
    if (runConstraint >= 0) {
        info->aConstraintUsage[runConstraint].argvIndex = 1;
        info->aConstraintUsage[runConstraint].omit = 1;
        info->idxNum = kByRun;
        info->estimatedCost = kOneRunRows;
        info->estimatedRows = static_cast<sqlite3_int64>(kOneRunRows);
        if (keyConstraint >= 0) {
            // Not omitted: a value that is no exact integer is left for SQLite to compare (xFilter scans the run).
            info->aConstraintUsage[keyConstraint].argvIndex = 2;
            info->idxNum |= static_cast<int>(key + 1) << 1;
            info->estimatedCost = spec.keys[key].unique ? kUniqueKeyCost : kKeyRows;
            info->estimatedRows = spec.keys[key].unique ? 1 : static_cast<sqlite3_int64>(kKeyRows);
        }
    } else {
        info->idxNum = 0;
        info->estimatedCost = kAllRunsRows;
        info->estimatedRows = static_cast<sqlite3_int64>(kAllRunsRows);
    }
    // Lookups yield a run's records in record order too. SQLite itself drops orderByConsumed when run_id comes from
    // an IN list, whose values it may visit in any order.
    info->orderByConsumed = consumesOrderBy(*info, spec, runConstraint >= 0) ? 1 : 0;
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
    return guarded(cursor->pVtab, [&] { return cursorOf(cursor).filter(idxNum, argc, argv); });
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
