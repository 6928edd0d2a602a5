#include "chunk_decoder.h"
#include "tables.h"

namespace orrery::sqlext {

namespace {

enum Column { RunId, SegmentIndex, JobIndex, StartS, EndS, RatePerS, SamplesPerS };

class RateSegmentDecoder : public ChunkDecoder
{
public:
    void load(sqlite3_stmt* row, std::size_t records) override
    {
        m_job = decodeColumn<std::int32_t>(row, kFirstChunkColumn, "job_index", records);
        m_start = decodeColumn<double>(row, kFirstChunkColumn + 1, "start_s", records);
        m_end = decodeColumn<double>(row, kFirstChunkColumn + 2, "end_s", records);
        m_rate = decodeColumn<double>(row, kFirstChunkColumn + 3, "rate_per_s", records);
        m_samples = decodeColumn<double>(row, kFirstChunkColumn + 4, "samples_per_s", records);
    }

    void result(sqlite3_context* ctx, std::size_t i, int column) const override
    {
        switch (column) {
        case JobIndex:
            sqlite3_result_int(ctx, m_job[i]);
            break;
        case StartS:
            sqlite3_result_double(ctx, m_start[i]);
            break;
        case EndS:
            sqlite3_result_double(ctx, m_end[i]);
            break;
        case RatePerS:
            sqlite3_result_double(ctx, m_rate[i]);
            break;
        case SamplesPerS:
            sqlite3_result_double(ctx, m_samples[i]);
            break;
        default:
            sqlite3_result_null(ctx);
            break;
        }
    }

private:
    std::vector<std::int32_t> m_job;
    std::vector<double> m_start, m_end, m_rate, m_samples;
};

} // namespace

const TableSpec& rateSegmentsTable()
{
    // Columns as `simulate --json`'s rate_segments (io::rateSegmentColumns), run_id and the record index first.
    static const TableSpec spec{
        "rate_segments",
        "rate_segment_chunks",
        7,
        "CREATE TABLE x(run_id INTEGER, segment_index INTEGER, job_index INTEGER, start_s REAL, end_s REAL, "
        "rate_per_s REAL, samples_per_s REAL)",
        "job_index, start_s, end_s, rate_per_s, samples_per_s",
        SegmentIndex,
        {{{SegmentIndex, nullptr, true}, {JobIndex, "job_index", false}}},
        [] { return std::unique_ptr<ChunkDecoder>(new RateSegmentDecoder); },
    };
    return spec;
}

} // namespace orrery::sqlext
