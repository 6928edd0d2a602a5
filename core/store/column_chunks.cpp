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
    LabelTable(const std::string& path, const char* table) : m_path(path), m_table(table) {}

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

    /** `s` must outlive the table: the dictionary keys are views of the callers' strings. */
    std::int32_t intern(std::string_view s)
    {
        const auto it = m_index.find(s);
        if (it != m_index.end())
            return it->second;
        const std::int32_t code = append(s);
        m_index.emplace(s, code);
        return code;
    }

    /** The dictionary's BLOB; the table is empty after. */
    std::string take() { return std::move(m_blob); }

private:
    const std::string& m_path;
    const char* m_table;
    std::string m_blob;
    std::int32_t m_count = 0;
    std::unordered_map<std::string_view, std::int32_t> m_index;
};

/** An encoded chunk of `table` for records [c.first, c.end), its columns to be filled. */
EncodedChunk chunkOf(ChunkTable table, const ChunkRange& c, std::size_t columns)
{
    EncodedChunk out;
    out.table = table;
    out.first = c.first;
    out.records = c.end - c.first;
    out.columns.reserve(columns);
    return out;
}

/** Appends a finished column, in the stored byte order. */
template <typename T> void addColumn(EncodedChunk& chunk, std::vector<T> values)
{
    toOrFromLittleEndian(values);
    chunk.columns.emplace_back(std::move(values));
}

template <typename T, typename Row, typename Get>
std::vector<T> column(const std::vector<Row>& rows, const ChunkRange& c, Get get)
{
    std::vector<T> out;
    out.reserve(c.end - c.first);
    for (std::size_t i = c.first; i < c.end; ++i)
        out.push_back(get(rows[i]));
    return out;
}

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

/** Event chunks from records [from, rows.size()); `kindOf(row)` names a row's kind. */
template <typename Row, typename KindOf>
std::vector<EncodedChunk> encodeEventRows(const std::string& storePath, const std::vector<Row>& rows, std::size_t from,
                                          KindOf kindOf)
{
    std::vector<EncodedChunk> out;
    for (const ChunkRange& c : chunksFrom(from, rows.size())) {
        EncodedChunk chunk = chunkOf(ChunkTable::Events, c, 4);
        LabelTable labels(storePath, "job_events");
        LabelColumn kind, detail;
        std::vector<std::int32_t> jobs, kinds, details;
        std::vector<double> times;
        for (std::size_t i = c.first; i < c.end; ++i) {
            const Row& e = rows[i];
            jobs.push_back(e.job);
            times.push_back(e.timeS);
            kinds.push_back(kind.code(labels, kindOf(e)));
            details.push_back(detail.code(labels, e.detail));
        }
        chunk.labels = labels.take();
        addColumn(chunk, std::move(jobs));
        addColumn(chunk, std::move(times));
        addColumn(chunk, std::move(kinds));
        addColumn(chunk, std::move(details));
        out.push_back(std::move(chunk));
    }
    return out;
}

} // namespace

std::vector<EncodedChunk> encodeIntervals(const std::vector<sim::AllocationInterval>& rows, std::size_t from)
{
    using Row = sim::AllocationInterval;
    std::vector<EncodedChunk> out;
    for (const ChunkRange& c : chunksFrom(from, rows.size())) {
        EncodedChunk chunk = chunkOf(ChunkTable::Intervals, c, 4);
        addColumn(chunk, column<std::int32_t>(rows, c, [](const Row& r) { return r.job; }));
        addColumn(chunk, column<std::int32_t>(rows, c, [](const Row& r) { return r.gpu; }));
        addColumn(chunk, column<double>(rows, c, [](const Row& r) { return r.startS; }));
        addColumn(chunk, column<double>(rows, c, [](const Row& r) { return r.endS; }));
        out.push_back(std::move(chunk));
    }
    return out;
}

std::vector<EncodedChunk> encodeUtilization(const std::vector<sim::UtilizationSample>& rows, std::size_t from)
{
    std::vector<EncodedChunk> out;
    for (const ChunkRange& c : chunksFrom(from, rows.size())) {
        EncodedChunk chunk = chunkOf(ChunkTable::Utilization, c, 3);
        std::size_t types = 0;
        for (std::size_t i = c.first; i < c.end; ++i)
            types = std::max(types, rows[i].busyByType.size());
        std::vector<std::int32_t> byType;
        byType.reserve(types * chunk.records);
        for (std::size_t i = c.first; i < c.end; ++i) {
            const auto& busy = rows[i].busyByType;
            byType.insert(byType.end(), busy.begin(), busy.end());
            byType.resize(byType.size() + types - busy.size(), 0); // a type a sample does not list has no busy GPU
        }
        chunk.gpuTypes = static_cast<std::int64_t>(types);
        addColumn(chunk, column<double>(rows, c, [](const sim::UtilizationSample& r) { return r.timeS; }));
        addColumn(chunk, column<std::int32_t>(rows, c, [](const sim::UtilizationSample& r) { return r.busyGpus; }));
        addColumn(chunk, std::move(byType));
        out.push_back(std::move(chunk));
    }
    return out;
}

