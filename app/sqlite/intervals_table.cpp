#include "chunk_decoder.h"
#include "tables.h"

namespace orrery::sqlext {

namespace {

enum Column { RunId, IntervalIndex, JobIndex, Gpu, StartS, EndS };

class IntervalDecoder : public ChunkDecoder
{
public:
    void load(sqlite3_stmt* row, std::size_t records) override
    {
        m_job = decodeColumn<std::int32_t>(row, kFirstChunkColumn, "job_index", records);
        m_gpu = decodeColumn<std::int32_t>(row, kFirstChunkColumn + 1, "gpu", records);
        m_start = decodeColumn<double>(row, kFirstChunkColumn + 2, "start_s", records);
        m_end = decodeColumn<double>(row, kFirstChunkColumn + 3, "end_s", records);
    }

    void result(sqlite3_context* ctx, std::size_t i, int column) const override
    {
        switch (column) {
        case JobIndex:
            sqlite3_result_int(ctx, m_job[i]);
            break;
        case Gpu:
            sqlite3_result_int(ctx, m_gpu[i]);
            break;
        case StartS:
            sqlite3_result_double(ctx, m_start[i]);
            break;
        case EndS:
            sqlite3_result_double(ctx, m_end[i]);
            break;
        default:
            sqlite3_result_null(ctx);
            break;
        }
    }

private:
    std::vector<std::int32_t> m_job, m_gpu;
    std::vector<double> m_start, m_end;
};

} // namespace

const TableSpec& intervalsTable()
{
    static const TableSpec spec{
        "intervals",
        "interval_chunks",
        3,
        "CREATE TABLE x(run_id INTEGER, interval_index INTEGER, job_index INTEGER, gpu INTEGER, start_s REAL, "
        "end_s REAL)",
        "job_index, gpu, start_s, end_s",
        IntervalIndex,
        {{{IntervalIndex, nullptr, true}, {JobIndex, "job_index", false}, {Gpu, "gpu", false}}},
        [] { return std::unique_ptr<ChunkDecoder>(new IntervalDecoder); },
    };
    return spec;
}

} // namespace orrery::sqlext
