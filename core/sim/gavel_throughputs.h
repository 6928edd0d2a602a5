#pragma once

#include "sim/throughput.h"
#include "workload/gavel_throughput_table.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace orrery::sim {

/**
 * Gavel's throughput table as a rate source: a job with a job type runs at the table's isolated
 * steps/s for (job type, GPU count) on the GPU's type (workload::GavelThroughputTable reads the
 * file).
 */
class GavelThroughputs : public ThroughputSource
{
public:
    explicit GavelThroughputs(std::shared_ptr<const workload::GavelThroughputTable> table) : m_table(std::move(table))
    {}
    /** Throws orrery::Error naming the file and JSON path on malformed input. */
    static GavelThroughputs fromFile(const std::string& path);
    static GavelThroughputs fromJsonText(const std::string& text, const std::string& fileLabel);

    double work(const workload::Job& job) const override { return job.iterations; }
    int demand(const workload::Job& job) const override { return job.gpus; }
    /**
     * The table entry for (job type, count) on the type. When the table has no
     * entry for that count (Gavel's msr traces ask for up to 64 GPUs, the table
     * stops at 8), the largest profiled scale factor below it is scaled
     * linearly (weak scaling). 0 when the type or job type is unknown.
     */
    double rate(const workload::Job& job, const hardware::GpuType& gpu, int count) const override;

    const workload::GavelThroughputTable& table() const { return *m_table; }

private:
    std::shared_ptr<const workload::GavelThroughputTable> m_table;
};

} // namespace orrery::sim