std::vector<EncodedChunk> encodeDecisions(const std::vector<sim::DecisionTiming>& rows, std::size_t from)
{
    using Row = sim::DecisionTiming;
    std::vector<EncodedChunk> out;
    for (const ChunkRange& c : chunksFrom(from, rows.size())) {
        EncodedChunk chunk = chunkOf(ChunkTable::Decisions, c, 4);
        addColumn(chunk, column<double>(rows, c, [](const Row& r) { return r.simTimeS; }));
        addColumn(chunk, column<double>(rows, c, [](const Row& r) { return r.wallS; }));
        addColumn(chunk, column<std::int32_t>(rows, c, [](const Row& r) { return r.queued; }));
        addColumn(chunk, column<std::int32_t>(rows, c, [](const Row& r) { return r.running; }));
        out.push_back(std::move(chunk));
    }
    return out;
}

std::vector<EncodedChunk> encodeJobs(const std::string& storePath, const std::vector<sim::JobRecord>& rows,
                                     const std::vector<std::uint32_t>& order, std::size_t from)
{
    constexpr std::size_t kInts = 10, kDoubles = 6;
    // JobRecord marks times that did not happen with -1; the chunk with NaN (chunk_layout.h).
    const auto time = [](double t) { return t >= 0 ? t : chunk::missingTime(); };
    const bool withApps = std::any_of(order.begin(), order.end(), [&rows](std::uint32_t index) {
        return index < rows.size() && !rows[index].app.empty();
    });
    std::vector<EncodedChunk> out;
    for (const ChunkRange& c : chunksFrom(from, order.size())) {
        EncodedChunk chunk = chunkOf(ChunkTable::Jobs, c, kInts + kDoubles + 1);
        chunk.withApps = withApps;
        std::array<std::vector<std::int32_t>, kInts> ints;
        std::array<std::vector<double>, kDoubles> doubles;
        std::vector<std::int32_t> apps;
        LabelTable labels(storePath, "jobs");
        LabelColumn model, user, gpuType, app;
        for (std::size_t i = c.first; i < c.end; ++i) {
            const std::uint32_t index = order[i];
            if (index >= static_cast<std::uint32_t>(kMaxJobIndex))
                throw Error(storePath, "jobs",
                            fmt::format("job {} is past the {} jobs a run store holds", index, kMaxJobIndex));
            const sim::JobRecord& j = rows[index];
            const std::int32_t intValues[kInts] = {static_cast<std::int32_t>(index),
                                                   labels.append(j.id),
                                                   model.code(labels, j.model),
                                                   user.code(labels, j.user),
                                                   gpuType.code(labels, j.gpuType),
                                                   j.gpus,
                                                   j.restarts,
                                                   j.nodes,
                                                   j.demand,
                                                   j.excludedFromAverage ? 1 : 0};
            const double doubleValues[kDoubles] = {j.arrivalS,   time(j.startS), time(j.endS),
                                                   j.gpuSeconds, j.costUsd,      j.idealS};
            if (withApps)
                apps.push_back(app.code(labels, j.app));
            for (std::size_t k = 0; k < kInts; ++k)
                ints[k].push_back(intValues[k]);
            for (std::size_t k = 0; k < kDoubles; ++k)
                doubles[k].push_back(doubleValues[k]);
        }
        chunk.labels = labels.take();
        for (auto& v : ints)
            addColumn(chunk, std::move(v));
        for (auto& v : doubles)
            addColumn(chunk, std::move(v));
        if (withApps)
            addColumn(chunk, std::move(apps));
        out.push_back(std::move(chunk));
    }
    return out;
}

std::vector<EncodedChunk> encodeEvents(const std::string& storePath, const std::vector<sim::JobEvent>& rows,
                                       std::size_t from)
{
    return encodeEventRows(storePath, rows, from,
                           [](const sim::JobEvent& e) { return std::string_view(sim::toString(e.kind)); });
}

std::vector<EncodedChunk> encodeEvents(const std::string& storePath, const std::vector<StoredEvent>& rows,
                                       std::size_t from)
{
    return encodeEventRows(storePath, rows, from, [](const StoredEvent& e) { return std::string_view(e.kind); });
}

