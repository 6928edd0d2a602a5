#pragma once

#include "io/json_text_writer.h"
#include "metrics/metrics.h"
#include "sim/run_result.h"

#include <nlohmann/json.hpp>

namespace orrery::io {

/**
 * One run as `orrery-cli simulate --json` reports it: the summary figures, lifecycle and SLO figures, GPU-hours per
 * type, the rate segments and the throughput over time as columns (docs/cli.md). The document form, kept as the
 * reference the streamed form below is tested against.
 */
nlohmann::json simulateRunJson(const sim::RunResult& run, const metrics::Summary& s);

/**
 * The same object written as simulateRunJson(run, s).dump(2) writes it at the writer's depth, byte for byte,
 * with `extra` (an object, e.g. the store's run_id) merged in; the columns are streamed, not built as a document.
 */
void writeSimulateRun(JsonTextWriter& w, const sim::RunResult& run, const metrics::Summary& s,
                      const nlohmann::json& extra = nlohmann::json::object());

} // namespace orrery::io
