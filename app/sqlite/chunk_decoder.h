#pragma once

#include "sqlite_api.h"
#include "store/chunk_layout.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace orrery::sqlext {

/** A chunk whose content does not fit its header; the cursor adds the table, run and chunk to the message. */
class DamagedChunk : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/** The chunk query selects run_id, chunk_index, first_record and records, then the decoder's columns from here on. */
inline constexpr int kFirstChunkColumn = 4;

/** Turns one chunk row into records; one per cursor, reused for every chunk it reads. */
class ChunkDecoder
{
public:
    virtual ~ChunkDecoder() = default;
    /** Decodes the chunk row `row` is on, which holds `records` records; throws DamagedChunk. */
    virtual void load(sqlite3_stmt* row, std::size_t records) = 0;
    /** Sets column `column` of record `record` of the loaded chunk (the cursor answers run_id and the record index). */
    virtual void result(sqlite3_context* ctx, std::size_t record, int column) const = 0;
};

/** A column that a run's records can be looked up by, together with run_id (`WHERE run_id = ? AND gpu = ?`). */
struct KeyColumn
{
    int column = -1;                   ///< the virtual table's column; -1: no key
    const char* chunkColumn = nullptr; ///< the int32 chunk column holding it; nullptr when it is the record index
    bool unique = false;               ///< at most one record per value within a run
};

inline constexpr std::size_t kMaxKeys = 3;

/** What one eponymous virtual table reads and how it is declared. */
struct TableSpec
{
    const char* name;         ///< the virtual table, e.g. "jobs"
    const char* chunkTable;   ///< the chunk table it reads in the main schema, e.g. "job_chunks"
    int sinceSchemaVersion;   ///< the store schema that added chunkTable (for the error on other databases)
    const char* declaration;  ///< CREATE TABLE x(...): its columns, run_id first
    const char* chunkColumns; ///< the chunk table's columns the decoder reads, comma-separated
    int recordIndexColumn;    ///< the column holding first_record + i (the scan order within a run); -1 if none
    std::array<KeyColumn, kMaxKeys> keys; ///< the columns a join looks records up by, best first
    std::unique_ptr<ChunkDecoder> (*makeDecoder)();
};

/** The bytes of column `column` of the current row (a NULL reads as no bytes). */
inline std::string_view blobColumn(sqlite3_stmt* row, int column)
{
    const void* data = sqlite3_column_blob(row, column);
    const int bytes = sqlite3_column_bytes(row, column);
    if (!data || bytes <= 0)
        return {};
    return {static_cast<const char*>(data), static_cast<std::size_t>(bytes)};
}

/** Column `column` of the current row as `count` values of T; throws DamagedChunk when its size is not that. */
template <typename T> std::vector<T> decodeColumn(sqlite3_stmt* row, int column, const char* name, std::size_t count)
{
    const std::string_view blob = blobColumn(row, column);
    // Compared in 64 bits before decode() multiplies, so that a huge count cannot wrap around to the blob's size.
    const std::uint64_t expected = static_cast<std::uint64_t>(count) * sizeof(T);
    std::optional<std::vector<T>> values;
    if (blob.size() == expected)
        values = store::chunk::decode<T>(blob, count);
    if (!values)
        throw DamagedChunk("column " + std::string(name) + " holds " + std::to_string(blob.size()) +
                           " bytes, expected " + std::to_string(expected));
    return std::move(*values);
}

/**
 * A chunk's string dictionary (its `labels` column, store/chunk_layout.h) and the int32 columns that index it, as
 * the job and event chunks hold them.
 */
class ChunkLabels
{
public:
    /** Copies the labels of column `column`, so that the views do not depend on how long SQLite keeps the row. */
    void load(sqlite3_stmt* row, int column)
    {
        m_bytes = blobColumn(row, column);
        auto labels = store::chunk::splitLabels(m_bytes);
        if (!labels)
            throw DamagedChunk("column labels does not end with a NUL byte");
        m_labels = std::move(*labels);
    }

    /** An int32 column of indices into the labels, each checked to name one. */
    std::vector<std::int32_t> indexColumn(sqlite3_stmt* row, int column, const char* name, std::size_t records) const
    {
        auto indices = decodeColumn<std::int32_t>(row, column, name, records);
        for (std::size_t i = 0; i < indices.size(); ++i) {
            if (indices[i] < 0 || static_cast<std::size_t>(indices[i]) >= m_labels.size())
                throw DamagedChunk("column " + std::string(name) + " of record " + std::to_string(i) + " is label " +
                                   std::to_string(indices[i]) + ", but the chunk has " +
                                   std::to_string(m_labels.size()) + " labels");
        }
        return indices;
    }

    void result(sqlite3_context* ctx, std::int32_t index) const
    {
        const std::string_view label = m_labels[static_cast<std::size_t>(index)];
        sqlite3_result_text(ctx, label.data(), static_cast<int>(label.size()), SQLITE_TRANSIENT);
    }

private:
    std::string m_bytes;
    std::vector<std::string_view> m_labels; // views into m_bytes
};

} // namespace orrery::sqlext
