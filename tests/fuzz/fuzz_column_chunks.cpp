// The run store's column chunks (store/column_chunks.h, layout in store/chunk_layout.h): the readers that
// turn a run's BLOB chunks back into series and job records, including the chunk sequence checks, the
// BLOB size checks and the label dictionary. The chunks go through an in-memory store with the real
// schema, so the bytes reach the decoder exactly as they would from a damaged or hand-edited file.
//
// Input: one byte picks the table (selector % 5: intervals, utilization, decisions, jobs, events; for job_chunks,
// selector / 5 + 1 is the run's job count, 1 to 52), then chunks until
// the input ends. A chunk is its integers as int32 little-endian (chunk_index, first_record, records,
// and gpu_types for utilization_chunks), then each BLOB column as a uint16 little-endian length and
// that many bytes (cut short at the end of the input).
//
// The job count is always given: without it (an interrupted run, job_count NULL) readJobs() accepts any
// job_index below kMaxJobIndex and sizes its result to it, which is gigabytes by design, not a bug the
// fuzzer should keep rediscovering (docs/reliability.md, "Fuzzing").
#include "io/error.h"
#include "store/column_chunks.h"
#include "store/schema.h"
#include "store/sqlite.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>

namespace {

using namespace orrery::store;

struct Table
{
    const char* name;
    int integers; // chunk_index, first_record, records[, gpu_types]
    int blobs;
    const char* columns;
};

constexpr std::array<Table, 5> kTables = {{
    {"interval_chunks", 3, 4, "chunk_index, first_record, records, job_index, gpu, start_s, end_s"},
    {"utilization_chunks", 4, 3, "chunk_index, first_record, records, gpu_types, time_s, busy_gpus, busy_by_type"},
    {"decision_chunks", 3, 4, "chunk_index, first_record, records, sim_time_s, wall_s, queued, running"},
    {"job_chunks", 3, 17,
     "chunk_index, first_record, records, labels, job_index, job_id, model, user, gpu_type, gpus, restarts, "
     "nodes, demand, excluded_from_average, arrival_s, start_s, end_s, gpu_seconds, cost_usd, ideal_s"},
    {"event_chunks", 3, 5, "chunk_index, first_record, records, labels, job_index, time_s, kind, detail"},
}};

constexpr std::int64_t kRun = 1;

class Input
{
public:
    Input(const std::uint8_t* data, std::size_t size) : m_data(data), m_size(size) {}
    bool empty() const { return m_pos >= m_size; }
    std::uint8_t byte() { return empty() ? 0 : m_data[m_pos++]; }
    std::int32_t int32()
    {
        std::uint32_t v = 0;
        for (int i = 0; i < 4; ++i)
            v |= static_cast<std::uint32_t>(byte()) << (8 * i);
        return static_cast<std::int32_t>(v);
    }
    std::string_view bytes()
    {
        std::size_t n = byte();
        n |= static_cast<std::size_t>(byte()) << 8;
        n = std::min(n, m_size - std::min(m_pos, m_size));
        const std::string_view out(reinterpret_cast<const char*>(m_data) + m_pos, n);
        m_pos += n;
        return out;
    }

private:
    const std::uint8_t* m_data;
    std::size_t m_size;
    std::size_t m_pos = 0;
};

struct Store
{
    Connection db{":memory:", Connection::Mode::ReadWriteCreate};
    std::array<std::unique_ptr<Statement>, kTables.size()> clear;
    std::array<std::unique_ptr<Statement>, kTables.size()> insert;

    Store()
    {
        migrate(db);
        for (std::size_t t = 0; t < kTables.size(); ++t) {
            const Table& table = kTables[t];
            std::string values = "?1";
            for (int i = 0; i < table.integers + table.blobs; ++i)
                values += ", ?" + std::to_string(i + 2);
            clear[t] = std::make_unique<Statement>(db, std::string("DELETE FROM ") + table.name);
            // OR REPLACE: a repeated chunk_index is the damage the reader must catch, not a constraint error.
            insert[t] = std::make_unique<Statement>(db, std::string("INSERT OR REPLACE INTO ") + table.name +
                                                            " (run_id, " + table.columns + ") VALUES (" + values + ")");
        }
    }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static Store store;
    Input in(data, size);
    const std::uint8_t selector = in.byte();
    const std::size_t t = selector % kTables.size();
    const Table& table = kTables[t];
    store.clear[t]->run();
    // An empty BLOB must be bound from a non-null pointer: a null one stores NULL, which NOT NULL refuses.
    static const char empty = 0;
    while (!in.empty()) {
        Statement& s = *store.insert[t];
        s.bind(1, kRun);
        for (int i = 0; i < table.integers; ++i)
            s.bind(2 + i, static_cast<std::int64_t>(in.int32()));
        for (int i = 0; i < table.blobs; ++i) {
            const std::string_view blob = in.bytes();
            s.bindStaticBlob(2 + table.integers + i, blob.empty() ? &empty : blob.data(), blob.size());
        }
        s.run();
    }
    try {
        const std::string path = "fuzz.orrery";
        switch (t) {
        case 0:
            readIntervals(store.db, path, kRun);
            break;
        case 1:
            readUtilization(store.db, path, kRun);
            break;
        case 2:
            readDecisions(store.db, path, kRun);
            break;
        case 3:
            readJobs(store.db, path, kRun, selector / kTables.size() + 1);
            break;
        default:
            readJobEvents(store.db, path, kRun);
            break;
        }
    } catch (const orrery::Error&) {
    }
    return 0;
}
