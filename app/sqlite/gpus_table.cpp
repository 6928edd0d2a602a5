#include "chunk_decoder.h"
#include "tables.h"

namespace orrery::sqlext {

namespace {

enum Column { RunId, Gpu, NodeIndex, Node, GpuType };

class GpuDecoder : public ChunkDecoder
{
public:
    void load(sqlite3_stmt* row, std::size_t records) override
    {
        int c = kFirstChunkColumn;
        m_labels.load(row, c++);
        m_nodeIndex = decodeColumn<std::int32_t>(row, c++, "node_index", records);
        m_node = m_labels.indexColumn(row, c++, "node", records);
        m_type = m_labels.indexColumn(row, c++, "gpu_type", records);
    }

    void result(sqlite3_context* ctx, std::size_t i, int column) const override
    {
        switch (column) {
        case NodeIndex:
            sqlite3_result_int(ctx, m_nodeIndex[i]);
            break;
        case Node:
            m_labels.result(ctx, m_node[i]);
            break;
        case GpuType:
            m_labels.result(ctx, m_type[i]);
            break;
        default:
            sqlite3_result_null(ctx);
            break;
        }
    }

private:
    ChunkLabels m_labels;
    std::vector<std::int32_t> m_nodeIndex, m_node, m_type;
};

} // namespace

const TableSpec& gpusTable()
{
    // The record index is the GPU's global index, so `gpu` is both the scan order and a unique key.
    static const TableSpec spec{
        "gpus",
        "gpu_chunks",
        11,
        "CREATE TABLE x(run_id INTEGER, gpu INTEGER, node_index INTEGER, node TEXT, gpu_type TEXT)",
        "labels, node_index, node, gpu_type",
        Gpu,
        {{{Gpu, nullptr, true}}},
        [] { return std::unique_ptr<ChunkDecoder>(new GpuDecoder); },
    };
    return spec;
}

} // namespace orrery::sqlext
