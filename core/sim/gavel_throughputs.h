#pragma once

#include "sim/throughput.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace orrery::sim {

/**
 * Gavel's `simulation_throughputs.json`: per worker type, per
 * "('<job type>', <scale factor>)" key, the isolated throughput ("null") in
 * steps/s of the whole job on `scale factor` GPUs, 0 when it cannot run
 * (out of memory). Co-location entries (packing) are read past, not used.
 * Worker types are matched to the GPU catalog by name or alias (`v100` ->
 * v100-16gb); `*_unconsolidated` types are skipped.
 */
class GavelThroughputs : public ThroughputSource
{
public:
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

    /** The isolated steps/s, or -1 when the (type, job type, scale factor) triple is absent. */
    double lookup(const std::string& catalogType, const std::string& jobType, int scaleFactor) const;
    bool hasJobType(const std::string& jobType) const;
    std::vector<std::string> workerTypes() const;

private:
    // catalog type name -> (job type, scale factor) -> steps/s
    std::map<std::string, std::map<std::pair<std::string, int>, double>> m_table;
};

/** Parses "('ResNet-18 (batch size 16)', 1)"; returns false when the key is not in that form. */
bool parseGavelJobKey(const std::string& key, std::string& jobType, int& scaleFactor);

} // namespace orrery::sim