std::vector<EncodedChunk> encodeRateSegments(const std::vector<sim::RateSegment>& rows, std::size_t from)
{
    using Row = sim::RateSegment;
    std::vector<EncodedChunk> out;
    for (const ChunkRange& c : chunksFrom(from, rows.size())) {
        EncodedChunk chunk = chunkOf(ChunkTable::RateSegments, c, 5);
        addColumn(chunk, column<std::int32_t>(rows, c, [](const Row& r) { return r.job; }));
        addColumn(chunk, column<double>(rows, c, [](const Row& r) { return r.startS; }));
        addColumn(chunk, column<double>(rows, c, [](const Row& r) { return r.endS; }));
        addColumn(chunk, column<double>(rows, c, [](const Row& r) { return r.rate; }));
        addColumn(chunk, column<double>(rows, c, [](const Row& r) { return r.samplesPerS; }));
        out.push_back(std::move(chunk));
    }
    return out;
}

std::vector<EncodedChunk> encodeGpus(const std::string& storePath, const hardware::GpuLayout& layout)
{
    std::vector<EncodedChunk> out;
    for (const ChunkRange& c : chunksFrom(0, layout.gpuNode.size())) {
        EncodedChunk chunk = chunkOf(ChunkTable::Gpus, c, 3);
        LabelTable labels(storePath, "gpus");
        LabelColumn node, type;
        std::vector<std::int32_t> nodeIndex, nodes, types;
        for (std::size_t g = c.first; g < c.end; ++g) {
            const int n = layout.gpuNode[g];
            if (n < 0 || static_cast<std::size_t>(n) >= layout.nodeNames.size())
                throw Error(
                    storePath, "gpus",
                    fmt::format("GPU {} is on node {}, but the cluster has {} nodes", g, n, layout.nodeNames.size()));
            nodeIndex.push_back(n);
            nodes.push_back(node.code(labels, layout.nodeNames[static_cast<std::size_t>(n)]));
            types.push_back(type.code(labels, g < layout.gpuTypes.size() ? layout.gpuTypes[g] : std::string_view()));
        }
        chunk.labels = labels.take();
        addColumn(chunk, std::move(nodeIndex));
        addColumn(chunk, std::move(nodes));
        addColumn(chunk, std::move(types));
        out.push_back(std::move(chunk));
    }
    return out;
}

std::size_t recordsOf(const std::vector<EncodedChunk>& chunks)
{
    std::size_t n = 0;
    for (const auto& c : chunks)
        n += c.records;
    return n;
}

struct ColumnChunkWriter::Impl
{
    Impl(Connection& c, std::int64_t id) : db(c), runId(id) {}

