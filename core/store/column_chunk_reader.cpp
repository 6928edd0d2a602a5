// Reading a run's column chunks back (the writer is column_chunks.cpp): each reader checks every chunk it
// decodes and names the table, the run and the chunk of any damage.
#include "store/column_chunks.h"

#include "io/error.h"
#include "io/limits.h"
#include "store/sqlite.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

namespace orrery::store {

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

hardware::GpuLayout readGpuLayout(Connection& db, const std::string& path, std::int64_t runId)
{
    hardware::GpuLayout out;
    ChunkReader r(db, path, "gpu_chunks", runId, "labels, node_index, node, gpu_type");
    while (r.next()) {
        const std::size_t n = r.rows();
        const auto labels = chunk::splitLabels(r.blob(3));
        if (!labels)
            r.damaged("labels do not end with a NUL byte");
        const auto nodeIndex = r.values<std::int32_t>(4, "node_index", n);
        const auto node = r.values<std::int32_t>(5, "node", n);
        const auto type = r.values<std::int32_t>(6, "gpu_type", n);
        const auto label = [&](std::int32_t code, const char* column, std::size_t i) {
            if (code < 0 || static_cast<std::size_t>(code) >= labels->size())
                r.damaged(fmt::format("record {}: {} refers to label {} of {}", i, column, code, labels->size()));
            return std::string((*labels)[static_cast<std::size_t>(code)]);
        };
        for (std::size_t i = 0; i < n; ++i) {
            // No cluster has more nodes than a scenario may ask for: a damaged index must not make the reader
            // allocate gigabytes of names.
            const std::int32_t at = nodeIndex[i];
            if (at < 0 || at >= io::limits::kMaxClusterNodes)
                r.damaged(fmt::format("record {}: node_index {}", i, at));
            const auto slot = static_cast<std::size_t>(at);
            if (out.nodeNames.size() <= slot)
                out.nodeNames.resize(slot + 1);
            out.nodeNames[slot] = label(node[i], "node", i);
            out.gpuNode.push_back(at);
            out.gpuTypes.push_back(label(type[i], "gpu_type", i));
        }
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
                  "excluded_from_average, arrival_s, start_s, end_s, gpu_seconds, cost_usd, ideal_s, app");
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
        // Schema 9: NULL when no job of the run belongs to an app (and in every chunk stored before).
        const std::vector<std::int32_t> apps =
            r.blob(20).empty() ? std::vector<std::int32_t>{} : r.values<std::int32_t>(20, "app", n);
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
            if (!apps.empty()) {
                const std::int32_t code = apps[i];
                if (code < 0 || static_cast<std::size_t>(code) >= labels->size())
                    r.damaged(fmt::format("record {}: app refers to label {} of {}", i, code, labels->size()));
                j.app = std::string((*labels)[static_cast<std::size_t>(code)]);
            }
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
        table != "decision_chunks" && table != "event_chunks" && table != "rate_segment_chunks" &&
        table != "gpu_chunks")
        throw std::invalid_argument("chunkedRecordCount: unknown table " + table);
    Statement s(db, fmt::format("SELECT coalesce(sum(records), 0) FROM {} WHERE run_id = ?1", table));
    s.bind(1, runId);
    s.step();
    return s.columnInt(0);
}

} // namespace orrery::store
