#include "chunk_decoder.h"
#include "tables.h"

#include <cmath>

namespace orrery::sqlext {

namespace {

enum Column {
    RunId,
    JobIndex,
    JobId,
    Model,
    User,
    ArrivalS,
    StartS,
    EndS,
    Gpus,
    GpuType,
    Restarts,
    GpuSeconds,
    CostUsd,
    IdealS,
    Nodes,
    Demand,
    ExcludedFromAverage,
    QueueS,
    JctS,
};

/** A time the job did not reach (NaN in the chunk) is NULL, as in the plain table. */
void resultTime(sqlite3_context* ctx, double seconds)
{
    if (std::isnan(seconds))
        sqlite3_result_null(ctx);
    else
        sqlite3_result_double(ctx, seconds);
}

class JobDecoder : public ChunkDecoder
{
public:
    void load(sqlite3_stmt* row, std::size_t records) override
    {
        int c = kFirstChunkColumn;
        m_labels.load(row, c++);
        m_jobIndex = decodeColumn<std::int32_t>(row, c++, "job_index", records);
        for (std::size_t i = 0; i < records; ++i) {
            if (m_jobIndex[i] < 0 || m_jobIndex[i] >= store::kMaxJobIndex)
                throw DamagedChunk("record " + std::to_string(i) + ": job_index " + std::to_string(m_jobIndex[i]) +
                                   " is out of range");
        }
        m_jobId = m_labels.indexColumn(row, c++, "job_id", records);
        m_model = m_labels.indexColumn(row, c++, "model", records);
        m_user = m_labels.indexColumn(row, c++, "user", records);
        m_gpuType = m_labels.indexColumn(row, c++, "gpu_type", records);
        m_arrival = decodeColumn<double>(row, c++, "arrival_s", records);
        m_start = decodeColumn<double>(row, c++, "start_s", records);
        m_end = decodeColumn<double>(row, c++, "end_s", records);
        m_gpus = decodeColumn<std::int32_t>(row, c++, "gpus", records);
        m_restarts = decodeColumn<std::int32_t>(row, c++, "restarts", records);
        m_nodes = decodeColumn<std::int32_t>(row, c++, "nodes", records);
        m_demand = decodeColumn<std::int32_t>(row, c++, "demand", records);
        m_excluded = decodeColumn<std::int32_t>(row, c++, "excluded_from_average", records);
        m_gpuSeconds = decodeColumn<double>(row, c++, "gpu_seconds", records);
        m_cost = decodeColumn<double>(row, c++, "cost_usd", records);
        m_ideal = decodeColumn<double>(row, c++, "ideal_s", records);
    }

    void result(sqlite3_context* ctx, std::size_t i, int column) const override
    {
        switch (column) {
        case JobIndex:
            sqlite3_result_int(ctx, m_jobIndex[i]);
            break;
        case JobId:
            m_labels.result(ctx, m_jobId[i]);
            break;
        case Model:
            m_labels.result(ctx, m_model[i]);
            break;
        case User:
            m_labels.result(ctx, m_user[i]);
            break;
        case ArrivalS:
            sqlite3_result_double(ctx, m_arrival[i]);
            break;
        case StartS:
            resultTime(ctx, m_start[i]);
            break;
        case EndS:
            resultTime(ctx, m_end[i]);
            break;
        case Gpus:
            sqlite3_result_int(ctx, m_gpus[i]);
            break;
        case GpuType:
            m_labels.result(ctx, m_gpuType[i]);
            break;
        case Restarts:
            sqlite3_result_int(ctx, m_restarts[i]);
            break;
        case GpuSeconds:
            sqlite3_result_double(ctx, m_gpuSeconds[i]);
            break;
        case CostUsd:
            sqlite3_result_double(ctx, m_cost[i]);
            break;
        case IdealS:
            sqlite3_result_double(ctx, m_ideal[i]);
            break;
        case Nodes:
            sqlite3_result_int(ctx, m_nodes[i]);
            break;
        case Demand:
            sqlite3_result_int(ctx, m_demand[i]);
            break;
        case ExcludedFromAverage:
            sqlite3_result_int(ctx, m_excluded[i]);
            break;
        case QueueS:
            resultTime(ctx, m_start[i] - m_arrival[i]);
            break; // NaN stays NaN, so NULL
        case JctS:
            resultTime(ctx, m_end[i] - m_arrival[i]);
            break;
        default:
            sqlite3_result_null(ctx);
            break;
        }
    }

private:
    ChunkLabels m_labels;
    std::vector<std::int32_t> m_jobIndex, m_jobId, m_model, m_user, m_gpuType;
    std::vector<double> m_arrival, m_start, m_end;
    std::vector<std::int32_t> m_gpus, m_restarts, m_nodes, m_demand, m_excluded;
    std::vector<double> m_gpuSeconds, m_cost, m_ideal;
};

} // namespace

const TableSpec& jobsTable()
{
    static const TableSpec spec{
        "jobs",
        "job_chunks",
        4,
        "CREATE TABLE x(run_id INTEGER, job_index INTEGER, job_id TEXT, model TEXT, user TEXT, arrival_s REAL, "
        "start_s REAL, end_s REAL, gpus INTEGER, gpu_type TEXT, restarts INTEGER, gpu_seconds REAL, cost_usd REAL, "
        "ideal_s REAL, nodes INTEGER, demand INTEGER, excluded_from_average INTEGER, queue_s REAL, jct_s REAL)",
        "labels, job_index, job_id, model, user, gpu_type, arrival_s, start_s, end_s, gpus, restarts, nodes, demand, "
        "excluded_from_average, gpu_seconds, cost_usd, ideal_s",
        -1, // records are in the order jobs finished; job_index is a column of its own
        {{{JobIndex, "job_index", true}}},
        [] { return std::unique_ptr<ChunkDecoder>(new JobDecoder); },
    };
    return spec;
}

} // namespace orrery::sqlext
