#pragma once

#include "workload/gavel_trace.h"
#include "workload/trace_read.h"

#include <optional>
#include <string>
#include <vector>

namespace orrery::workload {

/** How to read a trace file, whatever its format. */
struct TraceOptions
{
    std::optional<int> limit;
    /// pai: the job table (submission times, users) beside the task table; optional.
    std::string pairedPath;
    /// gavel: turns SLOs into deadlines.
    GavelTraceOptions gavel;
};

/** The formats readTrace() knows: gavel, openb, pai, helios, philly, sia, pollux. */
const std::vector<std::string>& traceFormats();

/**
 * Reads `path` as `format` (see each reader for its mapping to jobs). Gavel
 * traces keep file order and `limit` takes the first rows; the other formats are
 * returned sorted by arrival and `limit` keeps the earliest arrivals.
 */
TraceRead readTrace(const std::string& format, const std::string& path, const TraceOptions& options = {});

} // namespace orrery::workload
