#pragma once

#include "hardware/gpu_layout.h"
#include "sim/run_result.h"

#include <ostream>

namespace orrery::io {

/**
 * Writes a run's allocations as Chrome trace / Perfetto JSON (the "JSON
 * object format" with a traceEvents array), streamed so that big runs need no
 * document in memory:
 *  - one process per node (pid = node index + 1), named by a `process_name`
 *    metadata event, ordered by `process_sort_index`;
 *  - one thread per GPU (tid = global GPU index + 1), named
 *    "GPU <local index> (<type>)" by a `thread_name` event;
 *  - one complete event ("ph": "X") per allocation interval, in microseconds,
 *    named by the job id, with job id, job index, model and policy in args;
 *  - a counter track "busy GPUs" in an extra process "cluster".
 * Times are rounded to whole microseconds (rounding is monotonic, so slices
 * that do not overlap in seconds do not overlap in the trace).
 */
void writeChromeTrace(std::ostream& out, const sim::RunResult& run, const hardware::GpuLayout& layout);

} // namespace orrery::io
