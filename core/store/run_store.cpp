#include "store/run_store.h"

#include "io/error.h"
#include "store/gpu_types_table.h"
#include "store/job_records.h"
#include "store/process_identity.h"
#include "store/run_uid.h"
#include "store/schema.h"
#include "store/sqlite.h"
#include "store/timestamp.h"
#include "util/hash.h"
#include "version.h"

#include <sqlite3.h>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <thread>

namespace orrery::store {

namespace {

enum class Probe { New, Orrery };

/**
 * Decides whether `path` may be opened for writing, reading only: first the
 * raw 100-byte header (no SQLite involved, so a foreign file is never touched),
 * then a read-only SQLite connection for the pragmas and the runs table.
 */
Probe probe(const std::string& path)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (!fs::exists(status))
        return Probe::New;
    if (fs::is_directory(status))
        throw Error(path, "", "is a directory, not an Orrery database");
    const auto size = fs::file_size(path, ec);
    const bool walExists = fs::exists(path + "-wal", ec);
    if (size == 0 && !walExists)
        return Probe::New;
    if (size > 0) {
        std::array<char, 100> header{};
        std::ifstream in(path, std::ios::binary);
        if (!in)
            throw Error(path, "", "cannot open database: permission denied");
        in.read(header.data(), header.size());
        static constexpr char kMagic[] = "SQLite format 3";
        if (in.gcount() < static_cast<std::streamsize>(header.size()) ||
            std::memcmp(header.data(), kMagic, sizeof kMagic) != 0)
            throw Error(path, "", "not an Orrery database (not an SQLite file)");
    }

    Connection ro(path, Connection::Mode::ReadOnly);
    const auto appId = ro.queryInt("PRAGMA application_id");
    const auto version = ro.queryInt("PRAGMA user_version");
    const auto objects = ro.queryInt("SELECT count(*) FROM sqlite_schema");
    if (appId != kApplicationId) {
        if (appId == 0 && objects == 0)
            return Probe::New; // an empty SQLite file (e.g. made by `sqlite3 FILE ''`)
        throw Error(path, "", "not an Orrery database (an SQLite database of another application)");
    }
    if (version > schemaVersion())
        throw Error(path, "",
                    fmt::format("written by a newer Orrery (schema version {}; this version reads up to {})", version,
                                schemaVersion()));
    if (version >= 1) {
        // Reads the run index: a damaged file fails here, before anything is written.
        ro.queryInt("SELECT count(*) FROM runs WHERE status = 'running'");
    }
    return Probe::Orrery;
}

std::vector<std::string> typesFromJson(const std::string& text)
{
    const auto j = nlohmann::json::parse(text, nullptr, false);
    std::vector<std::string> out;
    if (j.is_array())
        for (const auto& t : j)
            if (t.is_string())
                out.push_back(t.get<std::string>());
    return out;
}

constexpr const char* kRunColumns =
    "r.id, r.scenario_id, s.name, s.content_hash, r.policy, r.options_json, r.seed, r.orrery_version, r.started_at, "
    "r.finished_at, r.status, r.error, r.total_gpus, "
    "(SELECT json_group_array(gpu_type) FROM (SELECT gpu_type FROM run_gpu_types t WHERE t.run_id = r.id "
    "ORDER BY type_index)), r.job_count, r.finished_job_count, r.avg_jct_s, r.makespan_s, r.cost_usd, r.sim_wall_s, "
    "r.events";

std::optional<double> optionalDouble(const Statement& s, int column)
{
    return s.isNull(column) ? std::nullopt : std::optional<double>(s.columnDouble(column));
}

std::optional<int> optionalInt(const Statement& s, int column)
{
    return s.isNull(column) ? std::nullopt : std::optional<int>(static_cast<int>(s.columnInt(column)));
}

RunRecord readRecord(const Statement& s)
{
    RunRecord r;
    r.id = s.columnInt(0);
    r.scenarioId = s.columnInt(1);
    r.scenarioName = s.columnText(2);
    r.scenarioHash = s.columnText(3);
    r.policy = s.columnText(4);
    r.optionsJson = s.columnText(5);
    r.seed = static_cast<std::uint64_t>(s.columnInt(6));
    r.orreryVersion = s.columnText(7);
    r.startedAt = s.columnText(8);
    r.finishedAt = s.columnText(9);
    const std::string status = s.columnText(10);
    r.status = status == "completed"   ? RunStatus::Completed
               : status == "cancelled" ? RunStatus::Cancelled
               : status == "running"   ? RunStatus::Running
                                       : RunStatus::Failed;
    r.error = s.columnText(11);
    r.totalGpus = static_cast<int>(s.columnInt(12));
    r.gpuTypes = typesFromJson(s.columnText(13));
    r.jobCount = optionalInt(s, 14);
    r.finishedJobCount = optionalInt(s, 15);
    r.avgJctS = optionalDouble(s, 16);
    r.makespanS = optionalDouble(s, 17);
    r.costUsd = optionalDouble(s, 18);
    r.simWallS = optionalDouble(s, 19);
    if (!s.isNull(20))
        r.events = s.columnInt(20);
    return r;
}

} // namespace

