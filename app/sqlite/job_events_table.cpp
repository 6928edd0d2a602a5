#include "chunk_decoder.h"
#include "tables.h"

namespace orrery::sqlext {

namespace {

enum Column { RunId, EventIndex, JobIndex, TimeS, Kind, Detail };

class EventDecoder : public ChunkDecoder
{
public:
    void load(sqlite3_stmt* row, std::size_t records) override
    {
        int c = kFirstChunkColumn;
        m_labels.load(row, c++);
        m_job = decodeColumn<std::int32_t>(row, c++, "job_index", records);
        m_time = decodeColumn<double>(row, c++, "time_s", records);
        m_kind = m_labels.indexColumn(row, c++, "kind", records);
        m_detail = m_labels.indexColumn(row, c++, "detail", records);
    }

    void result(sqlite3_context* ctx, std::size_t i, int column) const override
    {
        switch (column) {
        case JobIndex:
            sqlite3_result_int(ctx, m_job[i]);
            break;
        case TimeS:
            sqlite3_result_double(ctx, m_time[i]);
            break;
        case Kind:
            m_labels.result(ctx, m_kind[i]);
            break;
        case Detail:
            m_labels.result(ctx, m_detail[i]);
            break;
        default:
            sqlite3_result_null(ctx);
            break;
        }
    }

private:
    ChunkLabels m_labels;
    std::vector<std::int32_t> m_job, m_kind, m_detail;
    std::vector<double> m_time;
};

} // namespace

const TableSpec& jobEventsTable()
{
    static const TableSpec spec{
        "job_events",
        "event_chunks",
        6,
        "CREATE TABLE x(run_id INTEGER, event_index INTEGER, job_index INTEGER, time_s REAL, kind TEXT, detail TEXT)",
        "labels, job_index, time_s, kind, detail",
        EventIndex,
        {{{EventIndex, nullptr, true}, {JobIndex, "job_index", false}}},
        [] { return std::unique_ptr<ChunkDecoder>(new EventDecoder); },
    };
    return spec;
}

} // namespace orrery::sqlext
