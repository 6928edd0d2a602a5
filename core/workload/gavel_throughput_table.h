#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace orrery::workload {

/**
 * Gavel's `simulation_throughputs.json`: per worker type, per "('<job type>', <scale factor>)" key,
 * the isolated throughput ("null") in steps/s of the whole job on `scale factor` GPUs, 0 when it
 * cannot run (out of memory). Co-location entries (packing) are checked but not kept. Worker types
 * are matched to the GPU catalog by name or alias (`v100` -> v100-16gb); `*_unconsolidated` types
 * are skipped (Gavel's simulator never reads them).
 *
 * One reader for both users of the file: the Gavel trace reader (durations are given on the V100)
 * and the simulator's rate source, which share one parse per scenario.
 */
class GavelThroughputTable
{
public:
    /** Throws orrery::Error naming the file and JSON path on malformed input. */
    static GavelThroughputTable fromFile(const std::string& path);
    static GavelThroughputTable fromJsonText(const std::string& text, const std::string& fileLabel);

    using Row = std::map<std::pair<std::string, int>, double>;
    using Rows = std::map<std::string, Row>; // catalog type name -> row

    /** The isolated steps/s, or -1 when the (type, job type, scale factor) triple is absent. */
    double lookup(const std::string& catalogType, const std::string& jobType, int scaleFactor) const;
    /** (job type, scale factor) -> steps/s on a catalog type; nullptr when the table lacks the type. */
    const Row* row(const std::string& catalogType) const;
    bool hasJobType(const std::string& jobType) const;
    std::vector<std::string> workerTypes() const;
    /** Where it was read from, as errors name it. */
    const std::string& label() const { return m_label; }

private:
    Rows m_table;
    std::string m_label;
};

/** Parses "('ResNet-18 (batch size 16)', 1)"; returns false when the key is not in that form. */
bool parseGavelJobKey(std::string_view key, std::string& jobType, int& scaleFactor);

} // namespace orrery::workload