RunStore::RunStore(const std::string& path) : RunStore(path, Options{})
{}

RunStore::RunStore(const std::string& path, const Options& options) : m_path(path)
{
    const Probe kind = probe(path);
    if (options.access == Access::ReadOnly) {
        if (kind == Probe::New)
            throw Error(path, "", "is empty: no run has been stored in it yet");
        m_db = std::make_unique<Connection>(path, Connection::Mode::ReadOnly);
        m_db->setLockWait(options.lockTimeoutMs, options.onLockWait);
        const auto version = m_db->queryInt("PRAGMA user_version");
        if (version < schemaVersion())
            throw Error(path, "",
                        fmt::format("written by an older Orrery (schema version {}, now {}) and opened read-only; "
                                    "open it once for writing (e.g. orrery-cli simulate --db FILE) to upgrade it",
                                    version, schemaVersion()));
        Statement s(*m_db, "SELECT id, writer_pid, writer_start_ticks, writer_host FROM runs WHERE status = 'running'");
        while (s.step())
            if (writerIsDead({s.columnInt(1), s.columnInt(2), s.columnText(3)}))
                m_deadWriters.push_back(s.columnInt(0));
        return;
    }
    m_db = std::make_unique<Connection>(path, Connection::Mode::ReadWriteCreate);
    m_db->setLockWait(options.lockTimeoutMs, options.onLockWait);
    m_db->exec("PRAGMA foreign_keys = ON");
    if (kind == Probe::Orrery)
        refuseIfDamaged();
    // Fewer, larger pages: a stored run is mostly long appends, and 16 KiB pages cut the per-page work of
    // writing them (about 10% of a 100,000-job store with the default 4 KiB). No effect once the file has
    // tables, e.g. when another process created it first.
    m_db->exec("PRAGMA page_size = 16384");
    // A new file starts in rollback-journal mode (SQLite's default), so its header (application id,
    // version) reaches the main file atomically with the tables: a creator killed half-way leaves a hot
    // journal that the next open rolls back. It is not forced: leaving WAL needs every other connection
    // closed, and another process may have created the file and switched it to WAL already.
    // migrate() is safe against other processes creating or migrating the same file at once.
    migrate(*m_db);
    // Entering WAL needs a moment without other connections' locks; SQLite does not wait for that, so wait
    // here, as long as for any other lock.
    for (const auto start = std::chrono::steady_clock::now();;) {
        try {
            m_db->exec("PRAGMA journal_mode = WAL");
            break;
        } catch (const DatabaseError& e) {
            if ((e.code() & 0xff) != SQLITE_BUSY ||
                std::chrono::steady_clock::now() - start > std::chrono::milliseconds(options.lockTimeoutMs))
                throw;
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
    }
    // In WAL mode NORMAL never corrupts the file; a power cut may only lose the last commits.
    m_db->exec("PRAGMA synchronous = NORMAL");
    // A run is written in large transactions; a bigger page cache keeps them from spilling mid-way.
    m_db->exec("PRAGMA cache_size = -32768");
    recoverInterrupted();
}

bool RunStore::readOnly() const
{
    return m_db->readOnly();
}

void RunStore::refuseIfDamaged()
{
    // quick_check reads every page once but skips the index-versus-table cross-checks of integrity_check:
    // a few milliseconds per 10 MB (docs/reliability.md). Only writers pay for it; a damaged store may
    // still be read, to get out what is readable.
    std::string problem;
    try {
        Statement s(*m_db, "PRAGMA quick_check(1)");
        if (s.step())
            problem = s.columnText(0);
        if (problem == "ok")
            return;
        // One line: the report starts with a "*** in database main ***" line of its own.
        static constexpr std::string_view kPrefix = "*** in database main ***\n";
        if (problem.starts_with(kPrefix))
            problem.erase(0, kPrefix.size());
        std::replace(problem.begin(), problem.end(), '\n', ' ');
    } catch (const Error& e) {
        problem = e.what(); // SQLITE_CORRUPT on the way: as damaged as a failed check
    }
    throw Error(m_path, "",
                fmt::format("the run store is damaged (quick_check: {}); nothing was written to it. Its runs can still "
                            "be read (orrery-cli runs list --db {}). To store runs again, copy what is readable "
                            "into a new store and use that: sqlite3 {} .dump | sed 's/^ROLLBACK; -- due to errors$/"
                            "COMMIT;/' | sqlite3 recovered.sqlite && sqlite3 recovered.sqlite 'PRAGMA application_id "
                            "= {}; PRAGMA user_version = {}' (see docs/database.md, \"Damaged stores\")",
                            problem, m_path, m_path, kApplicationId, schemaVersion()));
}

void RunStore::markDeadWriters(RunRecord& r) const
{
    if (r.status == RunStatus::Running &&
        std::find(m_deadWriters.begin(), m_deadWriters.end(), r.id) != m_deadWriters.end()) {
        r.status = RunStatus::Failed;
        r.error = "interrupted";
    }
}

RunStore::~RunStore() = default;
RunStore::RunStore(RunStore&&) noexcept = default;
RunStore& RunStore::operator=(RunStore&&) noexcept = default;

void RunStore::recoverInterrupted()
{
    struct Candidate
    {
        std::int64_t id;
        ProcessIdentity writer;
    };
    std::vector<Candidate> dead;
    {
        Statement s(*m_db, "SELECT id, writer_pid, writer_start_ticks, writer_host FROM runs WHERE status = 'running'");
        while (s.step()) {
            Candidate c{s.columnInt(0), {s.columnInt(1), s.columnInt(2), s.columnText(3)}};
            if (writerIsDead(c.writer))
                dead.push_back(std::move(c));
        }
    }
    if (dead.empty())
        return;
    Transaction tx(*m_db);
    Statement mark(*m_db, "UPDATE runs SET status = 'failed', error = 'interrupted', finished_at = ?2 "
                          "WHERE id = ?1 AND status = 'running'");
    const std::string now = utcNowIso();
    for (const auto& c : dead) {
        mark.bind(1, c.id).bind(2, now);
        mark.run();
        m_recovered.push_back(c.id);
    }
    tx.commit();
}

std::int64_t RunStore::storeScenario(const std::string& name, const std::string& json)
{
    // A transaction of its own, so that no other process inserts the same scenario between the look-up and the
    // insert.
    Transaction tx(*m_db);
    const std::int64_t id = findOrInsertScenario(name, json, util::fnv1a64Hex(json));
    tx.commit();
    return id;
}

std::int64_t RunStore::findOrInsertScenario(const std::string& name, const std::string& json, const std::string& hash)
{
    {
        auto find = m_db->cached("SELECT id FROM scenarios WHERE content_hash = ?1 AND json = ?2");
        find->bindStatic(1, hash).bindStatic(2, json);
        if (find->step())
            return find->columnInt(0);
    }
    auto insert = m_db->cached("INSERT INTO scenarios (name, content_hash, json, created_at) VALUES (?1, ?2, ?3, ?4)");
    insert->bindStatic(1, name).bindStatic(2, hash).bindStatic(3, json).bind(4, utcNowIso());
    insert->run();
    return m_db->lastInsertRowId();
}

std::string RunStore::scenarioJson(std::int64_t scenarioId)
{
    Statement s(*m_db, "SELECT json FROM scenarios WHERE id = ?1");
    s.bind(1, scenarioId);
    if (!s.step())
        throw Error(m_path, "scenario", fmt::format("no scenario with id {}", scenarioId));
    return s.columnText(0);
}

RunWriter RunStore::beginRun(const RunInfo& info, int batchRows)
{
    const std::int64_t scenarioId = storeScenario(info.scenarioName, info.scenarioJson);
    const ProcessIdentity me = ProcessIdentity::current();
    Transaction tx(*m_db);
    auto run = m_db->cached("INSERT INTO runs (scenario_id, policy, options_json, seed, orrery_version, started_at, "
                            "status, writer_pid, writer_start_ticks, writer_host, total_gpus, uid) "
                            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, ?8, ?9, ?10, ?11)");
    run->bind(1, scenarioId)
        .bind(2, info.policy)
        .bind(3, info.optionsJson)
        .bind(4, static_cast<std::int64_t>(info.seed))
        .bind(5, kVersion)
        .bind(6, utcNowIso())
        .bind(7, me.pid)
        .bind(8, me.startTicks)
        .bind(9, me.host)
        .bind(10, info.layout.gpuCount())
        .bind(11, newRunUid());
    run->run();
    const std::int64_t runId = m_db->lastInsertRowId();
    if (info.sweep) {
        // In the run's own transaction: a point is never stored without its tag, so resuming finds it.
        auto tag = m_db->cached("INSERT INTO sweep_points (run_id, sweep, point_key, axes) VALUES (?1, ?2, ?3, ?4)");
        tag->bind(1, runId).bind(2, info.sweep->sweep).bind(3, info.sweep->pointKey).bind(4, info.sweep->axesJson);
        tag->run();
    }
    writeGpuTypes(*m_db, runId, info.gpuTypes, info.gpusByType, info.priceUsdPerHourByType);
    ColumnChunkWriter(*m_db, runId).writeNew(encodeGpus(m_path, info.layout)); // a new run: nothing to replace
    tx.commit();
    return RunWriter(*m_db, runId, batchRows);
}

std::vector<RunRecord> RunStore::listRuns(const RunFilter& filter)
{
    std::string sql =
        fmt::format("SELECT {} FROM runs r JOIN scenarios s ON s.id = r.scenario_id WHERE 1", kRunColumns);
    if (!filter.scenario.empty())
        sql += " AND (s.name = ?1 OR substr(s.content_hash, 1, length(?1)) = ?1)";
    if (!filter.policy.empty())
        // A bare name takes every parameter setting of that policy; a full label (name:key=value...) just itself.
        sql += " AND (r.policy = ?2 OR substr(r.policy, 1, length(?2) + 1) = ?2 || ':')";
    if (filter.status)
        sql += " AND r.status = ?3";
    sql += " ORDER BY r.id";
    if (filter.limit > 0)
        sql += " LIMIT ?4";
    Statement s(*m_db, sql);
    if (!filter.scenario.empty())
        s.bind(1, filter.scenario);
    if (!filter.policy.empty())
        s.bind(2, filter.policy);
    if (filter.status)
        s.bind(3, toString(*filter.status));
    if (filter.limit > 0)
        s.bind(4, filter.limit);
    std::vector<RunRecord> out;
    while (s.step()) {
        out.push_back(readRecord(s));
        markDeadWriters(out.back());
    }
    return out;
}

std::optional<RunRecord> RunStore::findRun(std::int64_t id)
{
    Statement s(*m_db, fmt::format("SELECT {} FROM runs r JOIN scenarios s ON s.id = r.scenario_id WHERE r.id = ?1",
                                   kRunColumns));
    s.bind(1, id);
    if (!s.step())
        return std::nullopt;
    RunRecord r = readRecord(s);
    markDeadWriters(r);
    return r;
}

StoredRun RunStore::loadRun(std::int64_t id, RunParts parts)
{
    const bool whole = parts == RunParts::Whole;
    auto record = findRun(id);
    if (!record)
        throw Error(m_path, "run", fmt::format("no run with id {}", id));
    StoredRun out;
    out.record = std::move(*record);
    auto& r = out.result;
    r.policy = out.record.policy;
    r.seed = out.record.seed;
    r.totalGpus = out.record.totalGpus;
    r.makespanS = out.record.makespanS.value_or(0);
    r.wallS = out.record.simWallS.value_or(0);
    r.cancelled = out.record.status == RunStatus::Cancelled;
    r.events = static_cast<std::uint64_t>(out.record.events.value_or(0));

    {
        Statement s(*m_db,
                    "SELECT gpu_type, gpus, usd_per_gpu_hour FROM run_gpu_types WHERE run_id = ?1 ORDER BY type_index");
        s.bind(1, id);
        while (s.step()) {
            r.gpuTypes.push_back(s.columnText(0));
            r.gpusByType.push_back(static_cast<int>(s.columnInt(1)));
            r.priceUsdPerHourByType.push_back(s.columnDouble(2));
        }
    }

    if (whole) {
        out.layout = readGpuLayout(*m_db, m_path, id);
        for (const std::string& type : out.layout.gpuTypes) {
            const auto at = std::find(r.gpuTypes.begin(), r.gpuTypes.end(), type);
            r.gpuType.push_back(at == r.gpuTypes.end() ? -1 : static_cast<int>(at - r.gpuTypes.begin()));
        }
    }
    // Interrupted runs lack the records of jobs that had not finished: those stay default, marked not stored.
    r.jobs = readJobs(*m_db, m_path, id, out.record.jobCount ? static_cast<std::size_t>(*out.record.jobCount) : 0,
                      &out.jobStored);
    out.partial = out.storedJobCount() < r.jobs.size() || out.record.status == RunStatus::Failed ||
                  out.record.status == RunStatus::Running;
    r.intervals = readIntervals(*m_db, m_path, id);
    r.decisions = readDecisions(*m_db, m_path, id);
    readJobExtras(*m_db, m_path, id, r.jobs);
    if (!whole)
        return out;
    r.utilization = readUtilization(*m_db, m_path, id);
    r.jobEvents = readJobEvents(*m_db, m_path, id);
    r.series = readSeries(*m_db, m_path, id);
    r.rateSegments = readRateSegments(*m_db, m_path, id);
    return out;
}

bool RunStore::deleteRun(std::int64_t id)
{
    Transaction tx(*m_db);
    Statement find(*m_db,
                   "SELECT status, writer_pid, writer_start_ticks, writer_host, scenario_id FROM runs WHERE id = ?1");
    find.bind(1, id);
    if (!find.step())
        return false;
    const ProcessIdentity writer{find.columnInt(1), find.columnInt(2), find.columnText(3)};
    if (find.columnText(0) == "running" && !writerIsDead(writer))
        throw Error(m_path, "run", fmt::format("run {} is still being written by process {}", id, writer.pid));
    const std::int64_t scenarioId = find.columnInt(4);
    find.reset();
    Statement del(*m_db, "DELETE FROM runs WHERE id = ?1");
    del.bind(1, id);
    del.run();
    Statement orphan(*m_db,
                     "DELETE FROM scenarios WHERE id = ?1 AND NOT EXISTS (SELECT 1 FROM runs WHERE scenario_id = ?1)");
    orphan.bind(1, scenarioId);
    orphan.run();
    tx.commit();
    return true;
}

std::string RunStore::integrityCheck()
{
    Statement s(*m_db, "PRAGMA integrity_check");
    std::string out;
    while (s.step()) {
        if (!out.empty())
            out += '\n';
        out += s.columnText(0);
    }
    return out;
}

} // namespace orrery::store
