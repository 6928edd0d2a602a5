#include "chunk_decoder.h"
#include "tables.h"

#include <charconv>

namespace orrery::sqlext {

namespace {

enum Column { RunId, SampleIndex, TimeS, BusyGpus, BusyByType };

/** The store reader's bound on gpu_types (core/store/column_chunks.cpp), far above any real cluster. */
constexpr std::int64_t kMaxGpuTypes = 1'000'000;

class UtilizationDecoder : public ChunkDecoder
{
public:
    void load(sqlite3_stmt* row, std::size_t records) override
    {
        const std::int64_t types = sqlite3_column_int64(row, kFirstChunkColumn);
        if (types < 0 || types > kMaxGpuTypes)
            throw DamagedChunk("gpu_types is " + std::to_string(types));
        m_types = static_cast<std::size_t>(types);
        m_time = decodeColumn<double>(row, kFirstChunkColumn + 1, "time_s", records);
        m_busy = decodeColumn<std::int32_t>(row, kFirstChunkColumn + 2, "busy_gpus", records);
        m_byType = decodeColumn<std::int32_t>(row, kFirstChunkColumn + 3, "busy_by_type", records * m_types);
    }

    void result(sqlite3_context* ctx, std::size_t i, int column) const override
    {
        switch (column) {
        case TimeS:
            sqlite3_result_double(ctx, m_time[i]);
            break;
        case BusyGpus:
            sqlite3_result_int(ctx, m_busy[i]);
            break;
        case BusyByType: {
            // JSON array in run_gpu_types order, as the plain table of schema versions 1-2 held it: [3,0]
            std::string json = "[";
            char digits[16];
            for (std::size_t t = 0; t < m_types; ++t) {
                if (t)
                    json += ',';
                const auto end = std::to_chars(digits, digits + sizeof digits, m_byType[i * m_types + t]).ptr;
                json.append(digits, end);
            }
            json += ']';
            sqlite3_result_text(ctx, json.data(), static_cast<int>(json.size()), SQLITE_TRANSIENT);
            break;
        }
        default:
            sqlite3_result_null(ctx);
            break;
        }
    }

private:
    std::size_t m_types = 0;
    std::vector<double> m_time;
    std::vector<std::int32_t> m_busy, m_byType;
};

} // namespace

const TableSpec& utilizationTable()
{
    static const TableSpec spec{
        "utilization",
        "utilization_chunks",
        3,
        "CREATE TABLE x(run_id INTEGER, sample_index INTEGER, time_s REAL, busy_gpus INTEGER, busy_by_type TEXT)",
        "gpu_types, time_s, busy_gpus, busy_by_type",
        SampleIndex,
        {{{SampleIndex, nullptr, true}}},
        [] { return std::unique_ptr<ChunkDecoder>(new UtilizationDecoder); },
    };
    return spec;
}

} // namespace orrery::sqlext
