#include "chunk_decoder.h"
#include "tables.h"

namespace orrery::sqlext {

namespace {

enum Column { RunId, DecisionIndex, SimTimeS, WallS, Queued, Running };

class DecisionDecoder : public ChunkDecoder
{
public:
    void load(sqlite3_stmt* row, std::size_t records) override
    {
        m_simTime = decodeColumn<double>(row, kFirstChunkColumn, "sim_time_s", records);
        m_wall = decodeColumn<double>(row, kFirstChunkColumn + 1, "wall_s", records);
        m_queued = decodeColumn<std::int32_t>(row, kFirstChunkColumn + 2, "queued", records);
        m_running = decodeColumn<std::int32_t>(row, kFirstChunkColumn + 3, "running", records);
    }

    void result(sqlite3_context* ctx, std::size_t i, int column) const override
    {
        switch (column) {
        case SimTimeS:
            sqlite3_result_double(ctx, m_simTime[i]);
            break;
        case WallS:
            sqlite3_result_double(ctx, m_wall[i]);
            break;
        case Queued:
            sqlite3_result_int(ctx, m_queued[i]);
            break;
        case Running:
            sqlite3_result_int(ctx, m_running[i]);
            break;
        default:
            sqlite3_result_null(ctx);
            break;
        }
    }

private:
    std::vector<double> m_simTime, m_wall;
    std::vector<std::int32_t> m_queued, m_running;
};

} // namespace

const TableSpec& decisionsTable()
{
    static const TableSpec spec{
        "decisions",
        "decision_chunks",
        3,
        "CREATE TABLE x(run_id INTEGER, decision_index INTEGER, sim_time_s REAL, wall_s REAL, queued INTEGER, "
        "running INTEGER)",
        "sim_time_s, wall_s, queued, running",
        DecisionIndex,
        {{{DecisionIndex, nullptr, true}}},
        [] { return std::unique_ptr<ChunkDecoder>(new DecisionDecoder); },
    };
    return spec;
}

} // namespace orrery::sqlext
