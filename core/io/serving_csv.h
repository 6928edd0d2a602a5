#pragma once

// CSV exports of serving runs (RFC 4180, one header row, units in column names; docs/database.md "Serving runs"):
// `orrery-cli serve runs export` and the GUI's Serving panel write these.

#include "serve/attainment_curves.h"
#include "serve/serving_run.h"

#include <ostream>
#include <vector>

namespace orrery::io {

/**
 * One row per run: run_id, created_at, method, model_set, models, gpu_type, gpus, rate_per_s, cv, slo_scale,
 * requests, served, rejected, attainment_pct, latency_mean_s, latency_p50_s, latency_p90_s, latency_p99_s,
 * latency_max_s, groups, replicas, search_s. rate_per_s and cv are empty for trace traffic, latencies when nothing
 * was served.
 */
void writeServingRunsCsv(std::ostream& out, const std::vector<serve::ServingRun>& runs);
/** run_id, segment, group, stages, intra, gpus, models (space-separated instance names), replicas, utilisation_pct. */
void writeServingGroupsCsv(std::ostream& out, const std::vector<serve::ServingRun>& runs);
/** run_id, model, kind, slo_s, requests, served, attainment_pct. */
void writeServingModelsCsv(std::ostream& out, const std::vector<serve::ServingRun>& runs);
/** run_id, latency_s, fraction: the latency CDF of the served requests. */
void writeServingCdfCsv(std::ostream& out, const std::vector<serve::ServingRun>& runs);
/** method, then the axis's spec field (rate_per_s, cv or slo_scale), then attainment_pct: one row per point. */
void writeAttainmentCurvesCsv(std::ostream& out, const serve::AttainmentCurves& curves);

} // namespace orrery::io