    /** The SQL that stores a chunk of `c`'s table. Statements are leased on use, not when the writer is made:
     *  migrations write one table before the next one exists. The connection keeps them prepared, so every run
     *  after the first finds them ready. */
    static const char* insertSql(const EncodedChunk& c)
    {
        switch (c.table) {
        case ChunkTable::Intervals:
            return "INSERT OR REPLACE INTO interval_chunks (run_id, chunk_index, first_record, "
                   "records, job_index, gpu, start_s, end_s) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
        case ChunkTable::Utilization:
            return "INSERT OR REPLACE INTO utilization_chunks (run_id, chunk_index, first_record, records, "
                   "gpu_types, time_s, busy_gpus, busy_by_type) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
        case ChunkTable::Decisions:
            return "INSERT OR REPLACE INTO decision_chunks (run_id, chunk_index, first_record, "
                   "records, sim_time_s, wall_s, queued, running) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
                   "?7, ?8)";
        case ChunkTable::Jobs:
            // With the jobs' apps (schema 9) only for runs with apps, so migration 4, which writes job chunks
            // before the column exists, never needs it.
            return c.withApps
                       ? "INSERT OR REPLACE INTO job_chunks (run_id, chunk_index, first_record, records, "
                         "labels, job_index, job_id, model, user, gpu_type, gpus, restarts, nodes, demand, "
                         "excluded_from_average, arrival_s, start_s, end_s, gpu_seconds, cost_usd, ideal_s, app) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                         "?18, ?19, ?20, ?21, ?22)"
                       : "INSERT OR REPLACE INTO job_chunks (run_id, chunk_index, first_record, records, "
                         "labels, job_index, job_id, model, user, gpu_type, gpus, restarts, nodes, demand, "
                         "excluded_from_average, arrival_s, start_s, end_s, gpu_seconds, cost_usd, ideal_s) "
                         "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
                         "?18, ?19, ?20, ?21)";
        case ChunkTable::Events:
            return "INSERT OR REPLACE INTO event_chunks (run_id, chunk_index, first_record, records, "
                   "labels, job_index, time_s, kind, detail) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)";
        case ChunkTable::RateSegments:
            return "INSERT OR REPLACE INTO rate_segment_chunks (run_id, chunk_index, first_record, "
                   "records, job_index, start_s, end_s, rate_per_s, samples_per_s) VALUES (?1, ?2, "
                   "?3, ?4, ?5, ?6, ?7, ?8, ?9)";
        case ChunkTable::Gpus:
            return "INSERT OR REPLACE INTO gpu_chunks (run_id, chunk_index, first_record, records, labels, node_index, "
                   "node, gpu_type) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
        }
        return nullptr;
    }

    /**
     * insertSql(c) as a plain INSERT, for a run stored whole: its chunks are new, and INSERT OR REPLACE made SQLite
     * keep a statement journal for every chunk (a REPLACE may delete a row, which the foreign keys must be able to
     * undo), written to a temporary file.
     */
    static std::string_view insertNewSql(const EncodedChunk& c)
    {
        static const auto plain = [] {
            constexpr std::string_view kReplace = "INSERT OR REPLACE ";
            std::array<std::string, 2 * (static_cast<std::size_t>(ChunkTable::Gpus) + 1)> out;
            for (std::size_t t = 0; t <= static_cast<std::size_t>(ChunkTable::Gpus); ++t) {
                for (const bool apps : {false, true}) {
                    EncodedChunk probe;
                    probe.table = static_cast<ChunkTable>(t);
                    probe.withApps = apps;
                    const std::string_view sql = insertSql(probe);
                    out[2 * t + (apps ? 1 : 0)] = "INSERT " + std::string(sql.substr(kReplace.size()));
                }
            }
            return out;
        }();
        return plain[2 * static_cast<std::size_t>(c.table) + (c.withApps ? 1 : 0)];
    }

    void write(const EncodedChunk& c, bool fresh)
    {
        // The run id is bound each time because several writers (a recorder's runs) share one connection's
        // statements. Every value is bound without a copy: the chunk outlives the step.
        const CachedStatement lease = db.cached(fresh ? insertNewSql(c) : std::string_view(insertSql(c)));
        Statement& st = *lease;
        st.bind(1, runId)
            .bind(2, static_cast<std::int64_t>(c.first / kChunkRows))
            .bind(3, static_cast<std::int64_t>(c.first))
            .bind(4, static_cast<std::int64_t>(c.records));
        int next = 5;
        if (c.table == ChunkTable::Jobs || c.table == ChunkTable::Events || c.table == ChunkTable::Gpus)
            st.bindStaticBlob(next++, c.labels.data(), c.labels.size());
        else if (c.table == ChunkTable::Utilization)
            st.bind(next++, c.gpuTypes);
        for (const ChunkColumn& column : c.columns)
            std::visit(
                [&](const auto& values) {
                    st.bindStaticBlob(next++, values.data(), values.size() * sizeof(values.front()));
                },
                column);
        st.run();
    }

    Connection& db;
    std::int64_t runId;
};

ColumnChunkWriter::ColumnChunkWriter(Connection& db, std::int64_t runId) : m(std::make_unique<Impl>(db, runId))
{}

ColumnChunkWriter::~ColumnChunkWriter() = default;

std::size_t ColumnChunkWriter::write(const std::vector<EncodedChunk>& chunks)
{
    for (const EncodedChunk& c : chunks)
        m->write(c, false);
    return recordsOf(chunks);
}

std::size_t ColumnChunkWriter::writeNew(const std::vector<EncodedChunk>& chunks)
{
    for (const EncodedChunk& c : chunks)
        m->write(c, true);
    return recordsOf(chunks);
}

std::size_t ColumnChunkWriter::writeIntervals(const std::vector<sim::AllocationInterval>& rows, std::size_t from)
{
    return write(encodeIntervals(rows, from));
}

std::size_t ColumnChunkWriter::writeUtilization(const std::vector<sim::UtilizationSample>& rows, std::size_t from)
{
    return write(encodeUtilization(rows, from));
}

std::size_t ColumnChunkWriter::writeDecisions(const std::vector<sim::DecisionTiming>& rows, std::size_t from)
{
    return write(encodeDecisions(rows, from));
}

std::size_t ColumnChunkWriter::writeJobs(const std::vector<sim::JobRecord>& rows,
                                         const std::vector<std::uint32_t>& order, std::size_t from)
{
    return write(encodeJobs(m->db.path(), rows, order, from));
}

std::size_t ColumnChunkWriter::writeEvents(const std::vector<sim::JobEvent>& rows, std::size_t from)
{
    return write(encodeEvents(m->db.path(), rows, from));
}

std::size_t ColumnChunkWriter::writeEvents(const std::vector<StoredEvent>& rows, std::size_t from)
{
    return write(encodeEvents(m->db.path(), rows, from));
}

std::size_t ColumnChunkWriter::writeRateSegments(const std::vector<sim::RateSegment>& rows, std::size_t from)
{
    return write(encodeRateSegments(rows, from));
}

void ColumnChunkWriter::deleteIntervals()
{
    auto drop = m->db.cached("DELETE FROM interval_chunks WHERE run_id = ?1");
    drop->bind(1, m->runId);
    drop->run();
}

} // namespace orrery::store
