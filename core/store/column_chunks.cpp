#include "store/column_chunks.h"

#include "io/error.h"
#include "store/sqlite.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <unordered_map>

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

/**
 * A chunk's string dictionary (chunk_layout.h). Model, user and GPU type repeat across jobs and are
 * interned; job ids are unique in practice and appended without a lookup.
 */
class LabelTable
{
public:
    explicit LabelTable(const std::string& path) : m_path(path) {}

    /** The table named when a label cannot be stored. */
    void setTable(const char* table) { m_table = table; }

    void clear()
    {
        m_blob.clear();
        m_count = 0;
        m_index.clear();
    }

    std::int32_t append(std::string_view s)
    {
        if (s.find('\0') != std::string_view::npos)
            throw Error(m_path, m_table,
                        fmt::format("label \"{}\" holds a NUL character, which the store cannot keep",
                                    std::string(s.substr(0, s.find('\0')))));
        m_blob.append(s);
        m_blob.push_back('\0');
        return m_count++;
    }

    /** `s` must outlive the next clear(): the dictionary keys are views of the callers' strings. */
    std::int32_t intern(std::string_view s)
    {
        const auto it = m_index.find(s);
        if (it != m_index.end())
            return it->second;
        const std::int32_t code = append(s);
        m_index.emplace(s, code);
        return code;
    }

    const std::string& blob() const { return m_blob; }

private:
    const std::string& m_path;
    const char* m_table = "jobs";
    std::string m_blob;
    std::int32_t m_count = 0;
    std::unordered_map<std::string_view, std::int32_t> m_index;
};

/** Interns one string column: consecutive jobs mostly share a model, user and GPU type. */
struct LabelColumn
{
    std::string_view last;
    std::int32_t lastCode = -1;

    std::int32_t code(LabelTable& labels, std::string_view s)
    {
        if (lastCode < 0 || s != last) {
            last = s;
            lastCode = labels.intern(s);
        }
        return lastCode;
    }
};

} // namespace

struct ColumnChunkWriter::Impl
{
    Impl(Connection& c, std::int64_t id) : db(c), runId(id), labels(c.path()) {}

    /** Statements are prepared on first use: migrations write one table before the next one exists. */
    Statement& statement(std::optional<Statement>& slot, const char* sql)
    {
        if (!slot) {
            slot.emplace(db, sql);
            slot->bind(1, runId);
        }
        return *slot;
    }

