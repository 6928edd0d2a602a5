#include "store/column_chunks.h"

#include "io/error.h"
#include "store/sqlite.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
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

    /** Statements are leased on use, not when the writer is made: migrations write one table before the next one
     *  exists. The connection keeps them prepared, so every run after the first finds them ready; the run id is
     *  bound each time because several writers (a recorder's runs) share one connection's statements. */
    CachedStatement statement(const char* sql)
    {
        CachedStatement s = db.cached(sql);
        s->bind(1, runId);
        return s;
    }

    CachedStatement intervals()
    {
        return statement("INSERT OR REPLACE INTO interval_chunks (run_id, chunk_index, first_record, "
                         "records, job_index, gpu, start_s, end_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    }
    CachedStatement utilization()
    {
        return statement("INSERT OR REPLACE INTO utilization_chunks (run_id, chunk_index, first_record, records, "
                         "gpu_types, time_s, busy_gpus, busy_by_type) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
    }
    CachedStatement decisions()
    {
        return statement("INSERT OR REPLACE INTO decision_chunks (run_id, chunk_index, first_record, "
                         "records, sim_time_s, wall_s, queued, running) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                         "?7, ?8)");
    }
    CachedStatement jobs()
    {
        return statement("INSERT OR REPLACE INTO job_chunks (run_id, chunk_index, first_record, records, "
                         "labels, job_index, job_id, model, user, gpu_type, gpus, restarts, nodes, demand, "
                         "excluded_from_average, arrival_s, start_s, end_s, gpu_seconds, cost_usd, ideal_s) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                         "?18, ?19, ?20, ?21)");
    }
    /** The same with the jobs' apps (schema 9): only runs with apps use it, so migration 4, which writes job
     *  chunks before the column exists, never needs it. */
    CachedStatement jobsWithApps()
    {
        return statement("INSERT OR REPLACE INTO job_chunks (run_id, chunk_index, first_record, records, "
                         "labels, job_index, job_id, model, user, gpu_type, gpus, restarts, nodes, demand, "
                         "excluded_from_average, arrival_s, start_s, end_s, gpu_seconds, cost_usd, ideal_s, app) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                         "?18, ?19, ?20, ?21, ?22)");
    }
    CachedStatement events()
    {
        return statement("INSERT OR REPLACE INTO event_chunks (run_id, chunk_index, first_record, records, "
                         "labels, job_index, time_s, kind, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    }

    CachedStatement segments()
    {
        return statement("INSERT OR REPLACE INTO rate_segment_chunks (run_id, chunk_index, first_record, "
                         "records, job_index, start_s, end_s, rate_per_s, samples_per_s) VALUES (?1, ?2, "
                         "?3, ?4, ?5, ?6, ?7, ?8, ?9)");
    }
    CachedStatement dropIntervals() { return statement("DELETE FROM interval_chunks WHERE run_id = ?1"); }

    static void bindHeader(Statement& s, const ChunkRange& c)
    {
        s.bind(2, static_cast<std::int64_t>(c.first / kChunkRows))
            .bind(3, static_cast<std::int64_t>(c.first))
            .bind(4, static_cast<std::int64_t>(c.end - c.first));
    }

    Connection& db;
    std::int64_t runId;
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
            const CachedStatement lease = events();
            Statement& st = *lease;
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
        const CachedStatement lease = m->intervals();
        Statement& st = *lease;
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
        const CachedStatement lease = m->utilization();
        Statement& st = *lease;
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
        const CachedStatement lease = m->decisions();
        Statement& st = *lease;
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
    const bool withApps = std::any_of(order.begin(), order.end(), [&rows](std::uint32_t index) {
        return index < rows.size() && !rows[index].app.empty();
    });
    std::vector<std::int32_t> apps;
    for (const ChunkRange& c : chunksFrom(from, order.size())) {
        apps.clear();
        for (auto& v : m->jobInts)
            v.clear();
        for (auto& v : m->jobDoubles)
            v.clear();
        m->labels.clear();
        LabelColumn model, user, gpuType, app;
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
            if (withApps)
                apps.push_back(app.code(m->labels, j.app));
            for (int k = 0; k < Impl::kJobInts; ++k)
                m->jobInts[static_cast<std::size_t>(k)].push_back(ints[k]);
            for (int k = 0; k < Impl::kJobDoubles; ++k)
                m->jobDoubles[static_cast<std::size_t>(k)].push_back(doubles[k]);
        }
        const CachedStatement lease = withApps ? m->jobsWithApps() : m->jobs();
        Statement& st = *lease;
        Impl::bindHeader(st, c);
        st.bindStaticBlob(5, m->labels.blob().data(), m->labels.blob().size());
        for (int k = 0; k < Impl::kJobInts; ++k)
            bindColumn(st, 6 + k, m->jobInts[static_cast<std::size_t>(k)]);
        for (int k = 0; k < Impl::kJobDoubles; ++k)
            bindColumn(st, 6 + Impl::kJobInts + k, m->jobDoubles[static_cast<std::size_t>(k)]);
        if (withApps)
            bindColumn(st, 6 + Impl::kJobInts + Impl::kJobDoubles, apps);
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
        const CachedStatement lease = m->segments();
        Statement& st = *lease;
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
    m->dropIntervals()->run();
}

} // namespace orrery::store
