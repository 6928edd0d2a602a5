#include "store/column_chunks.h"

#include "io/error.h"
#include "store/sqlite.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace orrery::store {

namespace {

using chunk::toOrFromLittleEndian;

template <typename T> void bindColumn(Statement& s, int index, std::vector<T>& values)
{
    toOrFromLittleEndian(values);
    s.bindStaticBlob(index, values.data(), values.size() * sizeof(T));
}

struct ChunkRange
{
    std::size_t first = 0;
    std::size_t end = 0;
};

/** Chunks to (re)write so that records [from, size) are stored: whole chunks, the first one from its start. */
std::vector<ChunkRange> chunksFrom(std::size_t from, std::size_t size)
{
    std::vector<ChunkRange> out;
    for (std::size_t first = from / kChunkRows * kChunkRows; first < size; first += kChunkRows)
        out.push_back({first, std::min(size, first + kChunkRows)});
    return out;
}

} // namespace

struct ColumnChunkWriter::Impl
{
    Impl(Connection& c, std::int64_t id)
        : runId(id),
          intervals(
              c, "INSERT OR REPLACE INTO interval_chunks (run_id, chunk_index, first_record, records, job_index, gpu, "
                 "start_s, end_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
          utilization(
              c, "INSERT OR REPLACE INTO utilization_chunks (run_id, chunk_index, first_record, records, gpu_types, "
                 "time_s, busy_gpus, busy_by_type) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
          decisions(c,
                    "INSERT OR REPLACE INTO decision_chunks (run_id, chunk_index, first_record, records, sim_time_s, "
                    "wall_s, queued, running) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
          dropIntervals(c, "DELETE FROM interval_chunks WHERE run_id = ?1")
    {
        intervals.bind(1, runId);
        utilization.bind(1, runId);
        decisions.bind(1, runId);
        dropIntervals.bind(1, runId);
    }

    static void bindHeader(Statement& s, const ChunkRange& c)
    {
        s.bind(2, static_cast<std::int64_t>(c.first / kChunkRows))
            .bind(3, static_cast<std::int64_t>(c.first))
            .bind(4, static_cast<std::int64_t>(c.end - c.first));
    }

    std::int64_t runId;
    Statement intervals, utilization, decisions, dropIntervals;
    // Column buffers, reused: statements bind them without copying.
    std::vector<std::int32_t> i0, i1, i2;
    std::vector<double> d0, d1;
};

ColumnChunkWriter::ColumnChunkWriter(Connection& db, std::int64_t runId) : m(std::make_unique<Impl>(db, runId))
{}

ColumnChunkWriter::~ColumnChunkWriter() = default;

std::size_t ColumnChunkWriter::writeIntervals(const std::vector<sim::AllocationInterval>& rows, std::size_t from)
{
    std::size_t written = 0;
    for (const ChunkRange& c : chunksFrom(from, rows.size())) {
        m->i0.clear(), m->i1.clear(), m->d0.clear(), m->d1.clear();
        for (std::size_t i = c.first; i < c.end; ++i) {
            m->i0.push_back(rows[i].job);
            m->i1.push_back(rows[i].gpu);
            m->d0.push_back(rows[i].startS);
            m->d1.push_back(rows[i].endS);
        }
        Impl::bindHeader(m->intervals, c);
        bindColumn(m->intervals, 5, m->i0);
        bindColumn(m->intervals, 6, m->i1);
        bindColumn(m->intervals, 7, m->d0);
        bindColumn(m->intervals, 8, m->d1);
        m->intervals.run();
        written += c.end - c.first;
    }
    return written;
}

std::size_t ColumnChunkWriter::writeUtilization(const std::vector<sim::UtilizationSample>& rows, std::size_t from)
{
    std::size_t written = 0;
    for (const ChunkRange& c : chunksFrom(from, rows.size())) {
        std::size_t types = 0;
        for (std::size_t i = c.first; i < c.end; ++i)
            types = std::max(types, rows[i].busyByType.size());
        m->d0.clear(), m->i0.clear(), m->i1.clear();
        for (std::size_t i = c.first; i < c.end; ++i) {
            m->d0.push_back(rows[i].timeS);
            m->i0.push_back(rows[i].busyGpus);
            const auto& byType = rows[i].busyByType;
            m->i1.insert(m->i1.end(), byType.begin(), byType.end());
            m->i1.resize(m->i1.size() + types - byType.size(), 0); // a type a sample does not list has no busy GPU
        }
        Impl::bindHeader(m->utilization, c);
        m->utilization.bind(5, static_cast<std::int64_t>(types));
        bindColumn(m->utilization, 6, m->d0);
        bindColumn(m->utilization, 7, m->i0);
        bindColumn(m->utilization, 8, m->i1);
        m->utilization.run();
        written += c.end - c.first;
    }
    return written;
}

std::size_t ColumnChunkWriter::writeDecisions(const std::vector<sim::DecisionTiming>& rows, std::size_t from)
{
    std::size_t written = 0;
    for (const ChunkRange& c : chunksFrom(from, rows.size())) {
        m->d0.clear(), m->d1.clear(), m->i0.clear(), m->i1.clear();
        for (std::size_t i = c.first; i < c.end; ++i) {
            m->d0.push_back(rows[i].simTimeS);
            m->d1.push_back(rows[i].wallS);
            m->i0.push_back(rows[i].queued);
            m->i1.push_back(rows[i].running);
        }
        Impl::bindHeader(m->decisions, c);
        bindColumn(m->decisions, 5, m->d0);
        bindColumn(m->decisions, 6, m->d1);
        bindColumn(m->decisions, 7, m->i0);
        bindColumn(m->decisions, 8, m->i1);
        m->decisions.run();
        written += c.end - c.first;
    }
    return written;
}

void ColumnChunkWriter::deleteIntervals()
{
    m->dropIntervals.run();
}

namespace {

/** Walks one run's chunks of a table in order, checking that they follow each other and their columns' sizes. */
class ChunkReader
{
public:
    ChunkReader(Connection& db, const std::string& path, std::string table, std::int64_t runId,
                std::string_view columns)
        : m_path(path), m_table(std::move(table)), m_runId(runId),
          m_stmt(db, fmt::format(
                         "SELECT chunk_index, first_record, records{}{} FROM {} WHERE run_id = ?1 ORDER BY chunk_index",
                         columns.empty() ? "" : ", ", columns, m_table))
    {
        m_stmt.bind(1, runId);
    }

    /** Next chunk; false at the end. */
    bool next()
    {
        if (!m_stmt.step())
            return false;
        m_chunk = m_stmt.columnInt(0);
        const std::int64_t first = m_stmt.columnInt(1);
        const std::int64_t rows = m_stmt.columnInt(2);
        if (first != m_records || rows < 0 || rows > static_cast<std::int64_t>(kChunkRows) ||
            m_chunk != first / static_cast<std::int64_t>(kChunkRows))
            damaged(fmt::format("starts at record {} with {} records, expected a chunk starting at record {}", first,
                                rows, m_records));
        m_rows = static_cast<std::size_t>(rows);
        m_records += rows;
        return true;
    }

    std::size_t rows() const { return m_rows; }
    std::int64_t columnInt(int column) const { return m_stmt.columnInt(column); }

    /** Column `column` (0-based in the SELECT) as `count` values of T. */
    template <typename T> std::vector<T> values(int column, std::string_view name, std::size_t count)
    {
        const std::string_view blob = m_stmt.columnBlob(column);
        auto out = chunk::decode<T>(blob, count);
        if (!out)
            damaged(fmt::format("column {} holds {} bytes, expected {}", name, blob.size(), count * sizeof(T)));
        return std::move(*out);
    }

    [[noreturn]] void damaged(const std::string& problem) const
    {
        throw Error(m_path, m_table, fmt::format("run {} chunk {} is damaged: {}", m_runId, m_chunk, problem));
    }

private:
    std::string m_path;
    std::string m_table;
    std::int64_t m_runId;
    Statement m_stmt;
    std::int64_t m_chunk = 0;
    std::int64_t m_records = 0;
    std::size_t m_rows = 0;
};

} // namespace

std::vector<sim::AllocationInterval> readIntervals(Connection& db, const std::string& path, std::int64_t runId)
{
    std::vector<sim::AllocationInterval> out;
    ChunkReader r(db, path, "interval_chunks", runId, "job_index, gpu, start_s, end_s");
    while (r.next()) {
        const auto job = r.values<std::int32_t>(3, "job_index", r.rows());
        const auto gpu = r.values<std::int32_t>(4, "gpu", r.rows());
        const auto start = r.values<double>(5, "start_s", r.rows());
        const auto end = r.values<double>(6, "end_s", r.rows());
        for (std::size_t i = 0; i < r.rows(); ++i)
            out.push_back({job[i], gpu[i], start[i], end[i]});
    }
    return out;
}

std::vector<sim::UtilizationSample> readUtilization(Connection& db, const std::string& path, std::int64_t runId)
{
    std::vector<sim::UtilizationSample> out;
    ChunkReader r(db, path, "utilization_chunks", runId, "gpu_types, time_s, busy_gpus, busy_by_type");
    while (r.next()) {
        const std::int64_t types = r.columnInt(3);
        if (types < 0 || types > 1'000'000)
            r.damaged(fmt::format("gpu_types is {}", types));
        const auto t = static_cast<std::size_t>(types);
        const auto time = r.values<double>(4, "time_s", r.rows());
        const auto busy = r.values<std::int32_t>(5, "busy_gpus", r.rows());
        const auto byType = r.values<std::int32_t>(6, "busy_by_type", r.rows() * t);
        for (std::size_t i = 0; i < r.rows(); ++i) {
            const auto first = byType.begin() + static_cast<std::ptrdiff_t>(i * t);
            out.push_back({time[i], busy[i], std::vector<int>(first, first + static_cast<std::ptrdiff_t>(t))});
        }
    }
    return out;
}

std::vector<sim::DecisionTiming> readDecisions(Connection& db, const std::string& path, std::int64_t runId)
{
    std::vector<sim::DecisionTiming> out;
    ChunkReader r(db, path, "decision_chunks", runId, "sim_time_s, wall_s, queued, running");
    while (r.next()) {
        const auto simTime = r.values<double>(3, "sim_time_s", r.rows());
        const auto wall = r.values<double>(4, "wall_s", r.rows());
        const auto queued = r.values<std::int32_t>(5, "queued", r.rows());
        const auto running = r.values<std::int32_t>(6, "running", r.rows());
        for (std::size_t i = 0; i < r.rows(); ++i)
            out.push_back({simTime[i], wall[i], queued[i], running[i]});
    }
    return out;
}

std::int64_t chunkedRecordCount(Connection& db, const std::string& table, std::int64_t runId)
{
    if (table != "interval_chunks" && table != "utilization_chunks" && table != "decision_chunks")
        throw std::invalid_argument("chunkedRecordCount: unknown table " + table);
    Statement s(db, fmt::format("SELECT coalesce(sum(records), 0) FROM {} WHERE run_id = ?1", table));
    s.bind(1, runId);
    s.step();
    return s.columnInt(0);
}

} // namespace orrery::store