    Statement& intervals()
    {
        return statement(m_intervals,
                         "INSERT OR REPLACE INTO interval_chunks (run_id, chunk_index, first_record, "
                         "records, job_index, gpu, start_s, end_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    }
    Statement& utilization()
    {
        return statement(m_utilization,
                         "INSERT OR REPLACE INTO utilization_chunks (run_id, chunk_index, first_record, records, "
                         "gpu_types, time_s, busy_gpus, busy_by_type) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    }
    Statement& decisions()
    {
        return statement(m_decisions, "INSERT OR REPLACE INTO decision_chunks (run_id, chunk_index, first_record, "
                                      "records, sim_time_s, wall_s, queued, running) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                                      "?7, ?8)");
    }
    Statement& jobs()
    {
        return statement(m_jobs, "INSERT OR REPLACE INTO job_chunks (run_id, chunk_index, first_record, records, "
                                 "labels, job_index, job_id, model, user, gpu_type, gpus, restarts, nodes, demand, "
                                 "excluded_from_average, arrival_s, start_s, end_s, gpu_seconds, cost_usd, ideal_s) "
                                 "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                                 "?18, ?19, ?20, ?21)");
    }
    Statement& events()
    {
        return statement(m_events,
                         "INSERT OR REPLACE INTO event_chunks (run_id, chunk_index, first_record, records, "
                         "labels, job_index, time_s, kind, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    }

    Statement& segments()
    {
        return statement(m_segments, "INSERT OR REPLACE INTO rate_segment_chunks (run_id, chunk_index, first_record, "
                                     "records, job_index, start_s, end_s, rate_per_s, samples_per_s) VALUES (?1, ?2, "
                                     "?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    }
    Statement& dropIntervals() { return statement(m_dropIntervals, "DELETE FROM interval_chunks WHERE run_id = ?1"); }

    static void bindHeader(Statement& s, const ChunkRange& c)
    {
        s.bind(2, static_cast<std::int64_t>(c.first / kChunkRows))
            .bind(3, static_cast<std::int64_t>(c.first))
            .bind(4, static_cast<std::int64_t>(c.end - c.first));
    }

    Connection& db;
    std::int64_t runId;
    std::optional<Statement> m_intervals, m_utilization, m_decisions, m_jobs, m_events, m_dropIntervals, m_segments;
    // Column buffers, reused: statements bind them without copying.
    std::vector<std::int32_t> i0, i1, i2;
    std::vector<double> d0, d1, d2, d3;
    static constexpr int kJobInts = 10, kJobDoubles = 6;
    std::array<std::vector<std::int32_t>, kJobInts> jobInts;
    std::array<std::vector<double>, kJobDoubles> jobDoubles;
    LabelTable labels;

    /** Event chunks from records [from, rows.size()); `kindOf(row)` names a row's kind. */
    template <typename Row, typename KindOf>
    std::size_t writeEvents(const std::vector<Row>& rows, std::size_t from, KindOf kindOf)
    {
        std::size_t written = 0;
        labels.setTable("job_events");
        for (const ChunkRange& c : chunksFrom(from, rows.size())) {
            i0.clear(), i1.clear(), i2.clear(), d0.clear();
            labels.clear();
            LabelColumn kind, detail;
            for (std::size_t i = c.first; i < c.end; ++i) {
                const Row& e = rows[i];
                i0.push_back(e.job);
                d0.push_back(e.timeS);
                i1.push_back(kind.code(labels, kindOf(e)));
                i2.push_back(detail.code(labels, e.detail));
            }
            Statement& st = events();
            bindHeader(st, c);
            st.bindStaticBlob(5, labels.blob().data(), labels.blob().size());
            bindColumn(st, 6, i0);
            bindColumn(st, 7, d0);
            bindColumn(st, 8, i1);
            bindColumn(st, 9, i2);
            st.run();
            written += c.end - c.first;
        }
        labels.setTable("jobs");
        return written;
    }
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
        Statement& st = m->intervals();
        Impl::bindHeader(st, c);
        bindColumn(st, 5, m->i0);
        bindColumn(st, 6, m->i1);
        bindColumn(st, 7, m->d0);
        bindColumn(st, 8, m->d1);
        st.run();
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
        Statement& st = m->utilization();
        Impl::bindHeader(st, c);
        st.bind(5, static_cast<std::int64_t>(types));
        bindColumn(st, 6, m->d0);
        bindColumn(st, 7, m->i0);
        bindColumn(st, 8, m->i1);
        st.run();
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
        Statement& st = m->decisions();
        Impl::bindHeader(st, c);
        bindColumn(st, 5, m->d0);
        bindColumn(st, 6, m->d1);
        bindColumn(st, 7, m->i0);
        bindColumn(st, 8, m->i1);
        st.run();
        written += c.end - c.first;
    }
    return written;
}

std::size_t ColumnChunkWriter::writeJobs(const std::vector<sim::JobRecord>& rows,
                                         const std::vector<std::uint32_t>& order, std::size_t from)
{
    // JobRecord marks times that did not happen with -1; the chunk with NaN (chunk_layout.h).
    const auto time = [](double t) { return t >= 0 ? t : chunk::missingTime(); };
    std::size_t written = 0;
    for (const ChunkRange& c : chunksFrom(from, order.size())) {
        for (auto& v : m->jobInts)
            v.clear();
        for (auto& v : m->jobDoubles)
            v.clear();
        m->labels.clear();
        LabelColumn model, user, gpuType;
        for (std::size_t i = c.first; i < c.end; ++i) {
            const std::uint32_t index = order[i];
            if (index >= static_cast<std::uint32_t>(kMaxJobIndex))
                throw Error(m->db.path(), "jobs",
                            fmt::format("job {} is past the {} jobs a run store holds", index, kMaxJobIndex));
            const sim::JobRecord& j = rows[index];
            const std::int32_t ints[Impl::kJobInts] = {static_cast<std::int32_t>(index),
                                                       m->labels.append(j.id),
                                                       model.code(m->labels, j.model),
                                                       user.code(m->labels, j.user),
                                                       gpuType.code(m->labels, j.gpuType),
                                                       j.gpus,
                                                       j.restarts,
                                                       j.nodes,
                                                       j.demand,
                                                       j.excludedFromAverage ? 1 : 0};
            const double doubles[Impl::kJobDoubles] = {j.arrivalS,   time(j.startS), time(j.endS),
                                                       j.gpuSeconds, j.costUsd,      j.idealS};
            for (int k = 0; k < Impl::kJobInts; ++k)
                m->jobInts[static_cast<std::size_t>(k)].push_back(ints[k]);
            for (int k = 0; k < Impl::kJobDoubles; ++k)
                m->jobDoubles[static_cast<std::size_t>(k)].push_back(doubles[k]);
        }
        Statement& st = m->jobs();
        Impl::bindHeader(st, c);
        st.bindStaticBlob(5, m->labels.blob().data(), m->labels.blob().size());
        for (int k = 0; k < Impl::kJobInts; ++k)
            bindColumn(st, 6 + k, m->jobInts[static_cast<std::size_t>(k)]);
        for (int k = 0; k < Impl::kJobDoubles; ++k)
            bindColumn(st, 6 + Impl::kJobInts + k, m->jobDoubles[static_cast<std::size_t>(k)]);
        st.run();
        written += c.end - c.first;
    }
    return written;
}

std::size_t ColumnChunkWriter::writeEvents(const std::vector<sim::JobEvent>& rows, std::size_t from)
{
    return m->writeEvents(rows, from, [](const sim::JobEvent& e) { return std::string_view(sim::toString(e.kind)); });
}

std::size_t ColumnChunkWriter::writeEvents(const std::vector<StoredEvent>& rows, std::size_t from)
{
    return m->writeEvents(rows, from, [](const StoredEvent& e) { return std::string_view(e.kind); });
}

std::size_t ColumnChunkWriter::writeRateSegments(const std::vector<sim::RateSegment>& rows, std::size_t from)
{
    std::size_t written = 0;
    for (const ChunkRange& c : chunksFrom(from, rows.size())) {
        m->i0.clear(), m->d0.clear(), m->d1.clear(), m->d2.clear(), m->d3.clear();
        for (std::size_t i = c.first; i < c.end; ++i) {
            m->i0.push_back(rows[i].job);
            m->d0.push_back(rows[i].startS);
            m->d1.push_back(rows[i].endS);
            m->d2.push_back(rows[i].rate);
            m->d3.push_back(rows[i].samplesPerS);
        }
        Statement& st = m->segments();
        Impl::bindHeader(st, c);
        bindColumn(st, 5, m->i0);
        bindColumn(st, 6, m->d0);
        bindColumn(st, 7, m->d1);
        bindColumn(st, 8, m->d2);
        bindColumn(st, 9, m->d3);
        st.run();
        written += c.end - c.first;
    }
    return written;
}

void ColumnChunkWriter::deleteIntervals()
{
    m->dropIntervals().run();
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
    std::string_view blob(int column) const { return m_stmt.columnBlob(column); }

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

std::vector<sim::JobEvent> readJobEvents(Connection& db, const std::string& path, std::int64_t runId)
{
    std::vector<sim::JobEvent> out;
    ChunkReader r(db, path, "event_chunks", runId, "labels, job_index, time_s, kind, detail");
    while (r.next()) {
        const std::size_t n = r.rows();
        const auto labels = chunk::splitLabels(r.blob(3));
        if (!labels)
            r.damaged("labels do not end with a NUL byte");
        const auto job = r.values<std::int32_t>(4, "job_index", n);
        const auto time = r.values<double>(5, "time_s", n);
        const auto kind = r.values<std::int32_t>(6, "kind", n);
        const auto detail = r.values<std::int32_t>(7, "detail", n);
        const auto label = [&](std::int32_t code, const char* column, std::size_t i) {
            if (code < 0 || static_cast<std::size_t>(code) >= labels->size())
                r.damaged(fmt::format("record {}: {} refers to label {} of {}", i, column, code, labels->size()));
            return (*labels)[static_cast<std::size_t>(code)];
        };
        for (std::size_t i = 0; i < n; ++i) {
            if (job[i] < 0 || job[i] >= kMaxJobIndex)
                r.damaged(fmt::format("record {}: job_index {}", i, job[i]));
            const std::string_view name = label(kind[i], "kind", i);
            const auto k = sim::jobEventKindFromString(name);
            if (!k)
                r.damaged(fmt::format("record {}: unknown event kind \"{}\"", i, name));
            out.push_back({time[i], job[i], *k, std::string(label(detail[i], "detail", i))});
        }
    }
    return out;
}

std::vector<sim::RateSegment> readRateSegments(Connection& db, const std::string& path, std::int64_t runId)
{
    std::vector<sim::RateSegment> out;
    ChunkReader r(db, path, "rate_segment_chunks", runId, "job_index, start_s, end_s, rate_per_s, samples_per_s");
    while (r.next()) {
        const auto job = r.values<std::int32_t>(3, "job_index", r.rows());
        const auto start = r.values<double>(4, "start_s", r.rows());
        const auto end = r.values<double>(5, "end_s", r.rows());
        const auto rate = r.values<double>(6, "rate_per_s", r.rows());
        const auto samples = r.values<double>(7, "samples_per_s", r.rows());
        for (std::size_t i = 0; i < r.rows(); ++i)
            out.push_back({job[i], start[i], end[i], rate[i], samples[i]});
    }
    return out;
}

std::vector<sim::JobRecord> readJobs(Connection& db, const std::string& path, std::int64_t runId,
                                     std::size_t expectedJobs, std::vector<char>* stored)
{
    std::vector<sim::JobRecord> out(expectedJobs);
    std::vector<char> seen(expectedJobs, 0);
    ChunkReader r(db, path, "job_chunks", runId,
                  "labels, job_index, job_id, model, user, gpu_type, gpus, restarts, nodes, demand, "
                  "excluded_from_average, arrival_s, start_s, end_s, gpu_seconds, cost_usd, ideal_s");
    const auto time = [](double t) { return std::isnan(t) ? -1.0 : t; };
    while (r.next()) {
        const std::size_t n = r.rows();
        const auto labels = chunk::splitLabels(r.blob(3));
        if (!labels)
            r.damaged("labels do not end with a NUL byte");
        static constexpr const char* kInts[] = {"job_index", "job_id",   "model", "user",   "gpu_type",
                                                "gpus",      "restarts", "nodes", "demand", "excluded_from_average"};
        static constexpr const char* kDoubles[] = {"arrival_s",   "start_s",  "end_s",
                                                   "gpu_seconds", "cost_usd", "ideal_s"};
        std::vector<std::vector<std::int32_t>> ints;
        std::vector<std::vector<double>> doubles;
        for (int k = 0; k < 10; ++k)
            ints.push_back(r.values<std::int32_t>(4 + k, kInts[k], n));
        for (int k = 0; k < 6; ++k)
            doubles.push_back(r.values<double>(14 + k, kDoubles[k], n));
        const auto label = [&](int column, std::size_t i) {
            const std::int32_t code = ints[static_cast<std::size_t>(column)][i];
            if (code < 0 || static_cast<std::size_t>(code) >= labels->size())
                r.damaged(
                    fmt::format("record {}: {} refers to label {} of {}", i, kInts[column], code, labels->size()));
            return std::string((*labels)[static_cast<std::size_t>(code)]);
        };
        for (std::size_t i = 0; i < n; ++i) {
            const std::int32_t index = ints[0][i];
            if (index < 0 || index >= kMaxJobIndex)
                r.damaged(fmt::format("record {}: job_index {}", i, index));
            // A finished run's job_count bounds its indices; without that check one damaged index below
            // kMaxJobIndex made the reader allocate gigabytes of empty records (found by fuzz_column_chunks).
            if (expectedJobs && static_cast<std::size_t>(index) >= expectedJobs)
                r.damaged(fmt::format("record {}: job_index {} is past the run's {} jobs", i, index, expectedJobs));
            const auto at = static_cast<std::size_t>(index);
            if (out.size() <= at) {
                out.resize(at + 1);
                seen.resize(at + 1, 0);
            }
            if (seen[at])
                r.damaged(fmt::format("record {}: job {} is stored twice", i, index));
            seen[at] = 1;
            sim::JobRecord& j = out[at];
            j.id = label(1, i);
            j.model = label(2, i);
            j.user = label(3, i);
            j.gpuType = label(4, i);
            j.gpus = ints[5][i];
            j.restarts = ints[6][i];
            j.nodes = ints[7][i];
            j.demand = ints[8][i];
            j.excludedFromAverage = ints[9][i] != 0;
            j.arrivalS = doubles[0][i];
            j.startS = time(doubles[1][i]);
            j.endS = time(doubles[2][i]);
            j.gpuSeconds = doubles[3][i];
            j.costUsd = doubles[4][i];
            j.idealS = doubles[5][i];
        }
    }
    if (stored) {
        seen.resize(out.size(), 0);
        *stored = std::move(seen);
    }
    return out;
}

std::int64_t chunkedRecordCount(Connection& db, const std::string& table, std::int64_t runId)
{
    if (table != "job_chunks" && table != "interval_chunks" && table != "utilization_chunks" &&
        table != "decision_chunks" && table != "event_chunks" && table != "rate_segment_chunks")
        throw std::invalid_argument("chunkedRecordCount: unknown table " + table);
    Statement s(db, fmt::format("SELECT coalesce(sum(records), 0) FROM {} WHERE run_id = ?1", table));
    s.bind(1, runId);
    s.step();
    return s.columnInt(0);
}

} // namespace orrery::store
